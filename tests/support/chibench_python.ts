/**
 * The Python that runs chi-bench's and Harbor 0.20's real code here (`sh ../shared/tools/chi-bench-python.sh`
 * prints it: Python 3.13, pydantic 2, PyYAML, zstandard, ../shared/sources on its path), found once. Tests use it
 * in place of hand copies of chi-bench's schemas; without ../shared they skip with the reason.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** The shared folder beside the repository. */
export const SHARED = join(import.meta.dirname ?? ".", "..", "..", "..", "shared");
/** chi-bench's source, as the shared folder holds it (run, never copied). */
export const CHI_BENCH_SOURCE = join(SHARED, "sources", "chi-bench");

let found: { python: string } | { why: string } | undefined;

/** The interpreter's path, or why there is none here. */
export function chiBenchPython(): { python: string } | { why: string } {
  if (found) return found;
  const script = join(SHARED, "tools", "chi-bench-python.sh");
  if (!existsSync(script)) return found = { why: `${script} is absent (needs ../shared beside the repo)` };
  const out = spawnSync("sh", [script], { encoding: "utf8" });
  const python = out.stdout.trim().split("\n").at(-1) ?? "";
  found = out.status === 0 && existsSync(python)
    ? { python }
    : { why: `${script} failed: ${(out.stdout + out.stderr).trim().slice(-300)}` };
  return found;
}
