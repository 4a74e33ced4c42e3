/** Carries out a plan on disk: folders first, each file written atomically (temp file + rename), folders removed last. */
import {
  chmodSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Plan } from "./plan.ts";
import type { Reader } from "./checkout.ts";

/** A Reader over a directory on disk. */
export function diskReader(dir: string): Reader {
  return (path) => {
    try {
      return new Uint8Array(readFileSync(join(dir, path)));
    } catch {
      return null;
    }
  };
}

/** True when `path` (relative to dir) is a folder. */
export function diskIsDir(dir: string): (path: string) => boolean {
  return (path) => {
    try {
      return statSync(join(dir, path)).isDirectory();
    } catch {
      return false;
    }
  };
}

/** Applies the plan under `dir`. */
export function applyPlan(dir: string, plan: Plan): void {
  for (const d of plan.mkdirs) mkdirSync(join(dir, d), { recursive: true });
  for (const change of plan.changes) {
    const target = join(dir, change.path);
    if (change.after === null) {
      rmSync(target, { force: true });
      continue;
    }
    const temp = `${target}.fiable-tmp`;
    writeFileSync(temp, change.after);
    if (change.before !== null) chmodSync(temp, statSync(target).mode & 0o7777);
    renameSync(temp, target);
  }
  for (const d of plan.rmdirs) {
    try {
      rmdirSync(join(dir, d));
    } catch {
      // Not empty (someone else's files live there now) or already gone: leave it.
    }
  }
}
