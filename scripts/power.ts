/**
 * Power of the pre-registered design, generated into docs/EVALUATION_PROTOCOL.md (between its power markers;
 * a test fails when the section is stale). From the real packets' per-task pass rates it finds the smallest
 * pass@1 difference H1's decision rule detects with 80% power — the protocol's paired bootstrap (1000
 * iterations, seed 0, percentile 95% interval above 0) over the 75 shared tasks — for 1, 3 and 5 attempts;
 * and the pilot's (protocol v3): the provider gain of critic over stock its go rule detects with 80% power,
 * and McNemar's, over the 25 provider tasks with 1 and 2 attempts, with the pilot's cost.
 *
 * Model: task i passes each attempt with probability p_i (attempts independent given the task). p_i is the
 * task's pass rate over every real packet, shrunk ((passes + ½)/(runs + 1)) and shifted on the log-odds scale
 * so the mean is the registered same-model baseline (37.3%). The guarded arm's p'_i comes from one of two
 * effect models: a uniform log-odds shift, or rescuing a share of failures (p' = p + r(1 − p)).
 * Simulated experiments use common random numbers, so power rises monotonically with the effect.
 *
 *   deno run -A scripts/power.ts [--stdout-only]    (about a minute on one core)
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findTrials, readTrial, type TrialSummary } from "../lib/results/trials.ts";
import { mcnemarExact, prng, type TaskOutcome } from "../lib/results/stats.ts";
import { taskOutcomes } from "../lib/results/aggregate.ts";
import { DEFAULT_EXPERIMENT, PILOT_ARMS, PILOT_DOMAIN } from "../lib/install/experiments.ts";
import { estimateCost, pickReference, type ReferenceTable } from "../lib/install/estimate.ts";
import { parsePrices } from "../lib/results/cost.ts";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
/** Where the real packets are, read-only. */
export const PACKET_SETS = [
  join(ROOT, "..", "shared", "leaderboard"),
  join(ROOT, "..", "shared", "leaderboard-extra"),
];
/** The protocol this script writes into. */
export const PROTOCOL = join(ROOT, "docs", "EVALUATION_PROTOCOL.md");

/** The design and the simulation settings. */
export const DESIGN = {
  tasks: 75,
  arms: 4,
  baseline: 0.373,
  attempts: [1, 3, 5],
  power: 0.8,
  /** The protocol's bootstrap: iterations, seed, the lower percentile index (chi-bench's [25] of 1000). */
  iters: 1000,
  seed: 0,
  /** Simulated experiments per point, and their seed. */
  sims: 2000,
  simSeed: 1,
  /** The discovery set's strict rescue bound (failure-analysis.md): about +7 pass@1 points. */
  reference: 0.07,
  /**
   * The same bound counted in time (erratum 2026-12-04): failed trials of the discovery set (the four packets
   * in ../shared/leaderboard) whose every failed check a checklist block reaches before its doom, out of all
   * its trials. tests/rule_regression.ts holds it to replay's figure.
   */
  timeAware: { rescued: 12, trials: 300 },
};

/** The time-aware strict rescue bound as a pass@1 difference. */
export const TIME_AWARE_REFERENCE = DESIGN.timeAware.rescued / DESIGN.timeAware.trials;

/** One task's runs over the packets: n scored, c passed. */
export type TaskRuns = TaskOutcome;

/** Every packet in the sets (a folder with a results.csv) and its scored trials. */
function packetTrials(sets: string[]): { id: string; trials: TrialSummary[] }[] {
  const out: { id: string; trials: TrialSummary[] }[] = [];
  for (const set of sets) {
    if (!existsSync(set)) continue;
    for (const id of readdirSync(set).sort()) {
      if (!existsSync(join(set, id, "results.csv"))) continue;
      out.push({ id, trials: findTrials([join(set, id)]).map(readTrial).filter((t) => t.verified) });
    }
  }
  return out;
}

/** Passes and scored runs per task, sorted by task (aggregate's own per-task outcomes). */
function runsByTask(trials: TrialSummary[]): TaskRuns[] {
  return taskOutcomes(trials.map((t) => ({ task: t.task, passed: t.passed === true })));
}

/** Per-task passes and scored runs over every packet in the sets, sorted by task. */
export function taskRuns(sets: string[] = PACKET_SETS): { tasks: TaskRuns[]; packets: string[] } {
  const packets = packetTrials(sets);
  return { tasks: runsByTask(packets.flatMap((p) => p.trials)), packets: packets.map((p) => p.id) };
}

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const mean = (xs: ArrayLike<number>) =>
  Array.prototype.reduce.call(xs, (a, b) => a + b, 0) as number / xs.length;

