/**
 * The arm aggregator: per arm × domain and overall, pass@1 / pass^k / pass@k with task-level bootstrap CIs,
 * cost and walltime under a recipe (harness.md §5.3), tool calls from trajectories (§6), exceptions, unscored
 * trials, guard statistics from ledgers, and paired comparisons of every arm against the control.
 * Reproduces a leaderboard packet's results.csv under the recipe that made it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { agentSeconds, type Prices, type Recipe, trialCost, trialWalltime } from "./cost.ts";
import { parseLedger } from "../guard/ledger/ledger.ts";
import { type LedgerRecord } from "../guard/engine/record.ts";
import {
  type BootstrapOptions,
  decide,
  type Decision,
  type Estimate,
  flips,
  holm,
  maxAttempts,
  type McNemarBasis,
  pairedBootstrap,
  type PairedDiff,
  passAt1,
  passAtKMean,
  passHatKMean,
  type TaskOutcome,
} from "./stats.ts";
import { countAll, countAt, type ToolCount } from "./tool_counts.ts";
import {
  DOMAINS,
  findTrials,
  nameUnreadable,
  readTrial,
  type TrialRef,
  type TrialSummary,
} from "./trials.ts";
import {
  type ArmIntegrity,
  armIntegrity,
  type LedgerFile as FactLedger,
  trialArmLabel,
  type TrialIntegrity,
  trialIntegrity,
} from "./integrity.ts";
import { type ArmFacts, armFacts, comparability } from "./comparable.ts";
import { readFacts, wantsCalls } from "./trial_facts.ts";
import { packetProblemsUnder } from "./packet.ts";
import type { ProblemKind } from "./severity.ts";
import { CORRECTION, type Pair } from "./protocol.ts";
import { PILOT, type PilotVerdict, pilotVerdict } from "./pilot.ts";

/** One arm: a name and the trial roots it reads (plus optional replay ledger dirs). */
export interface ArmInput {
  name: string;
  roots: string[];
  ledgerDirs?: string[];
}

/** Aggregation settings. */
export interface AggregateOptions {
  recipe?: Recipe;
  prices?: Prices;
  /** Every other arm against this one. */
  control?: string;
  /** Comparisons besides (or instead of) --control; `family: true` marks the corrected family. */
  compare?: (Pair & { family?: boolean })[];
  /** The protocol's pilot: compare critic with stock and give the go / no-go verdict (lib/results/pilot.ts). */
  pilot?: boolean;
  iters?: number;
  seed?: number;
  /** Count tool calls from trajectories (default true). */
  toolCalls?: boolean;
  /** Called after each trial is read: (done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Tool-call counts already computed, by trajectory path (see aggregateArmsParallel). */
  toolCounts?: Map<string, ToolCount>;
  /** Called with each trial as read, for the columnar summary (see lib/results/columnar.ts). */
  onTrial?: (trial: TrialRead) => void;
}

/** One trial as aggregate read it. */
export interface TrialRead {
  arm: ArmInput;
  summary: TrialSummary;
  /** Cost under the recipe; null when unknown. */
  cost: number | null;
  toolCalls: number | null;
}

/** Submission identity for the leaderboard's first columns. */
export interface Identity {
  benchmark: string;
  dataset_version: string;
  submission_id: string;
  team: string;
  agent: string;
  model: string;
}

/** Guard ledger counts. */
export interface GuardStats {
  ledgers: number;
  sessions: number;
  records: number;
  corrupt_lines: number;
  denies: number;
  stop_blocks: number;
  releases: number;
  errors: number;
  shadows: number;
  per_rule: Record<string, { deny: number; block: number; release: number; shadow: number }>;
}

/** One arm × domain (or `overall`) row. */
export interface Row extends Identity {
  arm: string;
  domain: string;
  recipe: Recipe;
  pass_at_1: number | null;
  n_trials: number;
  n_tasks: number;
  mean_cost_usd: number | null;
  mean_walltime_s: number | null;
  pass_at_1_ci: Estimate;
  pass_hat_k: (Estimate & { k: number })[];
  pass_at_k: (Estimate & { k: number })[];
  n_passed: number;
  n_unscored: number;
  n_unreadable: number;
  n_problems: number;
  n_cost_known: number;
  unpriced_models: string[];
  mean_reported_cost_usd: number | null;
  mean_agent_s: number | null;
  mean_tool_calls: number | null;
  mean_mcp_calls: number | null;
  n_trajectories: number;
  exceptions: Record<string, number>;
  guard: GuardStats | null;
  /** Run integrity of the row's trials (lib/results/integrity.ts); null when trajectories were not read. */
  integrity: ArmIntegrity | null;
  tasks: TaskOutcome[];
}

