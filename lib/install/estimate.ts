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

/** A published mean cost per trial for a model, overall and per domain, cited. */
export interface Published {
  id: string;
  agent: string;
  model: string;
  mean_cost_usd: number;
  /** The packet's results.csv mean_cost_usd per domain (the pilot is priced at its provider rate). */
  domains: Record<string, number>;
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

/** One way to price a trial: a cost per trial per domain (null: unknown), its name and where it comes from. */
export interface Basis {
  kind: "published" | "tokens";
  /** How a line names it: "the published rate" or "the reference's tokens". */
  name: string;
  /** Where its figures come from, in a sentence's words. */
  source: string;
  perTrial: Record<string, number | null>;
}

/** One stage's trials (per domain) and its cost on each basis; null when unknown. */
export interface StageCost {
  trials: number;
  perDomain: Record<string, number>;
  /** On the estimate's basis. */
  usd: number | null;
  /** On the second basis; null when there is none or it is unknown. */
  second: number | null;
}

/** The estimate: its basis and the second one beside it, and every stage priced on both. */
export interface CostEstimate {
  reference: Reference;
  why: string;
  price: Price | null;
  basis: Basis;
  second: Basis | null;
  smoke: StageCost;
  pilot: StageCost | null;
  full: StageCost;
  /** What `run.sh pilot` spends in all: the smoke run, then the pilot. */
  first: StageCost | null;
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
    why: `no Claude Code packet of ${model} has its trials at hand; ${near.id} is the most recent priced ` +
      `Claude Code packet of the same vendor whose trials are (same harness and tasks)`,
  };
}

function cost(d: ReferenceDomain, p: Price): number {
  return ((d.input - d.cache) * p.input + d.output * p.output + d.cache * p.cache) / 1e6;
}

/** A stage's trials per domain priced on a basis: null when any domain it runs is unknown. */
function priced(perDomain: Record<string, number>, basis: Basis | null): number | null {
  if (!basis) return null;
  let usd = 0;
  for (const [domain, n] of Object.entries(perDomain)) {
    const rate = basis.perTrial[domain];
    if (n && (rate === null || rate === undefined)) return null;
    usd += n * (rate ?? 0);
  }
  return usd;
}

function stage(perDomain: Record<string, number>, basis: Basis, second: Basis | null): StageCost {
  const trials = Object.values(perDomain).reduce((a, b) => a + b, 0);
  return { trials, perDomain, usd: priced(perDomain, basis), second: priced(perDomain, second) };
}

function sum(a: StageCost, b: StageCost): StageCost {
  const add = (x: number | null, y: number | null) => x === null || y === null ? null : x + y;
  const perDomain = { ...a.perDomain };
  for (const [d, n] of Object.entries(b.perDomain)) perDomain[d] = (perDomain[d] ?? 0) + n;
  return { trials: a.trials + b.trials, perDomain, usd: add(a.usd, b.usd), second: add(a.second, b.second) };
}

/**
 * Every stage's cost on one basis, with the second beside it. The basis is the published per-domain cost of
 * the model's own Claude Code packet when there is one (the pilot at its provider rate), else the reference's
 * tokens at the model's prices; `--reference` (`tokensFirst`) makes the reference's tokens the basis.
 */