/** Per-task probabilities: shrunk rates shifted on the log-odds scale to the given mean. */
export function calibrate(tasks: TaskRuns[], target: number): number[] {
  const base = tasks.map((t) => logit((t.c + 0.5) / (t.n + 1)));
  let lo = -10, hi = 10;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (mean(base.map((b) => sigmoid(b + mid))) < target) lo = mid;
    else hi = mid;
  }
  return base.map((b) => sigmoid(b + (lo + hi) / 2));
}

/** The protocol bootstrap's resampling counts for n tasks: W[b·n + i] = times task i is drawn in resample b. */
export function bootstrapCounts(n: number, iters = DESIGN.iters, seed = DESIGN.seed): Int32Array {
  // The same draws as lib/results/stats.ts bootstrapMean: one prng(seed), floor(rand·n), iters × n in order.
  const rand = prng(seed);
  const w = new Int32Array(iters * n);
  for (let b = 0; b < iters; b++) for (let j = 0; j < n; j++) w[b * n + Math.floor(rand() * n)]++;
  return w;
}

/**
 * H1's rule on per-task differences scaled to integers (k·(c'/k − c/k) = c' − c): "improves" iff the
 * percentile interval's lower end (sorted bootstrap means at floor(0.025·iters)) is above 0, i.e. at most
 * that many resample means are ≤ 0. Exact integer sums, so it equals pairedBootstrap's lo > 0.
 */
export function improves(diff: Int32Array, w: Int32Array, iters = DESIGN.iters): boolean {
  const n = diff.length, allowed = Math.floor(0.025 * iters);
  let nonPositive = 0;
  for (let b = 0; b < iters; b++) {
    let s = 0;
    const row = b * n;
    for (let i = 0; i < n; i++) s += w[row + i] * diff[i];
    if (s <= 0 && ++nonPositive > allowed) return false;
  }
  return true;
}

/** Simulated passes per (experiment, task) for probabilities p and fixed uniforms u (sims × n × k). */
function passes(p: number[], u: Float64Array, k: number, sims: number): Int32Array {
  const n = p.length, out = new Int32Array(sims * n);
  for (let s = 0; s < sims; s++) {
    for (let i = 0; i < n; i++) {
      let c = 0;
      const at = (s * n + i) * k;
      for (let a = 0; a < k; a++) if (u[at + a] < p[i]) c++;
      out[s * n + i] = c;
    }
  }
  return out;
}

function uniforms(count: number, seed: number): Float64Array {
  const rand = prng(seed), u = new Float64Array(count);
  for (let i = 0; i < count; i++) u[i] = rand();
  return u;
}

/** An effect model: the guarded arm's probabilities for an effect parameter x ≥ 0. */
export type Effect = (p: number[], x: number) => number[];
/** A uniform shift of x on the log-odds scale. */
export const logOddsShift: Effect = (p, x) => p.map((q) => sigmoid(logit(q) + x));
/** A share x of each task's failures rescued. */
export const rescue: Effect = (p, x) => p.map((q) => q + x * (1 - q));

/** The test a simulated experiment is decided by: the protocol's paired bootstrap, or McNemar's exact test. */
export type Test = "bootstrap" | "mcnemar";

/**
 * McNemar's decision for a gain on per-task passes of k attempts: a task passes when at least half its
 * attempts passed (the protocol's reduction); a gain when more tasks were gained than lost and the exact
 * two-sided p is below α.
 */
export function mcnemarGain(
  arm: ArrayLike<number>,
  control: ArrayLike<number>,
  k: number,
  alpha = 0.05,
): boolean {
  let gained = 0, lost = 0;
  for (let i = 0; i < arm.length; i++) {
    const a = arm[i] >= k / 2, c = control[i] >= k / 2;
    if (a && !c) gained++;
    else if (c && !a) lost++;
  }
  return gained > lost && mcnemarExact(gained, lost) < alpha;
}