/** An arm against its comparator on one domain (or overall). */
export interface Comparison extends PairedDiff {
  /** The hypothesis it tests (H1 …), or null. */
  id: string | null;
  arm: string;
  control: string;
  domain: string;
  /** The protocol's decision rule on the paired 95% interval; null without shared tasks. */
  decision: Decision | null;
  gained: string[];
  lost: string[];
  both: number;
  neither: number;
  p_mcnemar: number | null;
  p_mcnemar_basis: McNemarBasis;
  /** McNemar's p adjusted across the family (overall comparisons only); null outside it. */
  p_mcnemar_adjusted: number | null;
  /** The arms of this comparison whose integrity is marked: the difference is not a result until fixed. */
  marked: string[];
  /** Why the two arms do not differ by the guard alone (lib/results/comparable.ts); empty: comparable. */
  not_comparable: string[];
}

/** A problem with one input file, never silently dropped. */
export interface Problem {
  arm: string;
  path: string;
  message: string;
  /** What it is about, and so whether it fails the command or warns (lib/results/severity.ts). */
  kind?: ProblemKind;
}

/** Everything the aggregator computed. */
export interface AggregateResult {
  recipe: Recipe;
  iters: number;
  seed: number;
  control: string | null;
  arms: { name: string; roots: string[]; n_found: number }[];
  /** What each arm's readable trials ran: model, harness, Claude Code version, environment, arm. */
  arm_facts: ArmFacts[];
  rows: Row[];
  comparisons: Comparison[];
  /** The multiplicity correction and the overall comparisons it covers (`arm:control`); null for one. */
  correction: { method: typeof CORRECTION; family: string[] } | null;
  /** The pilot's verdict, with `pilot`; null otherwise. */
  pilot: PilotVerdict | null;
  problems: Problem[];
  unpriced_models: string[];
}

/** One read trial with its derived figures. */
interface Trial {
  s: TrialSummary;
  cost: number | null;
  wall: number | null;
  calls: { all: number; mcp: number } | null;
  priced: boolean;
  ledgers: FactLedger[];
  integrity: TrialIntegrity | null;
}

function readSubmission(root: string): Partial<Identity> {
  const path = join(root, "submission.json");
  if (!existsSync(path)) return {};
  try {
    const data = JSON.parse(readFileSync(path, "utf8"));
    return {
      benchmark: data.dataset?.name,
      dataset_version: data.dataset?.version,
      submission_id: data.submission?.id,
      team: data.submission?.team,
      agent: data.submission?.agent,
      model: data.submission?.model,
    };
  } catch {
    return {};
  }
}

function distinct(values: (string | null)[]): string {
  return [...new Set(values.filter((v): v is string => !!v))].sort().join("+");
}

function identityOf(arm: ArmInput, trials: Trial[]): Identity {
  const sub = arm.roots.map(readSubmission).find((s) => s.submission_id) ?? {};
  return {
    benchmark: sub.benchmark ?? "chi-bench",
    dataset_version: sub.dataset_version ?? "",
    submission_id: sub.submission_id ?? arm.name,
    team: sub.team ?? "",
    agent: sub.agent ?? distinct(trials.map((t) => t.s.agent)),
    model: sub.model ?? distinct(trials.map((t) => t.s.model)),
  };
}

function meanOf(values: (number | null)[]): { mean: number | null; n: number } {
  let sum = 0, n = 0;
  for (const v of values) {
    if (v === null) continue;
    sum += v;
    n++;
  }
  return { mean: n ? sum / n : null, n };
}

/** Per-task outcomes (sorted by task) of the trials that count. */
export function taskOutcomes(trials: { task: string; passed: boolean }[]): TaskOutcome[] {
  const by = new Map<string, TaskOutcome>();
  for (const t of trials) {
    const o = by.get(t.task) ?? { task: t.task, n: 0, c: 0 };
    o.n++;
    if (t.passed) o.c++;
    by.set(t.task, o);
  }
  return [...by.values()].sort((a, b) => a.task < b.task ? -1 : 1);
}

/**
 * Whether a trial enters pass@1 under a recipe: A and B need a verifier_result, C counts every readable trial;
 * a trial whose result.json cannot be read counts as a failure under every recipe (never dropped from the
 * denominator) until it is fixed or removed.
 */
