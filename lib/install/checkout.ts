/**
 * Recognises a chi-bench checkout the installer can edit: the project name, the registry and runner
 * files, and Harbor 0.20.x locked in uv.lock (0.21 rewrote ClaudeCode; harness.md §2, §7).
 */
import { AGENTS_DIR } from "./harnesses.ts";

/** Reads a checkout file by its path relative to the root; null when it does not exist. */
export type Reader = (path: string) => Uint8Array | null;

/** Why the installer will not touch a checkout; the message says what to do. */
export class InstallRefusal extends Error {
  override name = "InstallRefusal";
}

/** The registry file the installer edits. */
export const REGISTRY = `${AGENTS_DIR}/registry.py`;
/** The runner that dispatches registry names to `--agent-import-path`. */
export const RUNNER = "src/chi_bench/experiment/runner.py";

/** What the installer learned about a checkout. */
export interface CheckoutInfo {
  harbor: string;
  registry: string;
}

/** The file as UTF-8 text, or null. */
export function readText(read: Reader, path: string): string | null {
  const bytes = read(path);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/** The Harbor version uv.lock pins, or null when uv.lock locks no `harbor` package. */
export function lockedHarbor(lock: string): string | null {
  const match = /^\[\[package\]\]\r?\nname = "harbor"\r?\nversion = "([^"]+)"/m.exec(lock);
  return match ? match[1] : null;
}

/** Checks that `dir` is a chi-bench checkout with Harbor 0.20.x locked; throws InstallRefusal otherwise. */
export function inspectCheckout(dir: string, read: Reader): CheckoutInfo {
  const pyproject = readText(read, "pyproject.toml");
  const registry = readText(read, REGISTRY);
  if (!pyproject || !/^name\s*=\s*"chi-bench"\s*$/m.test(pyproject) || registry === null) {
    const missing = !pyproject
      ? "no pyproject.toml"
      : registry === null
      ? `no ${REGISTRY}`
      : 'pyproject.toml does not name the project "chi-bench"';
    throw new InstallRefusal(
      `Cannot install into ${dir}: it is not a chi-bench checkout (${missing}). ` +
        "Pass --chi-bench with the root of a clone of actava-ai/chi-bench.",
    );
  }
  const runner = readText(read, RUNNER);
  if (runner === null || !runner.includes("IN_TREE_AGENT_IMPORT_PATHS")) {
    throw new InstallRefusal(
      `Cannot install into ${dir}: ${RUNNER} ${
        runner === null ? "is missing" : "no longer reads IN_TREE_AGENT_IMPORT_PATHS"
      }, ` +
        "so a registry entry would not reach Harbor. Use a chi-bench commit whose runner dispatches " +
        "registry names with --agent-import-path (e.g. 2c9cdd3), or set agent: to the module:Class path by hand.",
    );
  }
  const lock = readText(read, "uv.lock");
  if (lock === null) {
    throw new InstallRefusal(
      `Cannot install into ${dir}: it has no uv.lock, so the Harbor version is unknown. ` +
        "Check out a chi-bench commit that locks Harbor 0.20.x and run `uv sync --extra dev`.",
    );
  }
  const harbor = lockedHarbor(lock);
  if (!harbor || !/^0\.20\.\d+$/.test(harbor)) {
    throw new InstallRefusal(
      `Cannot install into ${dir}: uv.lock ${
        harbor ? `pins harbor ${harbor}` : "locks no harbor package"
      }, ` +
        "and fiable-cc is written for Harbor 0.20.x (0.21 rewrote ClaudeCode). Check out a chi-bench commit " +
        'that locks harbor 0.20 (e.g. 2c9cdd3, "Upgrade Harbor to 0.20.0") and run `uv sync --extra dev`.',
    );
  }
  return { harbor, registry };
}
