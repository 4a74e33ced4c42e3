/**
 * The guard's file, stream, timer and process I/O, written once against `node:` modules, which Deno and the
 * Node bundle both run. Standard streams go through file descriptors, not `process.stdin`/`process.stdout`:
 * those streams load Node's net and tty machinery, which a hook process has no other use for (≈ 6 ms of the
 * Node bundle's start-up). Errors carry `code` (`ENOENT`, `ELOOP`, `EFTYPE`, …) as node:fs throws them.
 *
 * Every file the guard opens is opened with O_NONBLOCK (a FIFO never blocks the process) and checked to be a
 * regular file after opening (`openRegular`); ledger-dir files are opened with O_NOFOLLOW as well.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import process from "node:process";
import { randomBytes } from "node:crypto";

/** The process environment. */
export const env: Record<string, string | undefined> = process.env;

/** The command-line arguments after the script. */
export const args: string[] = process.argv.slice(2);

/** 16 random hex digits: a temp file's name no other process can guess. */
export function randomName(): string {
  return randomBytes(8).toString("hex");
}

/** The largest chunk `readChunks` hands over: a few of them stay in the processor's cache. */
export const READ_CHUNK = 256 * 1024;

/** Joins a directory and a file name (a trailing slash on the directory is not doubled). */
export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
}

/** The error code of a file-system error, or "". */
export function codeOf(err: unknown): string {
  return (err as { code?: string })?.code ?? "";
}

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_RDWR, O_WRONLY } = constants;

/** An error with a file-system code, as node:fs throws them. */
function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/**
 * A descriptor for a regular file at `path`, opened without blocking on a FIFO and, unless `follow`, without
 * following a symbolic link (`ELOOP`); anything but a regular file is closed again and refused (`EFTYPE`).
 */
export function openRegular(path: string, flags: number, follow = false): number {
  const fd = openSync(path, flags | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW), 0o644);
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  throw fsError("EFTYPE", `not a regular file, open '${path}'`);
}

/** `bytes` bytes of an open descriptor from byte `from` (fewer when it ends first). */
function readFd(fd: number, from: number, bytes: number): Uint8Array {
  const buffer = new Uint8Array(Math.max(0, bytes));
  let read = 0;
  while (read < buffer.length) {
    const n = readSync(fd, buffer, read, buffer.length - read, from + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

/**
 * `bytes` bytes of a regular file from byte `start` (or its last `bytes` when `start` is "tail"), fewer at its
 * end; a ledger-dir read (`follow` false) refuses links too.
 */
function readAt(path: string, start: number | "tail", bytes: number, follow = false): Uint8Array {
  const fd = openRegular(path, O_RDONLY, follow);
  try {
    const size = fstatSync(fd).size;
    const from = start === "tail" ? size - Math.min(size, bytes) : start;
    return readFd(fd, from, Math.min(bytes, size - from));
  } finally {
    closeSync(fd);
  }
}

/** A regular file's whole text (UTF-8), up to `max` bytes (a settings file); follows links. */
export function readText(path: string, max = 16 * 1024 * 1024): string {
  return new TextDecoder().decode(readAt(path, 0, max, true));
}

/** The last `bytes` bytes of a regular file as text (a transcript); follows links. */
export function readTail(path: string, bytes: number): string {
  return new TextDecoder().decode(readAt(path, "tail", bytes, true));
}

/** `bytes` bytes of a ledger-dir file from byte `start` as text; refuses links and non-regular files. */
export function readRange(path: string, start: number, bytes: number): string {
  return new TextDecoder().decode(readAt(path, start, bytes));
}

/** `bytes` bytes of a ledger-dir file from byte `start`; refuses what `readRange` refuses. */
export function readBytes(path: string, start: number, bytes: number): Uint8Array {
  return readAt(path, start, bytes);
}

/**
 * Hands `bytes` bytes of a ledger-dir file from byte `start` to `each`, in order, a chunk of at most
 * `READ_CHUNK` bytes at a time in one buffer that is reused (copy what you keep), until the file ends or
 * `each` returns false; refuses what `readRange` refuses. Returns the bytes handed over.
 */
export function readChunks(
  path: string,
  start: number,
  bytes: number,
  each: (chunk: Uint8Array) => boolean | void,
): number {
  const fd = openRegular(path, O_RDONLY);
  try {
    const buffer = new Uint8Array(Math.min(READ_CHUNK, Math.max(0, bytes)));
    let done = 0;
    while (done < bytes) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, bytes - done), start + done);
      if (n === 0) break;
      done += n;
      if (each(buffer.subarray(0, n)) === false) break;
    }
    return done;
  } finally {
    closeSync(fd);
  }
}