function counts(t: TrialSummary, recipe: Recipe): boolean {
  return !t.readable || recipe === "C" || t.verified;
}

function seatDomain(seat: unknown): string | null {
  return seat === "provider" ? "pa_provider" : seat === "payer" ? "pa_um" : seat === "cm" ? "cm" : null;
}

/** Guard counts over ledger records. */
export function guardStats(ledgers: { records: LedgerRecord[]; corrupt: number }[]): GuardStats {
  const g: GuardStats = {
    ledgers: ledgers.length,
    sessions: 0,
    records: 0,
    corrupt_lines: 0,
    denies: 0,
    stop_blocks: 0,
    releases: 0,
    errors: 0,
    shadows: 0,
    per_rule: {},
  };
  const sessions = new Set<string>();
  for (const l of ledgers) {
    g.corrupt_lines += l.corrupt;
    for (const r of l.records) {
      g.records++;
      sessions.add(String(r.session));
      const d = r.decision;
      if (d === "deny") g.denies++;
      else if (d === "block") g.stop_blocks++;
      else if (d === "release") g.releases++;
      else if (d === "error") g.errors++;
      else if (d === "shadow") g.shadows++;
      if (d !== "deny" && d !== "block" && d !== "release" && d !== "shadow") continue;
      const ids = (r.rules ?? []).map((h) => h.id);
      if (!ids.length && r.event === "stop") ids.push("STOP-GATE");
      for (const id of ids) {
        const p = g.per_rule[id] ??= { deny: 0, block: 0, release: 0, shadow: 0 };
        p[d]++;
      }
    }
  }
  g.sessions = sessions.size;
  return g;
}

interface LedgerFile {
  domain: string | null;
  records: LedgerRecord[];
  corrupt: number;
}

function readLedgerFile(
  path: string,
  domain: string | null,
  arm: string,
  problems: Problem[],
): LedgerFile | null {
  try {
    const parsed = parseLedger(readFileSync(path, "utf8"));
    const seat = parsed.records.find((r) => r.seat)?.seat;
    return { domain: domain ?? seatDomain(seat), ...parsed };
  } catch (err) {
    problems.push({ arm, path, message: `Cannot read ledger ${path}: ${(err as Error).message}.` });
    return null;
  }
}

/** The `.jsonl` files below a dir (replay ledger dirs given to an arm). */
export function jsonlBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    let entries: import("node:fs").Dirent[] = [];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory() && depth < 6) walk(join(d, e.name), depth + 1);
      else if (e.isFile() && e.name.endsWith(".jsonl")) out.push(join(d, e.name));
    }
  };
  walk(dir, 0);
  return out.sort();
}

/** Reads one trial: its summary, tool calls, ledgers and integrity; the problems are its facts' problems. */
function readOne(
  ref: TrialRef,
  opts:
    & Required<Pick<AggregateOptions, "recipe" | "prices" | "toolCalls">>
    & Pick<AggregateOptions, "toolCounts">,
): { trial: Trial; problems: { kind: NonNullable<Problem["kind"]>; message: string }[] } {
  const s = readTrial(ref);
  let count: ToolCount | null = null;
  if (opts.toolCalls && ref.trajectory) {
    count = opts.toolCounts?.get(ref.trajectory) ?? countAt(ref.trajectory, { calls: wantsCalls(ref) });
  }
  const facts = readFacts(ref, opts.toolCalls ? count : null);
  const integrity = opts.toolCalls ? trialIntegrity(facts) : null;
  const trial: Trial = {
    s,
    cost: s.readable ? trialCost(s, opts.recipe, opts.prices) : null,
    wall: s.readable ? trialWalltime(s, opts.recipe) : null,
    calls: count && !("error" in count) ? { all: count.all, mcp: count.mcp } : null,
    priced: !!s.model && Object.hasOwn(opts.prices, s.model),
    ledgers: facts.ledgers,
    integrity,
  };
  // Reading problems (a bad ledger, a truncated trajectory) come with the facts; integrity adds its own.
  const integrityOnly = integrity ? integrity.problems.filter((p) => !facts.problems.includes(p)) : [];
  const problems = [
    ...[...s.problems, ...facts.problems].map((message) => ({ kind: "input" as const, message })),
    ...integrityOnly.map((message) => ({ kind: "integrity" as const, message })),
  ];
  return { trial, problems };
}