export function estimateCost(
  plan: EstimatePlan,
  ref: { reference: Reference; why: string },
  prices: Prices,
  published: Published[] = [],
  opts: { tokensFirst?: boolean } = {},
): CostEstimate {
  const price = Object.hasOwn(prices, plan.model) ? prices[plan.model] : null;
  const domains = Object.keys(plan.tasks);
  const tokens: Basis = {
    kind: "tokens",
    name: "the reference's tokens",
    source: `mean token use per trial in ${ref.reference.source} (recipe B) at ${plan.model}'s prices, ` +
      `because ${ref.why}`,
    perTrial: Object.fromEntries(domains.map((domain) => {
      const d = ref.reference.domains[domain];
      return [domain, price && d ? cost(d, price) : null];
    })),
  };
  const rate = published.find((p) => p.model === plan.model && p.agent === "claude-code");
  const rates: Basis | null = rate
    ? {
      kind: "published",
      name: "the published rate",
      source: `the mean cost per trial the ${rate.id} packet publishes per domain (${rate.source}), ` +
        "the same model and harness",
      perTrial: Object.fromEntries(domains.map((d) => [d, rate.domains[d] ?? null])),
    }
    : null;
  const [basis, second] = rates && !opts.tokensFirst ? [rates, tokens] : [tokens, rates];
  const perDomain = (n: (domain: string) => number) => Object.fromEntries(domains.map((d) => [d, n(d)]));
  const pilot = plan.pilot;
  const smoke = stage(perDomain(() => plan.arms), basis, second);
  const pilotCost = pilot
    ? stage(
      perDomain((d) => d === pilot.domain ? pilot.arms.length * plan.tasks[d] * pilot.attempts : 0),
      basis,
      second,
    )
    : null;
  return {
    ...ref,
    price,
    basis,
    second,
    smoke,
    pilot: pilotCost,
    full: stage(perDomain((d) => plan.arms * plan.tasks[d] * plan.attempts), basis, second),
    first: pilotCost ? sum(smoke, pilotCost) : null,
  };
}

/** Whole dollars with thousands separators, or "unknown" (never $0 for a missing price). */
export function usd(value: number | null): string {
  return value === null ? "unknown" : `$${Math.round(value).toLocaleString("en-US")}`;
}

/** A stage's cost as one phrase: the basis figure, the second in brackets with its name. */
export function costPhrase(c: StageCost, e: CostEstimate): string {
  const second = e.second ? ` (${e.second.name}: ${usd(c.second)})` : "";
  return `≈ ${usd(c.usd)}${second}`;
}

function perTrialText(b: Basis): string {
  return Object.entries(b.perTrial).map(([d, c]) => `${d} ${c === null ? "unknown" : `$${c.toFixed(2)}`}`)
    .join(", ");
}

/**
 * The estimate as lines for the terminal, the run script and the experiments README: the basis and the second
 * estimate with their per-domain rates, then each stage in the order run.sh runs them with the first command's
 * total (smoke + pilot), one basis per figure.
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
  const lines = [
    `Cost estimate, before anything runs: ${plan.model} at $${p.input}/$${p.output}/$${p.cache} per 1M input/` +
    `output/cache-read tokens (${pricesName}).`,
    `  basis, ${e.basis.name}: ${e.basis.source}; per trial: ${perTrialText(e.basis)}.`,
  ];
  if (e.second) {
    lines.push(`  beside it, ${e.second.name}: ${e.second.source}; per trial: ${perTrialText(e.second)}.`);
  }
  lines.push(
    `  smoke: ${e.smoke.trials} trials (${plan.arms} arms × ${domains} domains × 1 task × 1 attempt) ` +
      costPhrase(e.smoke, e),
  );
  if (e.pilot && plan.pilot && e.first) {
    const tasks = plan.tasks[plan.pilot.domain];
    const attempts = `${plan.pilot.attempts} attempt${plan.pilot.attempts === 1 ? "" : "s"}`;
    lines.push(
      `  pilot: ${e.pilot.trials} trials (${plan.pilot.arms.join(" vs ")} × ${tasks} ${plan.pilot.domain} ` +
        `tasks × ${attempts}) ${costPhrase(e.pilot, e)}`,
      `  run.sh pilot runs the smoke run, then the pilot: ${e.first.trials} trials ${
        costPhrase(e.first, e)
      } ` +
        "in all, the first spend.",
    );
  }
  lines.push(
    `  full:  ${e.full.trials} trials (${plan.arms} arms × ${total} tasks × ${plan.attempts} attempts) ` +
      `${costPhrase(e.full, e)}, only when named after a go.`,
    "  Guarded arms can cost more than these (blocked calls and stop-gate rounds add turns).",
  );
  const missing = Object.keys(plan.tasks).filter((d) => !e.reference.domains[d]);
  if (missing.length) {
    lines.push(
      `  ${e.reference.id} has no trials with token counts for ${missing.join(", ")}, so ` +
        `${e.basis.kind === "tokens" ? "the estimate" : "the reference's tokens"} there ${
          missing.length > 1 ? "are" : "is"
        } unknown, not $0. Pass --reference with trials that record tokens.`,
    );
  }
  return lines;
}