/** A power curve for k attempts: power at effect x, with the experiments' random numbers fixed. */
export function powerCurve(
  p: number[],
  k: number,
  effect: Effect,
  sims = DESIGN.sims,
  test: Test = "bootstrap",
) {
  const n = p.length, w = bootstrapCounts(n);
  const control = passes(p, uniforms(sims * n * k, DESIGN.simSeed * 2 + k * 100), k, sims);
  const armU = uniforms(sims * n * k, DESIGN.simSeed * 2 + 1 + k * 100);
  const diff = new Int32Array(n);
  return (x: number) => {
    const arm = passes(effect(p, x), armU, k, sims);
    let hits = 0;
    for (let s = 0; s < sims; s++) {
      if (test === "mcnemar") {
        if (mcnemarGain(arm.subarray(s * n, (s + 1) * n), control.subarray(s * n, (s + 1) * n), k)) hits++;
        continue;
      }
      for (let i = 0; i < n; i++) diff[i] = arm[s * n + i] - control[s * n + i];
      if (improves(diff, w)) hits++;
    }
    return { power: hits / sims, delta: mean(effect(p, x)) - mean(p) };
  };
}

/** The smallest pass@1 difference (arm − control) detected with the target power: bisection on the effect. */
export function minimumDetectable(
  curve: (x: number) => { power: number; delta: number },
  xMax: number,
  target = DESIGN.power,
): number {
  let lo = 0, hi = xMax;
  for (let i = 0; i < 14; i++) {
    const mid = (lo + hi) / 2;
    if (curve(mid).power >= target) hi = mid;
    else lo = mid;
  }
  return curve(hi).delta;
}

/** minimumDetectable, or null when even the largest effect tried falls short of the target power. */
export function minimumDetectableOrNull(
  curve: (x: number) => { power: number; delta: number },
  xMax: number,
  target = DESIGN.power,
): number | null {
  return curve(xMax).power < target ? null : minimumDetectable(curve, xMax, target);
}

/** The effect parameter that gives a pass@1 difference of `delta`. */
function effectFor(p: number[], effect: Effect, delta: number, xMax: number): number {
  let lo = 0, hi = xMax;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (mean(effect(p, mid)) - mean(p) < delta) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** One table row. */
export interface PowerRow {
  attempts: number;
  trials: number;
  mdeShift: number;
  mdeRescue: number;
  powerAtReference: number;
  powerAtTimeAware: number;
}

/** The rows for every attempt count. */
export function powerRows(p: number[]): PowerRow[] {
  return DESIGN.attempts.map((k) => {
    const shift = powerCurve(p, k, logOddsShift);
    const res = powerCurve(p, k, rescue);
    return {
      attempts: k,
      trials: DESIGN.arms * DESIGN.tasks * k,
      mdeShift: minimumDetectable(shift, 4),
      mdeRescue: minimumDetectable(res, 1),
      powerAtReference: shift(effectFor(p, logOddsShift, DESIGN.reference, 4)).power,
      powerAtTimeAware: shift(effectFor(p, logOddsShift, TIME_AWARE_REFERENCE, 4)).power,
    };
  });
}

/** The digest of what the section is computed from: the per-task runs, the design and this script's source. */
export function inputsDigest(tasks: TaskRuns[]): string {
  const source = readFileSync(fileURLToPath(import.meta.url), "utf8");
  return createHash("sha256").update(JSON.stringify({ tasks, design: DESIGN }) + source).digest("hex");
}

const pts = (x: number) => `+${(100 * x).toFixed(1)}`;

/** Markdown as `deno fmt` lays it out in this repo (line width 110), so the generated section stays fmt-clean. */
export async function formatMarkdown(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext", "md", "--line-width", "110", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) {
    throw new Error(`Cannot format the power section: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/** sha256 of the section's text above its body-digest line. */
export function bodyDigest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The generated section's body (between the markers), digest lines included, formatted. */
export async function sectionBody(
  tasks: TaskRuns[],
  packets: string[],
  p: number[],
  rows: PowerRow[],
): Promise<string> {
  const runs = tasks.reduce((a, t) => a + t.n, 0);
  const raw = mean(tasks.map((t) => t.c / t.n));
  const never = tasks.filter((t) => t.c === 0).length;
  const registered = rows.find((r) => r.attempts === 3)!;
  const lines = [
    `Inputs: ${tasks.length} tasks, ${runs} scored runs in ${packets.length} real packets (${
      packets.join(", ")
    }); ` +
    `mean per-task pass rate ${
      (100 * raw).toFixed(1)
    }%, ${never} tasks never passed. Each task's rate is shrunk ` +
    `((passes + ½)/(runs + 1)) and shifted on the log-odds scale to the registered baseline, ` +
    `${(100 * mean(p)).toFixed(1)}% pass@1. Decision: H1's rule — the paired bootstrap (${DESIGN.iters} ` +
    `iterations, seed ${DESIGN.seed}) 95% percentile interval of the pass@1 difference lies above 0 ` +
    `(two-sided α 0.05). ${DESIGN.sims} simulated experiments per point (seed ${DESIGN.simSeed}); ` +
    "minimum detectable difference (MDE) at 80% power, in pass@1 points.",
    "",
    "| attempts per task | trials (4 arms) | MDE, uniform log-odds shift | MDE, rescue a share of failures | " +
    `power at ${pts(DESIGN.reference)} points (log-odds shift) | ` +
    `power at ${pts(TIME_AWARE_REFERENCE)} points, counted in time |`,
    "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.attempts} | ${r.trials.toLocaleString("en-US")} | ${pts(r.mdeShift)} | ${pts(r.mdeRescue)} | ` +
      `${(100 * r.powerAtReference).toFixed(0)}% | ${(100 * r.powerAtTimeAware).toFixed(0)}% |`
    ),
    "",
    `At the registered size (3 attempts, ${registered.trials} trials) H1 can show a gain of about ` +
    `${pts(Math.max(registered.mdeShift, registered.mdeRescue))} points or more with 80% power. The ` +
    `${pts(DESIGN.reference)}-point strict rescue bound from the discovery set is detected with ` +
    `${(100 * registered.powerAtReference).toFixed(0)}% power, so if the true effect is near that bound an ` +
    "inconclusive H1 is the likely outcome; it cannot show that the guard has no effect, nor an effect smaller " +
    "than the MDE. Counted in time (erratum 2026-12-04: a block counts only at or before the call that dooms " +
    `the check), the bound is ${DESIGN.timeAware.rescued} of ${DESIGN.timeAware.trials} trials, ` +
    `${pts(TIME_AWARE_REFERENCE)} points, detected with ${(100 * registered.powerAtTimeAware).toFixed(0)}% ` +
    "power: the checklist's replayed rescues alone are not what the registered size can show.",
    "",
    `<!-- power:inputs sha256=${inputsDigest(tasks)} -->`,
  ];
  const body = await formatMarkdown(lines.join("\n"));
  return `${body}\n<!-- power:body sha256=${bodyDigest(body)} -->`;
}

