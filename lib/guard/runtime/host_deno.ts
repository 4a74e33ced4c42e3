/** The guard's host under Deno: Deno's own API only, so a hook process never starts Deno's node-compat layer. */
import { type HookSignal, type Host, randomName, READ_CHUNK } from "./host_api.ts";

/** Writes all of `bytes` to a Deno writer (a pipe may take a large write in parts). */
function writeAll(writer: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writer.writeSync(bytes.subarray(written));
}

/** An error with a file-system code, as Deno's own carry them. */
function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/**
 * The regular file at `path`, opened without going through a symbolic link (Deno has no O_NOFOLLOW: the path
 * is checked first, and the file opened is checked to be the one checked, so a link swapped in between is
 * refused too); `ELOOP` for a link, `EFTYPE` for anything but a regular file. Returns null when nothing is at
 * the path.
 */
function openRegular(path: string, options: Deno.OpenOptions): Deno.FsFile | null {
  let before: Deno.FileInfo;
  try {
    before = Deno.lstatSync(path);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return null;
    throw err;
  }
  if (before.isSymlink) throw fsError("ELOOP", `a symbolic link, open '${path}'`);
  if (!before.isFile) throw fsError("EFTYPE", `not a regular file, open '${path}'`);
  const file = Deno.openSync(path, options);
  const after = file.statSync();
  if (after.ino === before.ino && after.dev === before.dev) return file;
  file.close();
  throw fsError("ELOOP", `replaced while opened, open '${path}'`);
}

/** The regular file at `path` (see `openRegular`); `ENOENT` when there is none. */
function openExisting(path: string, options: Deno.OpenOptions): Deno.FsFile {
  const file = openRegular(path, options);
  if (file) return file;
  throw fsError("ENOENT", `no such file or directory, open '${path}'`);
}