/** Writes all of `bytes` to a descriptor (a write may take them in parts). */
function writeAllFd(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
}

/** Removes a file if it is there. */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created, or already gone.
  }
}

/**
 * Creates a file that does not exist yet, mode 0644, holding `data`: `EEXIST` when anything is at the path,
 * a symbolic link included (a lock, a marker, a temp file).
 */
export function createNew(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  try {
    writeAllFd(fd, typeof data === "string" ? new TextEncoder().encode(data) : data);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces a file's whole content, mode 0644: written to a temp file beside it, created exclusively under an
 * unpredictable name, and renamed into place (a link at the path is replaced, never followed), so a reader
 * sees the old content or the new, never a part; throws what the file system throws, leaving no temp file.
 */
export function writeWhole(path: string, data: string | Uint8Array): void {
  const temp = `${path}.${randomName()}.tmp`;
  try {
    createNew(temp, data);
    renameSync(temp, path);
  } catch (err) {
    if (codeOf(err) !== "EEXIST") removeQuietly(temp);
    throw err;
  }
}

/** Removes a file; throws what the file system throws. */
export function removeFile(path: string): void {
  unlinkSync(path);
}

/** A file's size in bytes; throws what the file system throws (`ENOENT` when it is missing). */
export function fileSize(path: string): number {
  return statSync(path).size;
}

/** When a file (a link itself, not followed) was last modified, ms since the epoch. */
export function modifiedAt(path: string): number {
  return lstatSync(path).mtimeMs;
}

/** The names in a directory. */
export function listDir(path: string): string[] {
  return readdirSync(path);
}

/**
 * Appends one line (`text` ends with a newline) with one write to a regular file opened O_APPEND, creating the
 * file (not its directory) with mode 0644; refuses a link or anything but a regular file. A file that does not
 * end with a newline (a write cut short) gets one first, in the same write, so a line is never joined to a
 * half line. Returns the bytes written.
 */
export function appendLine(path: string, text: string): number {
  return appendAfter(path, 1, () => text).bytes;
}

/**
 * Appends one line made from the file's end, as `appendLine` does: `make` is given the file's last `tail` bytes
 * (all of it when shorter) and returns the line (ending with a newline). Returns the bytes written and the
 * file's size before them. Another process may append between the read and the write (O_APPEND keeps both
 * lines whole; the ledger's chain allows for it).
 */
export function appendAfter(
  path: string,
  tail: number,
  make: (end: Uint8Array) => string,
): { bytes: number; size: number } {
  const fd = openRegular(path, O_RDWR | O_APPEND | O_CREAT);
  try {
    const size = fstatSync(fd).size;
    const end = readFd(fd, size - Math.min(size, tail), Math.min(size, tail));
    const cut = end.length > 0 && end[end.length - 1] !== 10;
    const text = make(end);
    const bytes = new TextEncoder().encode(cut ? `\n${text}` : text);
    writeAllFd(fd, bytes);
    return { bytes: bytes.length, size };
  } finally {
    closeSync(fd);
  }
}

/** Appends bytes as they are (a checkpoint's contents), refusing what `appendLine` refuses and creating alike. */
export function append(path: string, data: Uint8Array): void {
  const fd = openRegular(path, O_WRONLY | O_APPEND | O_CREAT);
  try {
    writeAllFd(fd, data);
  } finally {
    closeSync(fd);
  }
}

/**
 * A descriptor to append to a log (a child's stdout and stderr), created mode 0644: a regular file opened
 * without following a link; a link, FIFO or anything else planted at the path is removed first and a new
 * file created exclusively, so nothing is written through it. The caller closes it.
 */
export function openLog(path: string): number {
  try {
    return openRegular(path, O_WRONLY | O_APPEND | O_CREAT);
  } catch (err) {
    if (codeOf(err) !== "ELOOP" && codeOf(err) !== "EFTYPE") throw err;
  }
  unlinkSync(path);
  return openSync(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
}

/** Creates a directory and its parents; no error when it exists. */
export function makeDir(path: string): void {
  mkdirSync(path, { recursive: true });
}

/**
 * Reads stdin to its end synchronously: a pipe or file that Claude Code writes and closes is read with no
 * stream set up. Returns what was read and whether the rest must be read asynchronously: stdin is a
 * terminal (a person typing; the time budget must keep running), or a non-blocking descriptor ran dry
 * (EAGAIN) before its end. A closed or absent stdin reads as "".
 */
export function readStdinSync(fd = 0): { chunks: Uint8Array[]; rest: boolean } {
  const chunks: Uint8Array[] = [];
  try {
    if (fstatSync(fd).isCharacterDevice()) return { chunks, rest: true };
  } catch {
    return { chunks, rest: false };
  }
  const buffer = new Uint8Array(256 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (err) {
      const code = codeOf(err);
      if (code === "EAGAIN" || code === "EWOULDBLOCK") return { chunks, rest: true };
      if (code === "EINTR") continue;
      // EOF (Windows), EBADF, EINVAL…: whatever was read is all there is.
      return { chunks, rest: false };
    }
    if (n === 0) return { chunks, rest: false };
    chunks.push(buffer.slice(0, n));
  }
}

/** Hands each chunk of stdin to `push` until its end; none when stdin is closed or absent. */
export async function readStdin(push: (chunk: Uint8Array) => void): Promise<void> {
  const { chunks, rest } = readStdinSync();
  for (const chunk of chunks) push(chunk);
  if (!rest) return;
  try {
    for await (const chunk of process.stdin) push(chunk as Uint8Array);
  } catch {
    // A stdin that errors mid-read gives what was read.
  }
}

/** How long a write waits in all for a reader that leaves a non-blocking pipe full. */
const WRITE_WAIT_MS = 10_000;

/**
 * Writes all of `text` to a descriptor before returning (the hook may exit right after). A non-blocking pipe
 * that is full (EAGAIN) is retried every millisecond, up to `WRITE_WAIT_MS`; then, or on any other write
 * error, it throws.
 */
function writeFd(fd: 1 | 2, text: string): void {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  let waited = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (err) {
      if (codeOf(err) !== "EAGAIN" || waited >= WRITE_WAIT_MS) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      waited++;
    }
  }
}

/** Writes text to stdout, all of it, before returning. */
export function writeOut(text: string): void {
  writeFd(1, text);
}

/** Writes text to stderr, all of it, before returning; never throws. */
export function writeErr(text: string): void {
  try {
    writeFd(2, text);
  } catch {
    // stderr closed: nothing to tell, and the hook must still answer.
  }
}

/**
 * A monotonic clock in ms (any origin): `process.hrtime`, not `performance.now()`, whose first call loads
 * Node's perf_hooks (≈ 1 ms of a hook process's start-up).
 */
export function now(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

/** Calls `listener` after `ms` unless cancelled first; returns the cancel. */
export function timer(ms: number, listener: () => void): () => void {
  const id = setTimeout(listener, ms);
  return () => clearTimeout(id);
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The three signals Claude Code ends a hook with. */
export type HookSignal = "SIGTERM" | "SIGINT" | "SIGHUP";

/** Calls `listener` once when the signal arrives (the listener decides whether to exit). */
export function onceSignal(signal: HookSignal, listener: () => void): void {
  process.once(signal, listener);
}

/** Ends the process now with the code. */
export function exit(code: number): never {
  return process.exit(code);
}

/** The code the process ends with when it ends on its own. */
export function setExitCode(code: number): void {
  process.exitCode = code;
}
