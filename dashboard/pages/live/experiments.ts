/**
 * What a running ablation is expected to produce, read from its chi-bench experiment configs (the flat YAML
 * files `install.ts experiments` writes): per config, the arm, the domain, where its trials go and how many
 * trials it will make (tasks × attempts). Tasks come from `n_tasks`, else from the dataset folder when the
 * chi-bench checkout is there, else the 25 tasks per domain of χ-Bench v1.0.0 (said so on the page).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { parse } from "yaml";
import { DOMAINS } from "../../../lib/install/experiments.ts";

/** χ-Bench v1.0.0 has 25 tasks in each domain. */
export const DEFAULT_TASKS = 25;

/** One experiment config: what it will run and where its trials land. */
export interface Slice {
  file: string;
  arm: string;
  domain: string | null;
  /** Absolute trials dir when the checkout root is known, else null. */
  trialsDir: string | null;
  attempts: number;
  tasks: number;
  /** Where `tasks` came from. */
  tasksFrom: "n_tasks" | "dataset" | "default";
  expected: number;
}

/** Configs read, and the files that could not be read (with why). */
export interface Experiments {
  slices: Slice[];
  problems: string[];
}

const DATA_DOMAINS = new Map<string, string>(Object.entries(DOMAINS).map(([d, folder]) => [folder, d]));

function globRe(glob: string): RegExp {
  return new RegExp(
    "^" + glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$",
  );
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** The chi-bench checkout a config dir sits in (`<root>/configs/experiments/<name>`), or null. */
function checkoutOf(dir: string): string | null {
  const parts = resolve(dir).split(sep);
  const at = parts.lastIndexOf("configs");
  return at > 0 && parts[at + 1] === "experiments" ? parts.slice(0, at).join(sep) || sep : null;
}

function datasetTasks(root: string, dataset: string, include: string[], exclude: string[]): number | null {
  const dir = resolve(root, dataset);
  if (!existsSync(dir)) return null;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => existsSync(join(dir, n, "task.toml")));
  } catch {
    return null;
  }
  const inc = include.map(globRe), exc = exclude.map(globRe);
  return names.filter((n) => (!inc.length || inc.some((r) => r.test(n))) && !exc.some((r) => r.test(n)))
    .length;
}

/** Reads one config's YAML text into a slice; null when it is not an experiment config. */
export function sliceOf(file: string, text: string, root: string | null): Slice | null {
  const data = parse(text) as Record<string, unknown> | null;
  if (!data || typeof data !== "object" || typeof data.dataset !== "string") return null;
  const kwargs = (data.agent_kwargs ?? {}) as Record<string, unknown>;
  const trialsDir = typeof data.trials_dir === "string" ? data.trials_dir : null;
  const arm = typeof kwargs.arm === "string" && kwargs.arm
    ? kwargs.arm
    : trialsDir
    ? basename(dirname(trialsDir))
    : basename(file).replace(/\.ya?ml$/, "");
  const folder = data.dataset.split("/").find((p) => DATA_DOMAINS.has(p));
  const domain = folder ? DATA_DOMAINS.get(folder)! : trialsDir ? basename(trialsDir) : null;
  const attempts = Number.isInteger(data.n_attempts) && (data.n_attempts as number) > 0
    ? data.n_attempts as number
    : 1;
  const counted = root
    ? datasetTasks(root, data.dataset, list(data.include_task_name), list(data.exclude_task_name))
    : null;
  const capped = Number.isInteger(data.n_tasks) && (data.n_tasks as number) > 0
    ? data.n_tasks as number
    : null;
  const tasks = capped !== null ? Math.min(capped, counted ?? capped) : counted ?? DEFAULT_TASKS;
  return {
    file,
    arm,
    domain,
    trialsDir: root && trialsDir ? resolve(root, trialsDir) : null,
    attempts,
    tasks,
    tasksFrom: capped !== null ? "n_tasks" : counted !== null ? "dataset" : "default",
    expected: tasks * attempts,
  };
}

/** Every experiment config (`*.yaml`, `*.yml`) in the given dirs (or files). */
export function readExperiments(paths: readonly string[]): Experiments {
  const out: Experiments = { slices: [], problems: [] };
  for (const path of paths) {
    const single = /\.ya?ml$/.test(path);
    let files: string[];
    try {
      files = single
        ? [path]
        : readdirSync(path).filter((n) => /\.ya?ml$/.test(n)).sort().map((n) => join(path, n));
    } catch (err) {
      out.problems.push(`Cannot read experiment configs in ${path}: ${(err as Error).message}.`);
      continue;
    }
    const root = checkoutOf(single ? dirname(path) : path);
    for (const file of files) {
      try {
        const slice = sliceOf(file, readFileSync(file, "utf8"), root);
        if (slice) out.slices.push(slice);
      } catch (err) {
        out.problems.push(
          `Cannot read experiment config ${file}: ${(err as Error).message}. Fix the YAML or remove it.`,
        );
      }
    }
  }
  return out;
}
