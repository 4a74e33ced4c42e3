/** What the guard's hook path needs from its runtime (lib/guard/runtime/host.ts picks the implementation). */
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
