/** What the guard's hook path needs from its runtime (lib/guard/runtime/host.ts picks the implementation). */

/** 16 random hex digits: a temp file's name no other process can guess. */
export function randomName(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

/** The largest chunk `Host.readChunks` hands over: a few of them stay in the processor's cache. */
export const READ_CHUNK = 256 * 1024;

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
  /** The last `bytes` bytes of a file as text (a transcript); throws what the file system throws. */
  readTail(path: string, bytes: number): string;
  /**
   * `bytes` bytes of a ledger-dir file from byte `start` as text (fewer at its end); refuses a symbolic link or
   * anything but a regular file (`ELOOP`, `EFTYPE`); throws what the file system throws.
   */
  readRange(path: string, start: number, bytes: number): string;
  /** `bytes` bytes of a ledger-dir file from byte `start` (fewer at its end); refuses what `readRange` refuses. */
  readBytes(path: string, start: number, bytes: number): Uint8Array;
  /**
   * Hands `bytes` bytes of a ledger-dir file from byte `start` to `each`, in order, a chunk of at most
   * `READ_CHUNK` bytes at a time in one buffer that is reused (copy what you keep), until the file ends or
   * `each` returns false; refuses what `readRange` refuses. Returns the bytes handed over. A long ledger is
   * so digested without being held whole.
   */
  readChunks(path: string, start: number, bytes: number, each: (chunk: Uint8Array) => boolean | void): number;
  /**
   * Replaces a file's whole content, mode 0644: written to a temp file beside it, created exclusively under an
   * unpredictable name, and renamed into place (a link at the path is replaced, never followed), so a reader
   * sees the old content or the new, never a part; throws what the file system throws, leaving no temp file.
   */
  writeWhole(path: string, data: string | Uint8Array): void;
  /**
   * Creates a file that does not exist yet, mode 0644, holding `data`: `EEXIST` when anything is at the path,
   * a symbolic link included (a lock, a marker).
   */
  createNew(path: string, data: string | Uint8Array): void;
  /** Removes a file; throws what the file system throws. */
  removeFile(path: string): void;
  /** A file's size in bytes; throws what the file system throws (`ENOENT` when it is missing). */
  fileSize(path: string): number;
  /** When a file (a link itself, not followed) was last modified, ms since the epoch; throws like `fileSize`. */
  modifiedAt(path: string): number;
  /** The names in a directory; throws what the file system throws. */
  listDir(path: string): string[];
  /**
   * Appends one line (`text` ends with a newline) with one write to a file opened O_APPEND, creating the file
   * (not its directory) exclusively with mode 0644 under both runtimes (Deno's default create mode is 0666
   * whatever the umask). Refuses a symbolic link or anything but a regular file (`ELOOP`, `EFTYPE`), never
   * following one. A file that does not end with a newline (a write cut short) gets one first, in the same
   * write, so a line is never joined to a half line. Returns the bytes written.
   */
  appendLine(path: string, text: string): number;
  /** Appends bytes as they are (a checkpoint's contents), refusing what `appendLine` refuses and creating alike. */
  append(path: string, data: Uint8Array): void;
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
