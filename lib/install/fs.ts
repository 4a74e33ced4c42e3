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
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { InstallRefusal, type Reader } from "./checkout.ts";
import { pathInside } from "./manifest.ts";

/** What install.ts does to a filesystem. */
export interface InstallFs {
  /** The file's bytes, or null when there is no such file. */
  readFile(path: string): Uint8Array | null;
  /** True when `path` is a folder. */
  isDir(path: string): boolean;
  /** The permission bits of `path`, or null when it does not exist. */
  mode(path: string): number | null;
  /**
   * Writes a new file (replacing whatever is there, a link included, never writing through one) with these
   * bytes and flushes it to disk; `mode` sets its bits.
   */
  writeFile(path: string, bytes: Uint8Array, mode?: number): void;
  /** The target of the symbolic link at `path`, or null when `path` is no link. */
  linkOf(path: string): string | null;
  /** The path with every link resolved, or null when it (or a link on the way) leads nowhere. */
  realpath(path: string): string | null;
  /** Creates a symbolic link at `path` (nothing there) to `target`. */
  symlink(target: string, path: string): void;
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
    rmSync(path, { force: true });
    // Created exclusively: a link planted at the name after the removal fails the write, never takes it.
    const fd = openSync(path, "wx");
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
      if (mode !== undefined) fchmodSync(fd, mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  },
  linkOf(path) {
    try {
      return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
    } catch {
      return null;
    }
  },
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return null;
    }
  },
  symlink: (target, path) => symlinkSync(target, path),
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

/**
 * The absolute path of `path` (relative to the checkout at `dir`) when it stays inside the checkout: no `..`,
 * no absolute path, and no link on the way (the last part included) that leads out or nowhere. Otherwise an
 * InstallRefusal, before anything is read or written there.
 */
export function inside(fs: InstallFs, dir: string, path: string): string {
  const refuse = (why: string) =>
    new InstallRefusal(
      `Cannot touch ${
        JSON.stringify(path)
      } in ${dir}: ${why}. Nothing was written; remove that link (or the ` +
        "manifest entry naming it) and run install.ts again.",
    );
  if (!pathInside(path)) throw refuse("it is not a path inside the checkout (no .., no absolute path)");
  const root = fs.realpath(dir) ?? dir;
  let at = dir;
  for (const part of path.split("/")) {
    at = join(at, part);
    const link = fs.linkOf(at);
    if (link === null) {
      if (fs.realpath(at) === null) break; // nothing here yet: whatever is made below is made inside
      continue;
    }
    const real = fs.realpath(at);
    const where = relative(dir, at);
    if (real === null) throw refuse(`${where} is a link to ${link}, which leads nowhere`);
    if (real !== root && !real.startsWith(root + sep)) {
      throw refuse(`${where} is a link out of the checkout (to ${real})`);
    }
  }
  return join(dir, path);
}

/** A Reader over the checkout at `dir`, refusing any path that leads outside it. */
export function fsReader(fs: InstallFs, dir: string): Reader {
  return (path) => fs.readFile(inside(fs, dir, path));
}

/** The target of the link at `path` (relative to dir), or null when it is no link. */
export function fsLinkOf(fs: InstallFs, dir: string): (path: string) => string | null {
  return (path) => fs.linkOf(inside(fs, dir, path));
}

/** True when `path` (relative to dir) is a folder. */
export function fsIsDir(fs: InstallFs, dir: string): (path: string) => boolean {
  return (path) => fs.isDir(inside(fs, dir, path));
}