/** The pilot (protocol v3): critic against stock on every provider task, with 1 or 2 attempts. */
export const PILOT_DESIGN = {
  domain: PILOT_DOMAIN,
  arms: PILOT_ARMS,
  attempts: [1, 2],
  alpha: 0.05,
  /** The harness whose packets set stock's provider pass rate. */
  baselineAgent: "claude-code",
};

/** The provider tasks' runs over every packet, and each Claude Code packet's provider pass@1 (the baseline). */
export function pilotRuns(sets: string[] = PACKET_SETS): {
  tasks: TaskRuns[];
  packets: string[];
  baseline: { packet: string; rate: number }[];
} {
  const packets = packetTrials(sets).map((p) => ({
    ...p,
    trials: p.trials.filter((t) => t.domain === PILOT_DESIGN.domain),
  }));
  const rate = (tasks: TaskRuns[]) => mean(tasks.map((t) => t.c / t.n));
  return {
    tasks: runsByTask(packets.flatMap((p) => p.trials)),
    packets: packets.map((p) => p.id),
    baseline: packets
      .filter((p) => p.trials.length && p.trials.every((t) => t.agent === PILOT_DESIGN.baselineAgent))
      .map((p) => ({ packet: p.id, rate: rate(runsByTask(p.trials)) })),
  };
}

/** The pilot's cost for `attempts` on `tasks` provider tasks, by install experiments' estimator and reference. */
export async function pilotCost(
  attempts: number,
  tasks: number,
): Promise<{ trials: number; usd: number | null; second: number | null; basis: string; also: string }> {
  const prices = await parsePrices(readFileSync(join(ROOT, "data", "prices.yaml"), "utf8"));
  const table = JSON.parse(
    readFileSync(join(ROOT, "data", "reference_tokens.json"), "utf8"),
  ) as ReferenceTable;
  const model = DEFAULT_EXPERIMENT.model;
  const plan = {
    model,
    arms: DEFAULT_EXPERIMENT.arms.length,
    attempts: DEFAULT_EXPERIMENT.nAttempts,
    tasks: { [PILOT_DESIGN.domain]: tasks },
    pilot: { arms: PILOT_DESIGN.arms, domain: PILOT_DESIGN.domain, attempts },
  };
  const e = estimateCost(plan, pickReference(table, model, prices), prices, table.published);
  return {
    trials: e.pilot!.trials,
    usd: e.pilot!.usd,
    second: e.pilot!.second,
    basis: e.basis.source,
    also: e.second?.name ?? "none",
  };
}

