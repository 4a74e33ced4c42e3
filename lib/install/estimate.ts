/**
 * The ablation's cost before anything runs: trials × mean cost per trial per domain, where the mean comes
 * from a reference packet's token use (recipe B: uncached input, output and cache reads, harness.md §5.3)
 * priced at the run's model in prices.yaml. A model without a price has an unknown cost, never $0.
 * Reference token means ship in data/reference_tokens.json (scripts/reference_tokens.ts makes it from the
 * real packets); any trial tree can stand in with --reference DIR.
 */
import type { Price, Prices } from "../results/cost.ts";
import type { TrialSummary } from "../results/trials.ts";

/** Mean tokens per scored trial in one domain of a reference. */
export interface ReferenceDomain {
  trials: number;
  input: number;
  cache: number;
  output: number;
}

/** A reference: where its trials came from and their mean token use per domain. */
export interface Reference {
  id: string;
  /** Where the trials are: a public packet or a local dir. */
  source: string;
  agent: string;
  model: string;
  domains: Record<string, ReferenceDomain>;
}

/** A published mean cost per trial for a model, cited. */
export interface Published {
  id: string;
  agent: string;
  model: string;
  mean_cost_usd: number;
  source: string;
}

/** data/reference_tokens.json. */
export interface ReferenceTable {
  generated_by: string;
  packets: Reference[];
  published: Published[];
}

/** What the estimate covers: arms × tasks per domain × attempts, and the pilot. */
export interface EstimatePlan {
  model: string;
  arms: number;
  attempts: number;
  /** Tasks per domain in the full run (the smoke run takes one per domain, one attempt). */
  tasks: Record<string, number>;
  /** The pilot: its arms, on every task of one domain, with its attempts. */
  pilot?: { arms: string[]; domain: string; attempts: number };
}

/** One stage's trials and its two estimates: the reference's tokens, and the published mean cost per trial. */
export interface StageCost {
  trials: number;
  /** The reference's tokens at the model's prices; null when unknown. */
  usd: number | null;
  /** trials × the published mean cost per trial of the model's Claude Code packet; null without one. */
  published: number | null;
}

/** The estimate and its basis, ready to print. */
export interface CostEstimate {
  reference: Reference;
  why: string;
  price: Price | null;
  perTrial: Record<string, number | null>;
  pilot: StageCost | null;
  smoke: StageCost;
  full: StageCost;
  published: Published | null;
}

/**
 * Mean tokens per scored trial per domain, from trial summaries (a packet or a local dir). Trials without
 * token counts are left out, and a domain with none is absent: its cost is unknown, not $0.
 */
export function referenceFrom(id: string, source: string, trials: TrialSummary[]): Reference {
  const domains: Record<string, ReferenceDomain> = {};
  const named = trials.filter((t) => t.verified);
  const scored = named.filter((t) =>
    (t.tokens.input ?? 0) + (t.tokens.cache ?? 0) + (t.tokens.output ?? 0) > 0
  );
  for (const domain of [...new Set(scored.map((t) => t.domain))].sort()) {
    const ts = scored.filter((t) => t.domain === domain);
    const mean = (f: (t: TrialSummary) => number | null) =>
      ts.reduce((n, t) => n + (f(t) ?? 0), 0) / ts.length;
    domains[domain] = {
      trials: ts.length,
      input: mean((t) => t.tokens.input),
      cache: mean((t) => t.tokens.cache),
      output: mean((t) => t.tokens.output),
    };
  }
  const one = (values: (string | null)[]) =>
    [...new Set(values.filter(Boolean))].sort().join("+") || "unknown";
  return {
    id,
    source,
    agent: one(named.map((t) => t.agent)),
    model: one(named.map((t) => t.model)),
    domains,
  };
}

/**
 * The default reference for a model: its own Claude Code packet when there is one, else the most recent
 * Claude Code packet of the same vendor whose model is priced, else the most recent Claude Code packet.
 */
export function pickReference(
  table: ReferenceTable,
  model: string,
  prices: Prices,
): { reference: Reference; why: string } {
  const cc = table.packets.filter((p) => p.agent === "claude-code").sort((a, b) => a.id < b.id ? 1 : -1);
  const same = cc.find((p) => p.model === model);
  if (same) return { reference: same, why: `the Claude Code packet of ${model} itself` };
  const vendor = model.split("/")[0];
  const near = cc.find((p) => p.model.startsWith(`${vendor}/`) && Object.hasOwn(prices, p.model)) ?? cc[0];
  if (!near) throw new Error("Cannot estimate the cost: the reference table has no Claude Code packet.");
  return {
    reference: near,
    why: `no Claude Code packet of ${model} is at hand; ${near.id} is the most recent priced Claude Code ` +
      `packet of the same vendor (same harness and tasks), its tokens priced at ${model}'s rates`,
  };
}

function cost(d: ReferenceDomain, p: Price): number {
  return ((d.input - d.cache) * p.input + d.output * p.output + d.cache * p.cache) / 1e6;
}

