/**
 * The runtime under the guard's hook path: files, standard streams, signals and exit, from Deno's own API
 * under Deno and from `node:` modules under Node. Under Deno nothing here loads a `node:` module: the first
 * one costs Deno ≈ 30 ms of node-compat start-up, more than the hook's own work (issue 20). `deno run` of
 * guard.ts gets the Deno host; a Node entry (guard_node.ts, agent_node.ts) installs the Node host with
 * `setHost` before it calls main (host_node.ts is imported only by those entries).
 */
import { denoHost } from "./host_deno.ts";

/** The three signals Claude Code ends a hook with. */
export type HookSignal = "SIGTERM" | "SIGINT" | "SIGHUP";

/** What the hook path needs from its runtime; errors carry `code` (`ENOENT`, …) under both runtimes. */
export interface Host {
  /** The process environment (a snapshot under Deno). */
  env: Record<string, string | undefined>;
  /** The command-line arguments after the script. */
  args: string[];
  /** A file's whole text (UTF-8); throws what the file system throws. */
  readText(path: string): string;
  /** The last `bytes` bytes of a file as text; throws what the file system throws. */
  readTail(path: string, bytes: number): string;
  /** `bytes` bytes of a file from byte `start` as text (fewer at its end); throws what the file system throws. */
  readRange(path: string, start: number, bytes: number): string;
  /** `bytes` bytes of a file from byte `start` (fewer at its end); throws what the file system throws. */
  readBytes(path: string, start: number, bytes: number): Uint8Array;
  /**
   * Replaces a file's whole content, mode 0644: written to a temp file beside it and renamed into place, so a
   * reader sees the old content or the new, never a part; throws what the file system throws.
   */
  writeWhole(path: string, data: string | Uint8Array): void;
  /** Removes a file; throws what the file system throws. */
  removeFile(path: string): void;
  /** A file's size in bytes; throws what the file system throws (`ENOENT` when it is missing). */
  fileSize(path: string): number;
  /**
   * Appends text with one write to a file opened O_APPEND, creating the file (not its directory) with mode
   * 0644 under both runtimes (Deno's default create mode is 0666 whatever the umask). Returns the bytes written.
   */
  appendText(path: string, text: string): number;
  /** Creates a directory and its parents; no error when it exists. */
  makeDir(path: string): void;
  /** Hands each chunk of stdin to `push` until its end; none when stdin is closed or absent. */
  readStdin(push: (chunk: Uint8Array) => void): Promise<void>;
  /** Writes text to stdout, all of it, before returning. */
  writeOut(text: string): void;
  /** Writes text to stderr, all of it, before returning; never throws. */
  writeErr(text: string): void;
  /**
   * Calls `listener` after `ms` unless cancelled first; returns the cancel. Under Deno this is web
   * `AbortSignal.timeout` (Deno's global `setTimeout` loads its node-compat timers, ≈ 30 ms of a hook's
   * start-up), and a cancelled timer still holds the process until it would have fired: a command-mode hook
   * ends its process itself once it has answered.
   */
  timer(ms: number, listener: () => void): () => void;
  /** Resolves after `ms` (a timer of `timer`'s kind). */
  sleep(ms: number): Promise<void>;
  /** Calls `listener` once when the signal arrives (the listener decides whether to exit). */
  onceSignal(signal: HookSignal, listener: () => void): void;
  /** Ends the process now with the code. */
  exit(code: number): never;
  /** The code the process ends with when it ends on its own. */
  setExitCode(code: number): void;
}

/** A host for a runtime that is neither Deno nor set up: every use says what is missing. */
function missingHost(): Host {
  const missing = (): never => {
    throw new Error("No guard host is set up: a Node entry must call setHost(nodeHost()) before main.");
  };
  return {
    env: {},
    args: [],
    readText: missing,
    readTail: missing,
    readRange: missing,
    readBytes: missing,
    writeWhole: missing,
    removeFile: missing,
    fileSize: missing,
    appendText: missing,
    makeDir: missing,
    readStdin: missing,
    writeOut: missing,
    writeErr: missing,
    timer: missing,
    sleep: missing,
    onceSignal: missing,
    exit: missing,
    setExitCode: missing,
  };
}

/** The host this process runs on: Deno's under Deno, else the one a Node entry set. */
export let host: Host = "Deno" in globalThis ? denoHost() : missingHost();

/** Sets the host (a Node entry, before main). */
export function setHost(next: Host): void {
  host = next;
}

/** Joins a directory and a file name (a trailing slash on the directory is not doubled). */
export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}