/** One row of the pilot's table. */
export interface PilotRow {
  attempts: number;
  trials: number;
  /** On install experiments' basis, and the second estimate beside it. */
  cost: { usd: number | null; second: number | null; basis: string; also: string };
  boot: { shift: number | null; rescue: number | null };
  mcnemar: { shift: number | null; rescue: number | null };
  /** The chance of a go when critic changes nothing (the bootstrap rule at no effect). */
  falseGo: number;
}

/** The pilot's rows: MDE under both tests and both effect models, its cost, its false-go rate. */
export async function pilotRows(p: number[]): Promise<PilotRow[]> {
  // p holds one probability per provider task.
  const out: PilotRow[] = [];
  for (const k of PILOT_DESIGN.attempts) {
    const curve = (effect: Effect, test: Test) => powerCurve(p, k, effect, DESIGN.sims, test);
    const bootShift = curve(logOddsShift, "bootstrap");
    const cost = await pilotCost(k, p.length);
    out.push({
      attempts: k,
      trials: cost.trials,
      cost: { usd: cost.usd, second: cost.second, basis: cost.basis, also: cost.also },
      boot: {
        shift: minimumDetectableOrNull(bootShift, 6),
        rescue: minimumDetectableOrNull(curve(rescue, "bootstrap"), 1),
      },
      mcnemar: {
        shift: minimumDetectableOrNull(curve(logOddsShift, "mcnemar"), 6),
        rescue: minimumDetectableOrNull(curve(rescue, "mcnemar"), 1),
      },
      falseGo: bootShift(0).power,
    });
  }
  return out;
}

/** The digest of what the pilot section is computed from: provider runs, designs, prices, reference, script. */
export function pilotDigest(tasks: TaskRuns[], baseline: { packet: string; rate: number }[]): string {
  const source = readFileSync(fileURLToPath(import.meta.url), "utf8");
  const data = ["prices.yaml", "reference_tokens.json"].map((f) =>
    readFileSync(join(ROOT, "data", f), "utf8")
  );
  return createHash("sha256")
    .update(JSON.stringify({ tasks, baseline, design: DESIGN, pilot: PILOT_DESIGN }) + data.join("") + source)
    .digest("hex");
}

const money = (x: number | null) => x === null ? "unknown" : `$${Math.round(x).toLocaleString("en-US")}`;
const mde = (x: number | null) => x === null ? "not reached" : pts(x);

