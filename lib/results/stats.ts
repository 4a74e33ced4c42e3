/**
 * Pass-rate statistics over per-task outcomes: pass@1, unbiased pass^k and pass@k, task-level percentile
 * bootstrap CIs with a fixed-seed PRNG, a paired bootstrap of the pass@1 difference, and McNemar's exact test.
 */

/** One task's attempts: n trials, c of them passed. */
export interface TaskOutcome {
  task: string;
  n: number;
  c: number;
}

/** A point estimate with its 95% interval (null when there is nothing to estimate). */
export interface Estimate {
  value: number | null;
  lo: number | null;
  hi: number | null;
  n_tasks: number;
}

/** Bootstrap settings; chi-bench uses 1000 iterations and seed 0. */
export interface BootstrapOptions {
  iters?: number;
  seed?: number;
}

/** The binomial coefficient C(n, k) as a float (exact for the small n of a benchmark). */
export function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) r = r * (n - i + 1) / i;
  return r;
}

/** Unbiased per-task pass^k: the chance that k attempts drawn without replacement all pass, C(c,k)/C(n,k). */
export function passHatK(n: number, c: number, k: number): number {
  return choose(c, k) / choose(n, k);
}

/** Unbiased per-task pass@k: the chance that at least one of k attempts passes, 1 − C(n−c,k)/C(n,k). */
export function passAtK(n: number, c: number, k: number): number {
  return 1 - choose(n - c, k) / choose(n, k);
}

/** mulberry32: a small seeded PRNG, so every bootstrap is reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mean(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** The percentile interval of sorted bootstrap means, chi-bench's indices ([25], [974] for 1000 iters). */
function interval(sorted: number[]): [number, number] {
  const n = sorted.length;
  return [sorted[Math.floor(0.025 * n)], sorted[Math.max(0, Math.ceil(0.975 * n) - 1)]];
}

/** The mean of per-task values with a task-level percentile bootstrap CI (resampling tasks with replacement). */
export function bootstrapMean(values: number[], opts: BootstrapOptions = {}): Estimate {
  const n = values.length;
  if (n === 0) return { value: null, lo: null, hi: null, n_tasks: 0 };
  const iters = opts.iters ?? 1000;
  const rand = prng(opts.seed ?? 0);
  const means = new Float64Array(iters);
  for (let i = 0; i < iters; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += values[Math.floor(rand() * n)];
    means[i] = s / n;
  }
  const [lo, hi] = interval(Array.from(means).sort((a, b) => a - b));
  return { value: mean(values), lo, hi, n_tasks: n };
}

/** pass@1 = mean over tasks of c/n, with its bootstrap CI. */
export function passAt1(tasks: TaskOutcome[], opts: BootstrapOptions = {}): Estimate {
  return bootstrapMean(tasks.filter((t) => t.n > 0).map((t) => t.c / t.n), opts);
}

/** pass^k over tasks with n ≥ k, with its bootstrap CI. */
export function passHatKMean(tasks: TaskOutcome[], k: number, opts: BootstrapOptions = {}): Estimate {
  return bootstrapMean(tasks.filter((t) => t.n >= k).map((t) => passHatK(t.n, t.c, k)), opts);
}

/** pass@k over tasks with n ≥ k, with its bootstrap CI. */
export function passAtKMean(tasks: TaskOutcome[], k: number, opts: BootstrapOptions = {}): Estimate {
  return bootstrapMean(tasks.filter((t) => t.n >= k).map((t) => passAtK(t.n, t.c, k)), opts);
}

/** The largest k every estimator can use: the most attempts any task has. */
export function maxAttempts(tasks: TaskOutcome[]): number {
  return tasks.reduce((m, t) => Math.max(m, t.n), 0);
}

/** A paired pass@1 difference (arm − control) on shared tasks with its paired bootstrap CI. */
export interface PairedDiff {
  diff: number | null;
  lo: number | null;
  hi: number | null;
  n_shared: number;
}

