// @ts-check
/**
 * The start of the guard file for Node (bundle.ts writes this file, then a call of `runBundle` with the
 * CommonJS bundle as a string): a small CommonJS loader, since an ES module entry costs Node ≈ 8 ms more to
 * start. Every hook process compiles the bundle, and compiling 340 KB costs more than the hook's work, so the
 * loader compiles it with `vm.Script` and a V8 code cache (`cachedData`): a file named by the bundle's hash,
 * the Node version and the architecture, beside the guard file or, when that is not writable, in a per-user
 * temp folder. The first process (or one whose cache V8 rejects: another Node, other V8 flags) compiles
 * normally and writes the cache as it exits, and the first to take a code path the cache does not hold yet
 * writes it again (see `runBundle`); nothing about the cache can fail the hook or hold it up: it is read only
 * from a regular file of at most 16 MB, opened without following a link or waiting on a FIFO, and written
 * through a new temp file renamed into place. `FIABLE_CODE_CACHE=0` turns it off. (A startup snapshot would do
 * as well but is tied to the exact node binary.)
 */
"use strict";
const { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } =
  require("node:fs");
const { createRequire } = require("node:module");
const { tmpdir } = require("node:os");
const { dirname, join } = require("node:path");
const { Script } = require("node:vm");

/** The code paths this process takes (its first word, and "checkpoint" when the bundle adds it). */
const codePaths = /** @type {{ __fiableCodePaths?: Set<string> }} */ (globalThis);

/** The largest cache read (the real one is ≈ 0.3 MB) and the largest list of paths. */
const MAX_CACHE = 16 * 1024 * 1024;
const MAX_PATHS = 4096;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * The bytes of a regular file owned by this user (`uid`) or root, at most `max` of them; undefined for
 * anything else. Opened without following a link and without waiting on a FIFO, so a cache path that is a
 * FIFO, a link to /dev/zero or a huge file can never hold the hook up.
 * @param {string} path
 * @param {number} max
 * @param {number} uid
 * @returns {Buffer | undefined}
 */
function readRegular(path, max, uid) {
  const fd = openSync(path, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > max || (info.uid !== uid && info.uid !== 0)) return undefined;
    const data = Buffer.allocUnsafe(info.size);
    let read = 0;
    while (read < info.size) {
      const n = readSync(fd, data, read, info.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return data.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * The cache file's bytes and the code paths the processes that wrote it took (`<cache>.paths`: event words,
 * "checkpoint"), from the first folder that has one (`readRegular`).
 * @param {string[]} dirs
 * @param {string} name
 * @param {number} uid
 * @returns {{ data: Buffer; paths: string[] } | undefined}
 */
function readCache(dirs, name, uid) {
  for (const dir of dirs) {
    try {
      const path = join(dir, name);
      const data = readRegular(path, MAX_CACHE, uid);
      if (!data) continue;
      /** @type {string[]} */
      let paths = [];
      try {
        paths = (readRegular(`${path}.paths`, MAX_PATHS, uid)?.toString("utf8") ?? "").split("\n").filter(
          Boolean,
        );
      } catch {
        // No list: the next process that takes a path writes the cache again.
      }
      return { data, paths };
    } catch {
      // No cache here: try the next folder, else compile without one.
    }
  }
  return undefined;
}

/**
 * Writes a file whole: a new temp file (created exclusively, never through a link) renamed into place, so
 * readers never see half and a link planted at either name is replaced, not followed.
 * @param {string} dir
 * @param {string} name
 * @param {Buffer | string} data
 */
function writeWhole(dir, name, data) {
  const temp = join(dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644);
  try {
    writeFileSync(fd, data);
    closeSync(fd);
    renameSync(temp, join(dir, name));
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
    rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Writes the cache to the first writable folder, then the list of paths it holds.
 * @param {string[]} dirs
 * @param {string} name
 * @param {Buffer} data
 * @param {string[]} paths
 */
function writeCache(dirs, name, data, paths) {
  for (const dir of dirs) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeWhole(dir, name, data);
      writeWhole(dir, `${name}.paths`, paths.join("\n") + "\n");
      return;
    } catch {
      // Not writable: try the next folder, else run without a cache next time too.
    }
  }
}

/**
 * Compiles the bundle (with the cache when there is one) and runs it as CommonJS, as if it were this file.
 * @param {string} bundle the CommonJS bundle's source
 * @param {string} hash the bundle's hash, which names its cache
 */
function runBundle(bundle, hash) {
  const file = __filename;
  const here = dirname(file);
  const uid = process.getuid?.() ?? -1;
  const name = `fiable-guard-${hash}-${process.version}-${process.arch}.v8cache`;
  const dirs = process.env.FIABLE_CODE_CACHE === "0"
    ? []
    : [here, join(tmpdir(), `fiable-guard-cache-${uid}`)];
  const source = "(function (exports, require, module, __filename, __dirname) {" + bundle + "\n})";
  /** @type {{ data: Buffer; paths: string[] } | undefined} */
  let cached;
  try {
    cached = readCache(dirs, name, uid);
  } catch {
    cached = undefined;
  }
  let cachedData = cached?.data;
  /** @type {import("node:vm").Script} */
  let script;
  try {
    script = new Script(source, { filename: file, cachedData });
  } catch (err) {
    if (!cachedData) throw err;
    script = new Script(source, { filename: file });
    cachedData = undefined;
  }
  codePaths.__fiableCodePaths = new Set([process.argv[2] ?? ""]);
  if (dirs.length) {
    // At exit, after the hook's work, so the cache also holds the functions it compiled on the way: written
    // when there was none (or V8 rejected it), and again, once, by the first process to take a path the
    // cache does not hold yet (a trial's first hook is a SessionStart, which runs none of the rules).
    process.once("exit", () => {
      const held = !cachedData || script.cachedDataRejected ? [] : cached?.paths ?? [];
      const taken = [...(codePaths.__fiableCodePaths ?? [])];
      if (held.length && taken.every((p) => held.includes(p))) return;
      try {
        writeCache(dirs, name, script.createCachedData(), [...new Set([...held, ...taken])]);
      } catch {
        // A cache that cannot be made costs the next process a compile, nothing more.
      }
    });
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, here);
}

module.exports = { runBundle };
