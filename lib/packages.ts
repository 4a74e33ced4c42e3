/**
 * The card's commands on a fresh clone: `deno run -A install.ts …` (and aggregate, replay, verify, and
 * `guard.ts pre`) with no node_modules. deno.json's `nodeModulesDir` is `manual` because `auto` and `none` make every `deno task`,
 * the demo's too, first fetch all of deno.lock (220 MB); so a bare `deno run` finds no npm package until
 * something installs them, and Deno's own answer is a resolution error with a stack backtrace.
 *
 * Those entries import no npm package statically (`tests/fresh_clone.ts` holds them to it) and call
 * `ensurePackages` before `main`: when deno.json's npm imports are not in node_modules at their pinned
 * versions, and none loads through Deno's global cache either (`--node-modules-dir=none`), it runs
 * `deno install` once and then the same command again. A failed import is cached for the life of a Deno
 * process, hence the second process. Without every permission (a plain `deno run`) it cannot, and says the one
 * command to run instead. guard.ts, whose hook must answer fast, checks nothing up front: only when its command
 * mode fails to load for a missing package does it call `rerunInstalled`, on the same stdin.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");

/** Set in the second process, so an install that did not help ends in Deno's own error, not a loop. */
const RERUN_ENV = "FIABLE_PACKAGES_INSTALLED";

/** A package deno.json pins: `"yaml": "npm:yaml@2.9.1"` → yaml 2.9.1 (subpath entries name the same one). */
export function pinnedPackages(denoJson: string): { name: string; version: string }[] {
  const imports = (JSON.parse(denoJson) as { imports?: Record<string, string> }).imports ?? {};
  const out = new Map<string, string>();
  for (const target of Object.values(imports)) {
    const m = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@([^/]+)/.exec(target);
    if (m) out.set(m[1], m[2]);
  }
  return [...out].map(([name, version]) => ({ name, version }));
}

/** The pinned packages that `root`/node_modules lacks or holds at another version. */
export function missingPackages(root = ROOT): string[] {
  return pinnedPackages(readFileSync(join(root, "deno.json"), "utf8")).filter(({ name, version }) => {
    const manifest = join(root, "node_modules", name, "package.json");
    try {
      return !existsSync(manifest) || JSON.parse(readFileSync(manifest, "utf8")).version !== version;
    } catch {
      return true;
    }
  }).map(({ name, version }) => `${name}@${version}`);
}

/** Whether an error is Deno's "no such npm package in node_modules". */
export function missingNpm(err: unknown): boolean {
  return /Could not find a matching package for 'npm:/.test(String((err as Error)?.message ?? err));
}

/** Whether npm packages load in this process anyway (a global cache under `--node-modules-dir=none`). */
async function loadsAnyway(): Promise<boolean> {
  // A computed specifier: a literal one would be fetched, and its failure cached, before any code runs.
  const probe = ["ya", "ml"].join("");
  try {
    await import(probe);
    return true;
  } catch (err) {
    if (missingNpm(err)) return false;
    throw err;
  }
}

function granted(name: Deno.PermissionName): boolean {
  return Deno.permissions.querySync({ name }).state === "granted";
}

/** True in the process `rerunInstalled` started: its install did not help, so Deno's own error stands. */
export function rerun(): boolean {
  return granted("env") && Deno.env.get(RERUN_ENV) === "1";
}

/**
 * Installs this checkout's npm packages (`deno install`, one line on stderr) and runs the entry at `entry`
 * again with the same arguments, stdin and output, for its exit code; or, when this run may not (it lacks
 * `-A`) or the install fails, the one line that says what to run instead.
 */
export async function rerunInstalled(
  entry: string | URL,
  root = ROOT,
): Promise<{ code: number } | { refused: string }> {
  const name = basename(fileURLToPath(entry));
  const refused = (why: string) => ({
    refused: `Cannot run ${name}: ${why}. Run \`deno install\` in ${root} once, then the same command again.`,
  });
  if (!(["read", "write", "net", "env", "run", "sys", "ffi"] as const).every(granted)) {
    return refused(
      "this checkout's npm packages are not installed and a run without -A may not install them",
    );
  }
  console.error(`${name}: installing this checkout's npm packages once (deno install) …`);
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["install", "-q"],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!install.success) {
    const last = new TextDecoder().decode(install.stderr).trim().split("\n").pop() ?? "";
    return refused(
      `\`deno install\` failed (${last || `exit ${install.code}`})`,
    );
  }
  const again = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", fileURLToPath(entry), ...Deno.args],
    env: { [RERUN_ENV]: "1" },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  return { code: again.code };
}

/**
 * Returns when this checkout's npm packages load; otherwise installs them and runs the entry at `entry` again
 * (`rerunInstalled`), exiting with its code, or prints the one command to run and exits 1.
 */
export async function ensurePackages(entry: string | URL, root = ROOT): Promise<void> {
  if (rerun()) return;
  let missing: string[];
  try {
    missing = missingPackages(root);
  } catch {
    return; // no deno.json to read: Deno's own resolution decides
  }
  if (!missing.length || await loadsAnyway()) return;
  const done = await rerunInstalled(entry, root);
  if ("refused" in done) console.error(done.refused);
  Deno.exit("code" in done ? done.code : 1);
}
