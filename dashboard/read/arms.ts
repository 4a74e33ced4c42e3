/**
 * What arm a trial is in: what the trial says it ran as (its config's `agent.kwargs.arm` or
 * `FIABLE_CC_ARM`, its harness.json, the guard's facts in result.json; else its harness's name), grouped under
 * the run that holds it (the folders between the --logs root and the trial, less the arm, domain and job
 * folders) or under the name `--logs NAME=DIR` gives it. Trials that ran as different arms are never pooled,
 * whatever folder holds them, and a folder that holds several is named for the Arms page. Pure.
 */
import { basename, dirname, relative, sep } from "node:path";
import { ARMS } from "../../lib/guard/engine/record.ts";

/** Folders that hold trials without naming an arm: domains and Harbor's containers. */
const CONTAINERS = new Set(["pa_provider", "pa_um", "cm", "trials", "logs", "jobs"]);

/** A job folder Harbor names after its domain (`fiable-smoke-stock-pa_provider`, `<id>__cm`). */
function isJobFolder(name: string): boolean {
  return /(?:^|[-_])(?:pa_provider|pa_um|cm)$/.test(name) || /__(pa_|cm)/.test(name);
}

/** True for the name of one of the guard's arms (stock, shadow, plan, checklist, critic). */
export function isGuardArm(name: string): boolean {
  return (ARMS as readonly string[]).includes(name);
}

/** Where a trial's arm comes from: its run and what it ran as. */
export interface ArmClaim {
  /** The run: `--logs NAME=DIR`'s NAME, else the root's name and the folders below it that name no arm. */
  run: string;
  /** True when `run` is a name the user gave (`--logs NAME=DIR`). */
  named: boolean;
  /** What the trial says it ran as (an arm, else its harness), or null when it says nothing. */
  ranAs: string | null;
  /** The folder holding the trial (its job or trials dir). */
  folder: string;
}

/** A trial's claim from where it sits below its root and what it says it ran as. */
export function claimOf(
  root: { dir: string; name?: string },
  dir: string,
  ranAs: string | null,
): ArmClaim {
  const folder = dirname(dir);
  if (root.name) return { run: root.name, named: true, ranAs, folder };
  // A folder named after an arm is an arm's trials dir, not a run, once the trial says what it ran as; for a
  // trial that says nothing it is all there is to go by.
  const below = relative(root.dir, dir).split(sep).slice(0, -1).filter((p) =>
    p && p !== ".." && !CONTAINERS.has(p) && !isJobFolder(p) && !(ranAs && (isGuardArm(p) || p === ranAs))
  );
  return { run: [basename(root.dir) || "trials", ...below].join("/"), named: false, ranAs, folder };
}

/** The arms' names, and the folders whose trials ran as more than one arm (each with its counts). */
export interface ArmNames {
  /** Trial dir → its arm's name. */
  names: Map<string, string>;
  mixed: { folder: string; ranAs: Record<string, number> }[];
}

/** The runs' shared leading folders, dropped from every name (one run: the whole of it). */
function commonPrefix(runs: string[][]): number {
  if (runs.length < 2) return runs[0]?.length ?? 0;
  let n = 0;
  while (runs.every((r) => n < r.length && r[n] === runs[0][n])) n++;
  return n;
}

/**
 * Names every trial's arm: its run (less the leading folders every run shares) and what it ran as, `run · arm`,
 * the run left out when there is one, a harness's name left out when its run ran nothing else, a named run
 * alone unless its trials ran as several arms.
 */
export function armNames(claims: ReadonlyMap<string, ArmClaim>): ArmNames {
  const unnamed = [...new Set([...claims.values()].filter((c) => !c.named).map((c) => c.run))];
  const cut = commonPrefix(unnamed.map((r) => r.split("/")));
  const ranIn = new Map<string, Set<string>>();
  for (const c of claims.values()) {
    const set = ranIn.get(c.run) ?? new Set<string>();
    if (c.ranAs) set.add(c.ranAs);
    ranIn.set(c.run, set);
  }
  const names = new Map<string, string>();
  for (const [dir, c] of claims) {
    const run = c.named ? c.run : c.run.split("/").slice(cut).join("/");
    const alone = (ranIn.get(c.run)?.size ?? 0) <= 1;
    const arm = !c.ranAs || (alone && (c.named || (run && !isGuardArm(c.ranAs)))) ? "" : c.ranAs;
    names.set(dir, [run, arm].filter(Boolean).join(" · ") || basename(c.run) || "trials");
  }
  const byFolder = new Map<string, Record<string, number>>();
  for (const c of claims.values()) {
    if (!c.ranAs) continue;
    const counts = byFolder.get(c.folder) ?? {};
    counts[c.ranAs] = (counts[c.ranAs] ?? 0) + 1;
    byFolder.set(c.folder, counts);
  }
  const mixed = [...byFolder].filter(([, counts]) => Object.keys(counts).length > 1)
    .map(([folder, ranAs]) => ({ folder, ranAs })).sort((a, b) => a.folder.localeCompare(b.folder));
  return { names, mixed };
}

/**
 * What a trial says it ran as, from its files (parsed JSON, null when absent) and the guard's facts in its
 * result.json (lib/results/guard_facts.ts), first found first.
 */
export function ranAsOf(said: {
  config: Record<string, unknown> | null;
  harness: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  facts: { arm: string } | null;
}): string | null {
  const obj = (v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
  const text = (v: unknown) => typeof v === "string" && v.trim() ? v.trim() : null;
  const config = said.config ?? obj(said.result?.config) ?? null;
  const agent = obj(config?.agent);
  const env = text(obj(agent?.env)?.FIABLE_CC_ARM);
  return text(obj(agent?.kwargs)?.arm) ??
    // Harbor writes forwarded env values as `${KEY}` templates: only a literal names an arm.
    (env && !/^\$\{.*\}$/.test(env) ? env : null) ??
    text(said.harness?.arm) ?? text(said.facts?.arm) ??
    text(agent?.name) ?? text(obj(said.result?.agent_info)?.name);
}