/** Paired bootstrap of the pass@1 difference: resample shared tasks, keep each task's (arm, control) pair. */
export function pairedBootstrap(
  arm: TaskOutcome[],
  control: TaskOutcome[],
  opts: BootstrapOptions = {},
): PairedDiff {
  const byTask = new Map(control.filter((t) => t.n > 0).map((t) => [t.task, t.c / t.n]));
  const diffs = arm.filter((t) => t.n > 0 && byTask.has(t.task)).map((t) => t.c / t.n - byTask.get(t.task)!);
  const est = bootstrapMean(diffs, opts);
  return { diff: est.value, lo: est.lo, hi: est.hi, n_shared: diffs.length };
}

/** McNemar's exact test: two-sided binomial p for b and c discordant pairs, min(1, 2·P(X ≤ min(b,c))). */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const m = Math.min(b, c);
  let tail = 0;
  for (let i = 0; i <= m; i++) tail += choose(n, i);
  return Math.min(1, 2 * tail / 2 ** n);
}

/**
 * How a task's attempts become one outcome for McNemar: `single` when both arms have one attempt on every
 * shared task, else `half` — the protocol's reduction, a task passes when at least half its attempts passed.
 */
export type McNemarBasis = "single" | "half";

/** Per-task flips between two arms on shared tasks, with McNemar's exact p on them. */
export interface Flips {
  gained: string[];
  lost: string[];
  both: number;
  neither: number;
  /** Null only when the arms share no task. */
  p_mcnemar: number | null;
  p_mcnemar_basis: McNemarBasis;
}

/**
 * Tasks that flipped each way (gained: control failed, arm passed; lost: the reverse) and McNemar's exact p
 * on them. With several attempts a task counts as passed when at least half its attempts passed
 * (docs/EVALUATION_PROTOCOL.md, secondary test).
 */
export function flips(arm: TaskOutcome[], control: TaskOutcome[]): Flips {
  const ctl = new Map(control.map((t) => [t.task, t]));
  const out: Flips = {
    gained: [],
    lost: [],
    both: 0,
    neither: 0,
    p_mcnemar: null,
    p_mcnemar_basis: "single",
  };
  let shared = 0;
  for (const t of arm) {
    const u = ctl.get(t.task);
    if (!u || t.n === 0 || u.n === 0) continue;
    shared++;
    if (t.n !== 1 || u.n !== 1) out.p_mcnemar_basis = "half";
    const a = t.c / t.n >= 0.5, b = u.c / u.n >= 0.5;
    if (a && !b) out.gained.push(t.task);
    else if (!a && b) out.lost.push(t.task);
    else if (a) out.both++;
    else out.neither++;
  }
  out.gained.sort();
  out.lost.sort();
  if (shared) out.p_mcnemar = mcnemarExact(out.gained.length, out.lost.length);
  return out;
}

/**
 * Holm's step-down adjustment of a family of p-values (Holm 1979), in the input's order: the i-th smallest
 * p is multiplied by (m − i), running maxima keep the order, capped at 1. Nulls stay null and are not counted.
 */
export function holm(ps: readonly (number | null)[]): (number | null)[] {
  const order = ps.map((p, i) => [p, i] as const).filter((x): x is readonly [number, number] => x[0] !== null)
    .sort((a, b) => a[0] - b[0]);
  const out: (number | null)[] = ps.map(() => null);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (order.length - rank) * p));
    out[i] = running;
  });
  return out;
}

/** The protocol's decision on a paired difference: its 95% interval above 0, below 0, or spanning it. */
export type Decision = "improves" | "harms" | "inconclusive";

/** The decision rule of H1–H3 (docs/EVALUATION_PROTOCOL.md): improves when lo > 0, harms when hi < 0. */
export function decide(d: { lo: number | null; hi: number | null }): Decision | null {
  if (d.lo === null || d.hi === null) return null;
  return d.lo > 0 ? "improves" : d.hi < 0 ? "harms" : "inconclusive";
}