function estimatesByK(tasks: TaskOutcome[], boot: BootstrapOptions) {
  const ks = Array.from({ length: maxAttempts(tasks) }, (_, i) => i + 1);
  return {
    pass_hat_k: ks.map((k) => ({ k, ...passHatKMean(tasks, k, boot) })),
    pass_at_k: ks.map((k) => ({ k, ...passAtKMean(tasks, k, boot) })),
  };
}

function rowOf(
  arm: string,
  domain: string,
  id: Identity,
  trials: Trial[],
  ledgers: LedgerFile[] | null,
  recipe: Recipe,
  boot: BootstrapOptions,
  problemCount: number,
): Row {
  const scored = trials.filter((t) => counts(t.s, recipe));
  const tasks = taskOutcomes(scored.map((t) => ({ task: t.s.task, passed: t.s.passed === true })));
  const ci = passAt1(tasks, boot);
  const cost = meanOf(scored.map((t) => t.cost));
  const exceptions: Record<string, number> = {};
  for (const t of trials) {
    if (t.s.exception) exceptions[t.s.exception.type] = (exceptions[t.s.exception.type] ?? 0) + 1;
  }
  const withCalls = scored.filter((t) => t.calls);
  const unpriced = scored.filter((t) => !t.priced).map((t) => t.s.model ?? "(no model)");
  return {
    ...id,
    arm,
    domain,
    recipe,
    pass_at_1: ci.value,
    n_trials: scored.length,
    n_tasks: tasks.length,
    mean_cost_usd: cost.mean,
    mean_walltime_s: meanOf(scored.map((t) => t.wall)).mean,
    pass_at_1_ci: ci,
    ...estimatesByK(tasks, boot),
    n_passed: scored.filter((t) => t.s.passed).length,
    n_unscored: trials.filter((t) => t.s.readable && !t.s.verified).length,
    n_unreadable: trials.filter((t) => !t.s.readable).length,
    n_problems: problemCount,
    n_cost_known: cost.n,
    unpriced_models: [...new Set(unpriced)].sort(),
    mean_reported_cost_usd: meanOf(scored.map((t) => t.s.costUsd)).mean,
    mean_agent_s: meanOf(scored.map((t) => agentSeconds(t.s))).mean,
    mean_tool_calls: meanOf(withCalls.map((t) => t.calls!.all)).mean,
    mean_mcp_calls: meanOf(withCalls.map((t) => t.calls!.mcp)).mean,
    n_trajectories: withCalls.length,
    exceptions,
    guard: ledgers && ledgers.length ? guardStats(ledgers) : null,
    integrity: trials.every((t) => t.integrity) ? armIntegrity(trials.map((t) => t.integrity!)) : null,
    tasks,
  };
}

function domainsOf(trials: Trial[]): string[] {
  const present = new Set(trials.map((t) => t.s.domain));
  const known: string[] = DOMAINS.filter((d) => present.has(d));
  return [...known, ...[...present].filter((d) => !known.includes(d)).sort()];
}

/** A trial dir read by two arms makes their comparison meaningless: list it under both. */
function sharedTrials(found: { arm: ArmInput; refs: TrialRef[] }[]): Problem[] {
  const owner = new Map<string, string>();
  const out: Problem[] = [];
  for (const { arm, refs } of found) {
    for (const ref of refs) {
      const key = resolve(ref.dir);
      const first = owner.get(key);
      if (first === undefined) owner.set(key, arm.name);
      else if (first !== arm.name) {
        out.push({
          arm: arm.name,
          path: ref.dir,
          message: `Cannot keep arms apart: ${ref.dir} is in arm "${first}" and arm "${arm.name}". ` +
            "Give each arm its own trials dir.",
        });
      }
    }
  }
  return out;
}