/** The smoke and full-run cost of a plan from a reference's token use at the plan model's prices. */
export function estimateCost(
  plan: EstimatePlan,
  ref: { reference: Reference; why: string },
  prices: Prices,
  published: Published[] = [],
): CostEstimate {
  const price = Object.hasOwn(prices, plan.model) ? prices[plan.model] : null;
  const perTrial: Record<string, number | null> = {};
  for (const domain of Object.keys(plan.tasks)) {
    const d = ref.reference.domains[domain];
    perTrial[domain] = price && d ? cost(d, price) : null;
  }
  const rate = published.find((p) => p.model === plan.model && p.agent === "claude-code") ?? null;
  const sum = (trialsOf: (domain: string) => number): StageCost => {
    let usd: number | null = 0, trials = 0;
    for (const domain of Object.keys(plan.tasks)) {
      const n = trialsOf(domain);
      if (!n) continue;
      trials += n;
      usd = usd === null || perTrial[domain] === null ? null : usd + n * perTrial[domain]!;
    }
    return { trials, usd: price ? usd : null, published: rate ? rate.mean_cost_usd * trials : null };
  };
  const pilot = plan.pilot;
  return {
    ...ref,
    price,
    perTrial,
    pilot: pilot
      ? sum((domain) => domain === pilot.domain ? pilot.arms.length * plan.tasks[domain] * pilot.attempts : 0)
      : null,
    smoke: sum(() => plan.arms),
    full: sum((domain) => plan.arms * plan.tasks[domain] * plan.attempts),
    published: rate,
  };
}

/** The headline of a stage: the higher of its two estimates, then the lower (null when unknown). */
export function headline(
  c: StageCost,
): { high: number | null; low: number | null; highIs: "tokens" | "published" } {
  if (c.usd === null || c.published === null) {
    return { high: c.usd ?? c.published, low: null, highIs: c.usd === null ? "published" : "tokens" };
  }
  return c.published >= c.usd
    ? { high: c.published, low: c.usd, highIs: "published" }
    : { high: c.usd, low: c.published, highIs: "tokens" };
}

function usd(value: number): string {
  return `$${Math.round(value).toLocaleString("en-US")}`;
}

const BASIS = { tokens: "from the reference's tokens", published: "at the published rate" } as const;

function stageLine(name: string, c: StageCost, what: string): string {
  const h = headline(c);
  if (h.high === null) return `  ${name} ${c.trials} trials (${what}) ≈ unknown`;
  const other = h.highIs === "tokens" ? "published" : "tokens";
  const low = h.low !== null
    ? `; ≈ ${usd(h.low)} ${BASIS[other]}`
    : c.usd === null
    ? `; unknown ${BASIS.tokens}`
    : "";
  return `  ${name} ${c.trials} trials (${what}) ≈ ${usd(h.high)} ${BASIS[h.highIs]}${low}`;
}

/**
 * The estimate as lines for the terminal and for the run script's header: per stage the higher of the two
 * estimates first (the published packet's mean cost per trial, or the reference's tokens at the model's
 * prices), then the lower, then the basis of each.
 */
export function estimateLines(e: CostEstimate, plan: EstimatePlan, pricesName: string): string[] {
  const total = Object.values(plan.tasks).reduce((a, b) => a + b, 0);
  const domains = Object.keys(plan.tasks).length;
  if (!e.price) {
    return [
      `Cost estimate: unknown. ${plan.model} has no price in ${pricesName}; add it there (USD per 1M input, ` +
      "output and cache-read tokens) to get one. It is not $0.",
    ];
  }
  const p = e.price;
  const missing = Object.keys(plan.tasks).filter((d) => !e.reference.domains[d]);
  const lines = [
    `Cost estimate, before anything runs: ${plan.model} at $${p.input}/$${p.output}/$${p.cache} per 1M input/` +
    `output/cache-read tokens (${pricesName}); each stage's higher estimate first.`,
  ];
  if (e.pilot && plan.pilot) {
    const tasks = plan.tasks[plan.pilot.domain];
    const attempts = `${plan.pilot.attempts} attempt${plan.pilot.attempts === 1 ? "" : "s"}`;
    lines.push(
      stageLine(
        "pilot:",
        e.pilot,
        `${plan.pilot.arms.join(" vs ")} × ${tasks} ${plan.pilot.domain} tasks × ${attempts}`,
      ),
    );
  }
  lines.push(
    stageLine("smoke:", e.smoke, `${plan.arms} arms × ${domains} domains × 1 task × 1 attempt`),
    stageLine("full: ", e.full, `${plan.arms} arms × ${total} tasks × ${plan.attempts} attempts`),
  );
  if (e.published) {
    lines.push(
      `  published rate: the ${e.published.id} packet's $${e.published.mean_cost_usd.toFixed(2)} per trial ` +
        `(${e.published.source}), the same model and harness. Guarded arms can cost more (blocked calls and ` +
        "stop-gate rounds add turns); budget for the higher figure.",
    );
  }
  lines.push(
    `  reference's tokens: mean token use per trial in ${e.reference.source} (recipe B), because ${e.why}; ` +
      `per trial: ${
        Object.entries(e.perTrial).map(([d, c]) => `${d} ${c === null ? "unknown" : `$${c.toFixed(2)}`}`)
          .join(", ")
      }.`,
  );
  if (missing.length) {
    lines.push(
      `  unknown for ${
        missing.join(", ")
      }: the reference has no trials with token counts there, so the cost ` +
        "is unknown, not $0. Pass --reference with trials that record tokens.",
    );
  }
  return lines;
}