/** `bytes` bytes of an open file from byte `start` (fewer when the file ends first); closes the file. */
function readClosing(file: Deno.FsFile, start: number, bytes: number): Uint8Array {
  try {
    file.seekSync(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(bytes);
    let read = 0;
    while (read < bytes) {
      const n = file.readSync(buffer.subarray(read));
      if (n === null) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    file.close();
  }
}

/** `bytes` bytes of a file from byte `start` (fewer when the file ends first); refuses links (`openRegular`). */
function readBytes(path: string, start: number, bytes: number): Uint8Array {
  return readClosing(openExisting(path, { read: true }), start, bytes);
}

/** `Host.readChunks` under Deno. */
function readChunks(
  path: string,
  start: number,
  bytes: number,
  each: (chunk: Uint8Array) => boolean | void,
): number {
  const file = openExisting(path, { read: true });
  try {
    file.seekSync(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(Math.min(READ_CHUNK, Math.max(0, bytes)));
    let done = 0;
    while (done < bytes) {
      const n = file.readSync(buffer.subarray(0, Math.min(buffer.length, bytes - done)));
      if (n === null || n === 0) break;
      done += n;
      if (each(buffer.subarray(0, n)) === false) break;
    }
    return done;
  } finally {
    file.close();
  }
}

/** Creates `path` exclusively (a link at the path is `EEXIST`, never followed) and writes `data` to it. */
function createNew(path: string, data: string | Uint8Array): void {
  const file = Deno.openSync(path, { write: true, createNew: true, mode: 0o644 });
  try {
    writeAll(file, typeof data === "string" ? new TextEncoder().encode(data) : data);
  } finally {
    file.close();
  }
}

/**
 * A regular file opened to append (and read), never through a link: created exclusively when absent (a link
 * swapped in meanwhile is `EEXIST`), checked by `openRegular` when present.
 */
function openAppend(path: string): Deno.FsFile {
  const file = openRegular(path, { read: true, append: true });
  if (file) return file;
  try {
    return Deno.openSync(path, { read: true, append: true, createNew: true, mode: 0o644 });
  } catch (err) {
    if ((err as { code?: string }).code !== "EEXIST") throw err;
    return openExisting(path, { read: true, append: true });
  }
}

/** Removes a file if it is there. */
function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Never created, or already gone.
  }
}

/** The Deno host (touches `Deno` only when a method is called, so the Node bundle can carry it). */
export function denoHost(): Host {
  const encoder = new TextEncoder();
  return {
    // Read when first asked: a process without --allow-env (the dashboard's figures child imports the
    // ledger module) must still load this module.
    get env() {
      let env: Record<string, string | undefined>;
      try {
        env = Deno.env.toObject();
      } catch {
        env = {};
      }
      Object.defineProperty(this, "env", { value: env });
      return env;
    },
    args: Deno.args,
    readText: (path) => Deno.readTextFileSync(path),
    readTail(path, bytes) {
      const file = Deno.openSync(path, { read: true });
      let size: number;
      try {
        size = file.statSync().size;
      } catch (err) {
        file.close();
        throw err;
      }
      return new TextDecoder().decode(readClosing(file, size - Math.min(size, bytes), Math.min(size, bytes)));
    },
    readRange: (path, start, bytes) => new TextDecoder().decode(readBytes(path, start, bytes)),
    readBytes,
    readChunks,
    writeWhole(path, data) {
      const temp = `${path}.${randomName()}.tmp`;
      try {
        createNew(temp, data);
        Deno.renameSync(temp, path);
      } catch (err) {
        if ((err as { code?: string }).code !== "EEXIST") removeQuietly(temp);
        throw err;
      }
    },
    createNew,
    removeFile: (path) => Deno.removeSync(path),
    fileSize: (path) => Deno.statSync(path).size,
    modifiedAt: (path) => Deno.lstatSync(path).mtime?.getTime() ?? 0,
    listDir: (path) => Array.from(Deno.readDirSync(path), (entry) => entry.name),
    appendLine(path, text) {
      const file = openAppend(path);
      try {
        const size = file.statSync().size;
        const last = new Uint8Array(1);
        let cut = false;
        if (size > 0) {
          file.seekSync(size - 1, Deno.SeekMode.Start);
          cut = file.readSync(last) === 1 && last[0] !== 10;
        }
        // One write of the whole line on an O_APPEND descriptor (at the end, wherever the read left off).
        const bytes = encoder.encode(cut ? `\n${text}` : text);
        writeAll(file, bytes);
        return bytes.length;
      } finally {
        file.close();
      }
    },
    append(path, data) {
      const file = openAppend(path);
      try {
        writeAll(file, data);
      } finally {
        file.close();
      }
    },

    makeDir: (path) => Deno.mkdirSync(path, { recursive: true }),
    async readStdin(push) {
      // Plain reads, not `Deno.stdin.readable`: setting up the web stream costs a hook ≈ 10 ms, reading
      // ≈ 0.4 ms. Still asynchronous, so the time budget runs while a terminal or a slow writer holds it.
      const buffer = new Uint8Array(256 * 1024);
      try {
        for (;;) {
          const n = await Deno.stdin.read(buffer);
          if (n === null) break;
          if (n > 0) push(buffer.slice(0, n));
        }
      } catch {
        // A stdin that errors mid-read gives what was read.
      }
    },
    writeOut: (text) => writeAll(Deno.stdout, encoder.encode(text)),
    writeErr(text) {
      try {
        writeAll(Deno.stderr, encoder.encode(text));
      } catch {
        // stderr closed: nothing to tell, and the hook must still answer.
      }
    },
    timer(ms, listener) {
      let live = true;
      AbortSignal.timeout(ms).addEventListener("abort", () => live && listener(), { once: true });
      return () => {
        live = false;
      };
    },
    sleep: (ms) =>
      new Promise((resolve) =>
        AbortSignal.timeout(ms).addEventListener("abort", () => resolve(), { once: true })
      ),
    onceSignal(signal: HookSignal, listener) {
      const once = () => {
        Deno.removeSignalListener(signal, once);
        listener();
      };
      Deno.addSignalListener(signal, once);
    },
    exit: (code) => Deno.exit(code),
    setExitCode(code) {
      Deno.exitCode = code;
    },
  };
}