/** Aggregates arms of trials into rows, comparisons and a list of every input problem. */
export function aggregateArms(arms: ArmInput[], opts: AggregateOptions = {}): AggregateResult {
  const recipe = opts.recipe ?? "B";
  const prices = opts.prices ?? {};
  const boot = { iters: opts.iters ?? 1000, seed: opts.seed ?? 0 };
  const names = arms.map((a) => a.name);
  if (new Set(names).size !== names.length) {
    throw new Error(
      `Cannot aggregate: arm names repeat (${names.join(", ")}). Name each arm once with --arm.`,
    );
  }
  if (opts.control && !names.includes(opts.control)) {
    throw new Error(
      `Cannot compare against control "${opts.control}": no such arm. Use one of ${names.join(", ")}.`,
    );
  }
  const asked = [...opts.compare ?? [], ...opts.pilot ? [PILOT] : []];
  for (const p of asked) {
    const unknown = [p.arm, p.control].find((a) => !names.includes(a));
    if (unknown !== undefined) {
      throw new Error(
        `Cannot compare ${p.arm} with ${p.control}: "${unknown}" is no arm. Use one of ${names.join(", ")}.`,
      );
    }
  }
  const found = arms.map((a) => ({ arm: a, refs: findTrials(a.roots) }));
  const total = found.reduce((n, f) => n + f.refs.length, 0);
  let done = 0;
  const problems: Problem[] = sharedTrials(found);
  const rows: Row[] = [];
  const outcomes = new Map<string, Map<string, TaskOutcome[]>>();
  const facts = new Map<string, ArmFacts>();
  for (const { arm, refs } of found) {
    if (!refs.length) {
      problems.push({
        arm: arm.name,
        path: arm.roots.join(", "),
        message: `Cannot find trials below ${arm.roots.join(", ")}: no result.json, verifier/ or trajectory.`,
      });
    }
    const trials: Trial[] = [];
    const ledgers: LedgerFile[] = [];
    const problemsOf = new Map<string, number>();
    for (const ref of refs) {
      const { trial, problems: found } = readOne(ref, {
        recipe,
        prices,
        toolCalls: opts.toolCalls ?? true,
        toolCounts: opts.toolCounts,
      });
      trials.push(trial);
      opts.onTrial?.({ arm, summary: trial.s, cost: trial.cost, toolCalls: trial.calls?.all ?? null });
      for (const p of found) problems.push({ arm: arm.name, path: ref.dir, ...p });
      if (found.length) problemsOf.set(ref.dir, found.length);
      for (const l of trial.ledgers) {
        ledgers.push({ domain: trial.s.domain, records: l.records, corrupt: l.corrupt });
      }
      opts.onProgress?.(++done, total);
    }
    nameUnreadable(trials.map((t) => t.s));
    facts.set(
      arm.name,
      armFacts(
        arm.name,
        trials.filter((t) => t.s.readable).map((t) => ({
          model: t.s.model,
          agent: t.s.agent,
          agentVersion: t.s.agentVersion,
          environment: t.s.environment,
          ranAs: t.integrity ? trialArmLabel(t.integrity) : null,
        })),
      ),
    );
    for (const p of packetProblemsUnder(arm.roots, trials.map((t) => t.s), prices)) {
      problems.push({ arm: arm.name, ...p, kind: "packet" });
    }
    for (const dir of arm.ledgerDirs ?? []) {
      for (const path of jsonlBelow(dir)) {
        const l = readLedgerFile(path, null, arm.name, problems);
        if (l) ledgers.push(l);
      }
    }
    const id = identityOf(arm, trials);
    const perDomain = new Map<string, TaskOutcome[]>();
    const problemCount = (ts: Trial[]) => ts.filter((t) => problemsOf.has(t.s.ref.dir)).length;
    const overall = rowOf(arm.name, "overall", id, trials, ledgers, recipe, boot, problemCount(trials));
    rows.push(overall);
    perDomain.set("overall", overall.tasks);
    // Arm-level integrity problems (fail-open errors over the flag, trials of several arms in one).
    const ofTrials = new Set(trials.flatMap((t) => t.integrity?.problems ?? []));
    for (const message of overall.integrity?.problems ?? []) {
      if (!ofTrials.has(message)) {
        problems.push({ arm: arm.name, path: arm.roots.join(", "), message, kind: "integrity" });
      }
    }
    for (const message of overall.integrity?.warnings ?? []) {
      problems.push({ arm: arm.name, path: arm.roots.join(", "), message, kind: "mix" });
    }
    for (const domain of domainsOf(trials)) {
      const ts = trials.filter((t) => t.s.domain === domain);
      const ls = ledgers.filter((l) => l.domain === domain);
      const row = rowOf(arm.name, domain, id, ts, ledgers.length ? ls : null, recipe, boot, problemCount(ts));
      rows.push(row);
      perDomain.set(domain, row.tasks);
    }
    outcomes.set(arm.name, perDomain);
  }
  const marked = new Set(rows.filter((r) => r.domain === "overall" && r.integrity?.marked).map((r) => r.arm));
  const { comparisons, correction } = compareAll(
    pairsOf(names, { ...opts, compare: asked }),
    outcomes,
    boot,
    marked,
    facts,
  );
  for (const c of comparisons.filter((c) => c.domain === "overall" && c.not_comparable.length)) {
    problems.push({
      arm: `${c.arm}:${c.control}`,
      path: [c.arm, c.control].map((a) => arms.find((x) => x.name === a)!.roots.join(", ")).join("; "),
      message: `Cannot read ${c.arm} − ${c.control} as the guard's effect: ${c.not_comparable.join("; ")}. ` +
        "Compare arms that differ by the guard alone (one pinned CLI, model, harness and environment).",
      kind: "comparability",
    });
  }
  return {
    recipe,
    iters: boot.iters,
    seed: boot.seed,
    control: opts.control ?? null,
    arms: found.map((f) => ({ name: f.arm.name, roots: f.arm.roots, n_found: f.refs.length })),
    arm_facts: names.map((n) => facts.get(n)!),
    rows,
    comparisons,
    correction,
    pilot: opts.pilot ? pilotVerdict(comparisons) : null,
    problems,
    unpriced_models: [...new Set(rows.flatMap((r) => r.unpriced_models))].sort(),
  };
}

