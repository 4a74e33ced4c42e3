// @ts-check
/**
 * The start of the guard file for Node (bundle.ts writes this file, then a call of `runBundle` with the
 * CommonJS bundle as a string): a small CommonJS loader, since an ES module entry costs Node ≈ 8 ms more to
 * start. Every hook process compiles the bundle, and compiling 340 KB costs more than the hook's work, so the
 * loader compiles it with `vm.Script` and a V8 code cache (`cachedData`): a file named by the bundle's hash,
 * the Node version and the architecture, beside the guard file or, when that is not writable, in a per-user
 * temp folder. The first process (or one whose cache V8 rejects: another Node, other V8 flags) compiles
 * normally and writes the cache as it exits, and the first to take a code path the cache does not hold yet
 * writes it again (see `runBundle`); nothing about the cache can fail the hook. `FIABLE_CODE_CACHE=0` turns
 * it off. (A startup snapshot would do as well but is tied to the exact node binary.)
 */
"use strict";
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { tmpdir } = require("node:os");
const { dirname, join } = require("node:path");
const { Script } = require("node:vm");

/** The code paths this process takes (its first word, and "checkpoint" when the bundle adds it). */
const codePaths = /** @type {{ __fiableCodePaths?: Set<string> }} */ (globalThis);

/**
 * The cache file's bytes and the code paths the processes that wrote it took (`<cache>.paths`: event words,
 * "checkpoint"), from the first folder that has one owned by this user or root.
 * @param {string[]} dirs
 * @param {string} name
 * @param {number} uid
 * @returns {{ data: Buffer; paths: string[] } | undefined}
 */
function readCache(dirs, name, uid) {
  for (const dir of dirs) {
    try {
      const path = join(dir, name);
      const owner = statSync(path).uid;
      if (owner !== uid && owner !== 0) continue;
      /** @type {string[]} */
      let paths = [];
      try {
        paths = readFileSync(`${path}.paths`, "utf8").split("\n").filter(Boolean);
      } catch {
        // No list: the next process that takes a path writes the cache again.
      }
      return { data: readFileSync(path), paths };
    } catch {
      // No cache here: try the next folder, else compile without one.
    }
  }
  return undefined;
}

/**
 * Writes the cache to the first writable folder (a temp file renamed into place, so readers never see half),
 * then the list of paths it holds.
 * @param {string[]} dirs
 * @param {string} name
 * @param {Buffer} data
 * @param {string[]} paths
 */
function writeCache(dirs, name, data, paths) {
  for (const dir of dirs) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const temp = join(dir, `${name}.${process.pid}.tmp`);
      writeFileSync(temp, data);
      renameSync(temp, join(dir, name));
      writeFileSync(join(dir, `${name}.paths`), paths.join("\n") + "\n");
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
