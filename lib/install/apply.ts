/**
 * Carries out a plan on a checkout, in the plan's order: each file written as a temp file, flushed, then
 * renamed over the target (so a file is always whole, old or new); each folder created just before the first
 * file in it and removed before the manifest that lists it; every step flushed before the next. A failing
 * filesystem (a full disk) stops it with a one-line refusal saying how to finish.
 */
import { dirname } from "node:path";
import { InstallRefusal } from "./checkout.ts";
import { inside, type InstallFs } from "./fs.ts";
import { MANIFEST } from "./manifest.ts";
import { type Plan, TEMP_SUFFIX } from "./plan.ts";

/** A system error (it has an errno code), as opposed to a bug or a refusal. */
function errnoCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : null;
}

function stopped(err: unknown, what: string, resume: string): Error {
  const code = errnoCode(err);
  if (!code) return err as Error;
  const full = code === "ENOSPC" || code === "EDQUOT";
  const cause = code === "ENOSPC"
    ? "the disk is full (ENOSPC)"
    : code === "EDQUOT"
    ? "the disk quota is used up (EDQUOT)"
    : (err as Error).message;
  return new InstallRefusal(
    `Cannot ${what}: ${cause}. Nothing is lost: ${full ? "free some space" : "fix that"}, then ${resume}.`,
  );
}

/**
 * Applies the plan under `dir`. `resume` says how to finish after a failure, e.g. "run the same command
 * again: it picks up where it stopped".
 */
export function applyPlan(fs: InstallFs, dir: string, plan: Plan, resume: string): void {
  // Every path checked before the first change: one that leads outside the checkout refuses the whole plan.
  const paths = new Map<string, string>();
  for (
    const p of [
      ...plan.changes.flatMap((c) => [c.path, c.path + TEMP_SUFFIX]),
      ...plan.mkdirs,
      ...plan.rmdirs,
    ]
  ) {
    paths.set(p, inside(fs, dir, p));
  }
  const at = (path: string) => paths.get(path) ?? inside(fs, dir, path);
  const made = new Set<string>();
  const removed = new Set<string>();
  const step = (what: string, op: () => void) => {
    try {
      op();
    } catch (err) {
      throw stopped(err, what, resume);
    }
  };
  const rmdirs = (which: (d: string) => boolean) => {
    for (const d of plan.rmdirs.filter((d) => which(d) && !removed.has(d))) {
      removed.add(d);
      // false: not empty (someone else's files live there now) or already gone; leave it.
      step(`remove the folder ${d}`, () => {
        if (fs.rmdir(at(d))) fs.syncDir(dirname(at(d)));
      });
    }
  };
  for (const change of plan.changes) {
    if (change.path === MANIFEST && change.after === null) {
      rmdirs((d) => !MANIFEST.startsWith(`${d}/`));
    }
    for (const d of plan.mkdirs.filter((d) => change.path.startsWith(`${d}/`) && !made.has(d))) {
      made.add(d);
      step(`create the folder ${d}`, () => {
        fs.mkdir(at(d));
        fs.syncDir(dirname(at(d)));
      });
    }
    const target = at(change.path);
    if (change.after === null) {
      step(`remove ${change.path}`, () => {
        fs.remove(target);
        fs.syncDir(dirname(target));
      });
      continue;
    }
    const temp = target + TEMP_SUFFIX;
    if (change.link !== undefined) {
      const link = change.link;
      step(`restore the link ${change.path}`, () => {
        fs.remove(temp);
        fs.symlink(link, temp);
        fs.rename(temp, target);
        fs.syncDir(dirname(target));
      });
      continue;
    }
    const bytes = change.after;
    step(`write ${change.path}`, () => {
      try {
        fs.writeFile(temp, bytes, fs.mode(target) ?? undefined);
      } catch (err) {
        // A partial temp file is worthless; the next run would remove it anyway.
        if (errnoCode(err)) {
          try {
            fs.remove(temp);
          } catch {
            // Left for the next run's clean-up.
          }
        }
        throw err;
      }
      fs.rename(temp, target);
      fs.syncDir(dirname(target));
    });
  }
  rmdirs(() => true);
}