/** The generated pilot section's body (between its markers), digest lines included, formatted. */
export async function pilotSectionBody(
  run: ReturnType<typeof pilotRuns>,
  p: number[],
  rows: PilotRow[],
): Promise<string> {
  const runs = run.tasks.reduce((a, t) => a + t.n, 0);
  const base = mean(run.baseline.map((b) => b.rate));
  const one = rows[0];
  const lines = [
    `Inputs: the ${run.tasks.length} ${PILOT_DESIGN.domain} tasks, ${runs} scored runs in ${run.packets.length} ` +
    `real packets. Each task's rate is shrunk ((passes + ½)/(runs + 1)) and shifted on the log-odds scale to ` +
    `stock's provider pass@1, taken as the mean of the Claude Code packets' (${
      run.baseline.map((b) => `${b.packet} ${(100 * b.rate).toFixed(1)}%`).join(", ")
    }): ${
      (100 * mean(p)).toFixed(1)
    }%. Tests: the go rule — the protocol's paired bootstrap (${DESIGN.iters} ` +
    `iterations, seed ${DESIGN.seed}) 95% interval of critic − stock above 0 — and, reported beside it, ` +
    `McNemar's exact test on the discordant tasks (two-sided α ${PILOT_DESIGN.alpha}, more gained than lost; ` +
    "a task passes when at least half its attempts passed). " +
    `${DESIGN.sims} simulated pilots per point (seed ${DESIGN.simSeed}); minimum detectable difference (MDE) at ` +
    "80% power, in provider pass@1 points. Cost: the estimator and reference of `install experiments` at " +
    `${DEFAULT_EXPERIMENT.model}: ${one.cost.basis}, and in brackets ${one.cost.also}.`,
    "",
    `| attempts per task | trials (stock, critic) | cost (${one.cost.also}) |` +
    " MDE, go rule, log-odds shift | " +
    "MDE, go rule, rescue a share of failures | MDE, McNemar, log-odds shift | MDE, McNemar, rescue | go at no effect |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.attempts} | ${r.trials} | ${money(r.cost.usd)} (${money(r.cost.second)}) | ${
        mde(r.boot.shift)
      } | ` +
      `${mde(r.boot.rescue)} | ${mde(r.mcnemar.shift)} | ${mde(r.mcnemar.rescue)} | ` +
      `${(100 * r.falseGo).toFixed(1)}% |`
    ),
    "",
    `With one attempt (${one.trials} trials, about ${money(one.cost.usd)}) the pilot says go with 80% ` +
    `probability when the full guard raises provider pass@1 by about ${
      mde(Math.max(one.boot.shift ?? 1, one.boot.rescue ?? 1))
    } points or more over stock's ${(100 * base).toFixed(1)}%, and with ${
      (100 * one.falseGo).toFixed(1)
    }% when it changes nothing. A smaller true gain will more often end in no-go: the pilot cannot show that the ` +
    "guard has no effect, only that it did not show a provider gain of that size.",
    "",
    `<!-- pilot-power:inputs sha256=${pilotDigest(run.tasks, run.baseline)} -->`,
  ];
  const body = await formatMarkdown(lines.join("\n"));
  return `${body}\n<!-- pilot-power:body sha256=${bodyDigest(body)} -->`;
}

/** A generated section of the protocol: its markers. */
export interface Markers {
  begin: string;
  end: string;
}
/** The registered design's power section. */
export const POWER: Markers = {
  begin: "<!-- power:begin (generated by scripts/power.ts) -->",
  end: "<!-- power:end -->",
};
/** The pilot's section (protocol v3). */
export const PILOT_POWER: Markers = {
  begin: "<!-- pilot-power:begin (generated by scripts/power.ts) -->",
  end: "<!-- pilot-power:end -->",
};

/** The protocol with the section between its markers replaced; unchanged without markers. */
export function withSection(doc: string, body: string, m: Markers = POWER): string {
  const from = doc.indexOf(m.begin), to = doc.indexOf(m.end);
  if (from < 0 || to < from) return doc;
  return `${doc.slice(0, from + m.begin.length)}\n\n${body}\n\n${doc.slice(to)}`;
}

/** The section body currently in the protocol, or null without markers. */
export function currentBody(doc: string, m: Markers = POWER): string | null {
  const from = doc.indexOf(m.begin), to = doc.indexOf(m.end);
  return from < 0 || to < from ? null : doc.slice(from + m.begin.length, to).trim();
}

/** Entry: compute, print, and write the section into docs/EVALUATION_PROTOCOL.md (unless --stdout-only). */
export async function main(args: string[]): Promise<number> {
  const { tasks, packets } = taskRuns();
  if (tasks.length !== DESIGN.tasks) {
    console.error(
      `Cannot compute power: found ${tasks.length} tasks in ${
        PACKET_SETS.join(", ")
      }, expected ${DESIGN.tasks}. ` +
        "Put the real packets in ../shared.",
    );
    return 1;
  }
  const pilot = pilotRuns();
  if (!pilot.baseline.length) {
    console.error(
      `Cannot compute the pilot's power: no ${PILOT_DESIGN.baselineAgent} packet in ${
        PACKET_SETS.join(", ")
      }. ` +
        "Put the real packets in ../shared.",
    );
    return 1;
  }
  const p = calibrate(tasks, DESIGN.baseline);
  const body = await sectionBody(tasks, packets, p, powerRows(p));
  console.log(body);
  const q = calibrate(pilot.tasks, mean(pilot.baseline.map((b) => b.rate)));
  const pilotBody = await pilotSectionBody(pilot, q, await pilotRows(q));
  console.log(`\n${pilotBody}`);
  if (!args.includes("--stdout-only")) {
    let doc = readFileSync(PROTOCOL, "utf8");
    for (const [m, text] of [[POWER, body], [PILOT_POWER, pilotBody]] as const) {
      if (currentBody(doc, m) === null) {
        console.error(`Cannot write the power section: ${PROTOCOL} has no ${m.begin} … ${m.end} markers.`);
        return 1;
      }
      doc = withSection(doc, text, m);
    }
    writeFileSync(PROTOCOL, doc);
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