/** aggregateArms with the trajectories' tool calls counted first on Web Workers (the slow part, in parallel). */
export async function aggregateArmsParallel(
  arms: ArmInput[],
  opts: AggregateOptions & { workers?: number } = {},
): Promise<AggregateResult> {
  if (opts.toolCalls === false) return aggregateArms(arms, opts);
  const refs = arms.flatMap((a) => findTrials(a.roots)).filter((r) => r.trajectory);
  const paths = refs.map((r) => r.trajectory!);
  const calls = new Set(refs.filter(wantsCalls).map((r) => r.trajectory!));
  const toolCounts = await countAll(paths, { workers: opts.workers, calls, onProgress: opts.onProgress });
  return aggregateArms(arms, { ...opts, toolCounts, onProgress: undefined });
}

/** Every comparison asked for: each arm against --control, then --compare's pairs (each pair once). */
function pairsOf(names: string[], opts: AggregateOptions): (Pair & { family?: boolean })[] {
  const out: (Pair & { family?: boolean })[] = [];
  const add = (p: Pair & { family?: boolean }) => {
    const same = out.find((x) => x.arm === p.arm && x.control === p.control);
    if (!same) out.push(p);
    else Object.assign(same, { ...p, id: p.id ?? same.id });
  };
  if (opts.control) {
    for (const arm of names) {
      if (arm !== opts.control) add({ arm, control: opts.control });
    }
  }
  for (const p of opts.compare ?? []) add(p);
  return out;
}

/**
 * Each pair on every domain both arms ran, then Holm across the family's overall McNemar p-values: the pairs
 * marked `family` when any is (the protocol's H1–H3), else every pair of the call; none for a single pair.
 */
function compareAll(
  pairs: (Pair & { family?: boolean })[],
  outcomes: Map<string, Map<string, TaskOutcome[]>>,
  boot: BootstrapOptions,
  marked: ReadonlySet<string>,
  facts: ReadonlyMap<string, ArmFacts>,
): { comparisons: Comparison[]; correction: AggregateResult["correction"] } {
  const comparisons: Comparison[] = [];
  for (const pair of pairs) {
    const ctl = outcomes.get(pair.control)!;
    const reasons = comparability(facts.get(pair.arm)!, facts.get(pair.control)!);
    for (const [domain, tasks] of outcomes.get(pair.arm)!) {
      const base = ctl.get(domain);
      if (!base) continue;
      const diff = pairedBootstrap(tasks, base, boot);
      comparisons.push({
        id: pair.id ?? null,
        arm: pair.arm,
        control: pair.control,
        domain,
        ...diff,
        decision: decide(diff),
        ...flips(tasks, base),
        p_mcnemar_adjusted: null,
        marked: [pair.arm, pair.control].filter((a) => marked.has(a)),
        not_comparable: reasons,
      });
    }
  }
  const named = pairs.some((p) => p.family !== undefined);
  const inFamily = pairs.filter((p) => named ? p.family : true);
  const family = comparisons.filter((c) =>
    c.domain === "overall" && inFamily.some((p) => p.arm === c.arm && p.control === c.control)
  );
  if (family.length < 2) return { comparisons, correction: null };
  holm(family.map((c) => c.p_mcnemar)).forEach((p, i) => family[i].p_mcnemar_adjusted = p);
  return {
    comparisons,
    correction: { method: CORRECTION, family: family.map((c) => `${c.arm}:${c.control}`) },
  };
}
