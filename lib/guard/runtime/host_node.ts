/**
 * The guard's host under Node (the bundle in the trial container). Standard streams go through file
 * descriptors, not `process.stdin`/`process.stdout`: those streams load Node's net and tty machinery, which
 * a hook process has no other use for (≈ 6 ms of its start-up, issue 20).
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import process from "node:process";
import { type HookSignal, type Host, randomName, READ_CHUNK } from "./host_api.ts";

/** The error code of a file-system error, or "". */
function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException)?.code ?? "";
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

/** The rest of stdin through the stream, for the cases the synchronous read hands over. */
async function readStdinRest(push: (chunk: Uint8Array) => void): Promise<void> {
  for await (const chunk of process.stdin) push(chunk as Uint8Array);
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

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_RDWR, O_WRONLY } = constants;

/** An error with a file-system code, as node:fs throws them. */
function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/**
 * A descriptor for a regular file at `path`, opened without following a symbolic link (`ELOOP`) and without
 * blocking on a FIFO; anything but a regular file is closed again and refused (`EFTYPE`).
 */
function openRegular(path: string, flags: number): number {
  const fd = openSync(path, flags | O_NOFOLLOW | O_NONBLOCK, 0o644);
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  throw fsError("EFTYPE", `not a regular file, open '${path}'`);
}

/** Writes all of `bytes` to a descriptor (a write may take them in parts). */
function writeAllFd(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
}

/**
 * `bytes` bytes of a file from byte `start` (or its last `bytes` when `start` is "tail"); a ledger-dir read
 * (`follow` false) refuses links and anything but a regular file.
 */
function readBytes(path: string, start: number | "tail", bytes: number, follow = false): Uint8Array {
  const fd = follow ? openSync(path, "r") : openRegular(path, O_RDONLY);
  try {
    const size = fstatSync(fd).size;
    const from = start === "tail" ? size - Math.min(size, bytes) : start;
    const buffer = new Uint8Array(Math.max(0, Math.min(bytes, size - from)));
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** `Host.readChunks` under Node. */
function readChunks(
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

/** Removes a file if it is there. */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created, or already gone.
  }
}

/** Creates `path` exclusively (never through a link) and writes `data` to it. */
function createNew(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  try {
    writeAllFd(fd, typeof data === "string" ? new TextEncoder().encode(data) : data);
  } finally {
    closeSync(fd);
  }
}

/** The Node host. */
export function nodeHost(): Host {
  return {
    env: process.env,
    args: process.argv.slice(2),
    readText: (path) => readFileSync(path, "utf8"),
    readTail: (path, bytes) => new TextDecoder().decode(readBytes(path, "tail", bytes, true)),
    readRange: (path, start, bytes) => new TextDecoder().decode(readBytes(path, start, bytes)),
    readBytes: (path, start, bytes) => readBytes(path, start, bytes),
    readChunks,
    writeWhole(path, data) {
      const temp = `${path}.${randomName()}.tmp`;
      try {
        createNew(temp, data);
        renameSync(temp, path);
      } catch (err) {
        if (codeOf(err) !== "EEXIST") removeQuietly(temp);
        throw err;
      }
    },
    createNew,
    removeFile: (path) => unlinkSync(path),
    fileSize: (path) => statSync(path).size,
    modifiedAt: (path) => lstatSync(path).mtimeMs,
    listDir: (path) => readdirSync(path),
    appendLine(path, text) {
      const fd = openRegular(path, O_RDWR | O_APPEND | O_CREAT);
      try {
        const size = fstatSync(fd).size;
        const last = new Uint8Array(1);
        const cut = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 10;
        const bytes = new TextEncoder().encode(cut ? `\n${text}` : text);
        writeAllFd(fd, bytes);
        return bytes.length;
      } finally {
        closeSync(fd);
      }
    },
    append(path, data) {
      const fd = openRegular(path, O_WRONLY | O_APPEND | O_CREAT);
      try {
        writeAllFd(fd, data);
      } finally {
        closeSync(fd);
      }
    },

    makeDir: (path) => void mkdirSync(path, { recursive: true }),
    async readStdin(push) {
      const { chunks, rest } = readStdinSync();
      for (const chunk of chunks) push(chunk);
      if (!rest) return;
      try {
        await readStdinRest(push);
      } catch {
        // A stdin that errors mid-read gives what was read.
      }
    },
    writeOut: (text) => writeFd(1, text),
    writeErr(text) {
      try {
        writeFd(2, text);
      } catch {
        // stderr closed: nothing to tell, and the hook must still answer.
      }
    },
    timer(ms, listener) {
      const timer = setTimeout(listener, ms);
      return () => clearTimeout(timer);
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    onceSignal: (signal: HookSignal, listener) => void process.once(signal, listener),
    exit: (code) => process.exit(code),
    setExitCode(code) {
      process.exitCode = code;
    },
  };
}
