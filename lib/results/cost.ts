/**
 * Per-trial cost and walltime under the three aggregation recipes behind published χ-Bench numbers
 * (harness.md §5.3), with prices in chi-bench's `prices.yaml` format (USD per 1M tokens).
 *
 * - A: chi-bench HEAD. cost = n_cache · cache (input/output read from keys Harbor never writes), walltime 0,
 *   an unpriced model costs 0 — reproduced as chi-bench does it, and reported as unpriced.
 * - B: cost = ((input − cache)·input + output·output + cache·cache)/1e6, walltime = agent_execution.
 * - C: cost = (input·input + output·output + cache·cache)/1e6 (cache counted twice), walltime = whole trial.
 * Under B and C an unpriced model's cost is unknown (null), never 0.
 */
import type { TrialSummary } from "./trials.ts";

/** An aggregation recipe. */
export type Recipe = "A" | "B" | "C";
/** The recipes, for CLI validation. */
export const RECIPES: Recipe[] = ["A", "B", "C"];
/** What each recipe computes, in one line (the CLI usage and the aggregate report quote it). */
export const RECIPE_NOTES: Record<Recipe, string> = {
  A: "chi-bench's public aggregator: cache-read tokens × cache price, walltime 0",
  B: "uncached input + output + cache-read tokens at list prices, walltime = agent execution",
  C: "all input + output + cache-read tokens at list prices (cache counted twice), walltime = whole trial",
};

/** One model's prices in USD per 1M tokens; `cache` is the cache-read rate. */
export interface Price {
  input: number;
  output: number;
  cache: number;
}

/** Prices keyed by `provider/name`. */
export type Prices = Record<string, Price>;

function rate(value: unknown, what: string, model: string): number {
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
    throw new Error(
      `Cannot read price ${model}.${what}: ${JSON.stringify(value)} is not a non-negative number.`,
    );
  }
  return n;
}

/** Prices from a parsed prices.yaml (`{prices: {model: {input, output, cache?}}}`); cache defaults to 0.1·input. */
export function pricesFrom(data: unknown): Prices {
  const table = (data as Record<string, unknown> | null)?.prices;
  if (!table || typeof table !== "object") {
    throw new Error(
      "Cannot read prices: no top-level `prices:` map. Use chi-bench's configs/prices.yaml format.",
    );
  }
  const out: Prices = {};
  for (const [model, entry] of Object.entries(table as Record<string, Record<string, unknown>>)) {
    const input = rate(entry?.input ?? 0, "input", model);
    out[model] = {
      input,
      output: rate(entry?.output ?? 0, "output", model),
      cache: entry?.cache === undefined || entry?.cache === null
        ? 0.1 * input
        : rate(entry.cache, "cache", model),
    };
  }
  return out;
}

/** Parses prices.yaml text. */
export async function parsePrices(text: string): Promise<Prices> {
  const { parse } = await import("yaml");
  return pricesFrom(parse(text));
}

/** A trial's cost under a recipe; null when the model has no price (B, C) or the trial is unreadable. */
export function trialCost(trial: TrialSummary, recipe: Recipe, prices: Prices): number | null {
  const price = trial.model ? prices[trial.model] : undefined;
  const input = trial.tokens.input ?? 0, cache = trial.tokens.cache ?? 0, output = trial.tokens.output ?? 0;
  if (recipe === "A") return price ? cache * price.cache / 1e6 : 0;
  if (!price) return null;
  if (recipe === "B") {
    return ((input - cache) * price.input + output * price.output + cache * price.cache) / 1e6;
  }
  return (input * price.input + output * price.output + cache * price.cache) / 1e6;
}

/** A trial's walltime in seconds under a recipe; null when the needed timestamps are missing. */
export function trialWalltime(trial: TrialSummary, recipe: Recipe): number | null {
  if (recipe === "A") return 0;
  return (recipe === "B" ? trial.agentExecution : trial.trial).seconds;
}

/** Agent execution seconds, whatever the recipe (the honest walltime for an arm study). */
export function agentSeconds(trial: TrialSummary): number | null {
  return trialWalltime(trial, "B");
}
