/**
 * Writing the start-up snapshot blob of the Node guard in the container that runs it (lib/guard/runtime/snapshot.ts
 * says what it holds and why): `guard up` calls `ensureSnapshot` before it writes the hook settings.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { SNAPSHOT_FLAG } from "./snapshot.ts";

/** The blob's file name: the guard file's hash, the Node version and the architecture (a blob fits one Node). */
export function snapshotName(hash: string, version: string): string {
  return `fiable-guard-${hash}-${version}-${process.arch}.blob`;
}

/** The running Node, or `node` on the PATH when this is Deno. */
function defaultNode(): string {
  return (process.versions as Record<string, string | undefined>).deno ? "node" : process.execPath;
}

/** A Node executable's version (`v20.20.2`), or "unknown". */
function nodeVersion(node: string): string {
  if (node === process.execPath && !(process.versions as Record<string, string | undefined>).deno) {
    return process.version;
  }
  const run = spawnSync(node, ["--version"], { encoding: "utf8", timeout: 10_000 });
  return run.status === 0 ? run.stdout.trim() : "unknown";
}

/** The first 16 hex digits of a guard file's SHA-256: a blob is made from one guard file. */
export function guardFileHash(guard: string): string {
  return createHash("sha256").update(readFileSync(guard)).digest("hex").slice(0, 16);
}

/** True when a regular file is at the path, a link not followed (a FIFO there would hold `answers` up). */
function isRegular(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** True when `node --no-sparkplug --snapshot-blob <blob> <guard>` answers a hook as the guard does (a stock-arm stop). */
function answers(node: string, blob: string, guard: string): boolean {
  const run = spawnSync(node, [SNAPSHOT_FLAG, "--snapshot-blob", blob, guard, "stop"], {
    input: "{}",
    env: { PATH: process.env.PATH ?? "", FIABLE_CC_ARM: "stock", FIABLE_LEDGER_DIR: tmpdir() },
    timeout: 10_000,
    encoding: "utf8",
  });
  return run.status === 0 && run.stdout.trim() === "{}";
}

/**
 * The snapshot blob of a guard file for a Node executable (default: the one running, else `node`): one already
 * there that answers, else one built now (≈ 1 s) beside the guard file or, when that folder is not writable, in
 * a per-user temp folder; null when none can be made or none answers (the hooks then run the guard file as it
 * is). The blob is named by the version of the Node running this, which is the one hooks run in a trial.
 */
export function ensureSnapshot(guard: string, node = defaultNode()): string | null {
  let name: string;
  try {
    name = snapshotName(guardFileHash(guard), nodeVersion(node));
  } catch {
    return null;
  }
  const uid = process.getuid?.() ?? -1;
  for (const dir of [dirname(guard), join(tmpdir(), `fiable-guard-cache-${uid}`)]) {
    const blob = join(dir, name);
    try {
      if (isRegular(blob) && answers(node, blob, guard)) return blob;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const temp = `${blob}.${process.pid}.tmp`;
      const built = spawnSync(node, [SNAPSHOT_FLAG, "--snapshot-blob", temp, "--build-snapshot", guard], {
        env: { PATH: process.env.PATH ?? "", ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) },
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 60_000,
      });
      if (built.status !== 0 || !answers(node, temp, guard)) {
        rmSync(temp, { force: true });
        continue;
      }
      renameSync(temp, blob);
      return blob;
    } catch {
      // Not writable here: the next folder, else no snapshot.
    }
  }
  return null;
}
