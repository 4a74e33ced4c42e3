/**
 * The filesystem operations install.ts performs on a checkout, behind one seam so a test can inject a faulty
 * filesystem (a crash after any operation, a full disk). Paths are absolute. `diskFs` is the real one: every
 * write is flushed (fsync) and every rename, creation or removal is flushed in its folder, so the order the
 * installer writes in is the order a power cut can leave behind.
 */
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Reader } from "./checkout.ts";

/** What install.ts does to a filesystem. */
export interface InstallFs {
  /** The file's bytes, or null when there is no such file. */
  readFile(path: string): Uint8Array | null;
  /** True when `path` is a folder. */
  isDir(path: string): boolean;
  /** The permission bits of `path`, or null when it does not exist. */
  mode(path: string): number | null;
  /** Writes a new file (replacing any there) with these bytes and flushes it to disk; `mode` sets its bits. */
  writeFile(path: string, bytes: Uint8Array, mode?: number): void;
  /** Replaces `to` with `from` in one step (both in the same folder). */
  rename(from: string, to: string): void;
  /** Removes a file; an absent one is fine. */
  remove(path: string): void;
  /** Creates a folder whose parent exists; an existing one is fine. */
  mkdir(path: string): void;
  /** Removes an empty folder; false (and nothing done) when it is not empty or absent. */
  rmdir(path: string): boolean;
  /** Flushes a folder's entries (a rename, creation or removal in it) to disk. */
  syncDir(path: string): void;
}

function code(err: unknown): string | undefined {
  return (err as { code?: string }).code;
}

/** The real filesystem. */
export const diskFs: InstallFs = {
  readFile(path) {
    try {
      return new Uint8Array(readFileSync(path));
    } catch {
      return null;
    }
  },
  isDir(path) {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  },
  mode(path) {
    try {
      return statSync(path).mode & 0o7777;
    } catch {
      return null;
    }
  },
  writeFile(path, bytes, mode) {
    const fd = openSync(path, "w");
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
      if (mode !== undefined) fchmodSync(fd, mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  },
  rename: (from, to) => renameSync(from, to),
  remove: (path) => rmSync(path, { force: true }),
  mkdir: (path) => mkdirSync(path, { recursive: true }),
  rmdir(path) {
    try {
      rmdirSync(path);
      return true;
    } catch (err) {
      if (["ENOTEMPTY", "EEXIST", "ENOENT"].includes(code(err) ?? "")) return false;
      throw err;
    }
  },
  syncDir(path) {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (err) {
      // No directory handles on this platform (Windows): its renames are flushed by the system.
      if (["EISDIR", "EPERM", "EACCES"].includes(code(err) ?? "")) return;
      throw err;
    }
    try {
      fsyncSync(fd);
    } catch (err) {
      // A filesystem that cannot flush a folder (some network mounts): nothing more to do.
      if (!["EINVAL", "ENOTSUP", "EBADF"].includes(code(err) ?? "")) throw err;
    } finally {
      closeSync(fd);
    }
  },
};

/** A Reader over the checkout at `dir`. */
export function fsReader(fs: InstallFs, dir: string): Reader {
  return (path) => fs.readFile(join(dir, path));
}

/** True when `path` (relative to dir) is a folder. */
export function fsIsDir(fs: InstallFs, dir: string): (path: string) => boolean {
  return (path) => fs.isDir(join(dir, path));
}
