/** The prices every cost is computed at: this repository's data/prices.yaml, or the one `--prices` names. */
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { type Prices, pricesFrom } from "../../lib/results/cost.ts";

/** The prices this repository ships (chi-bench's prices.yaml format). */
export const PRICES_FILE = join(import.meta.dirname ?? ".", "..", "..", "data", "prices.yaml");

/** Prices from a prices.yaml, or an empty table with why (costs then show as unknown). */
export function loadPrices(path = PRICES_FILE): { prices: Prices; note: string | null } {
  try {
    return { prices: pricesFrom(parseYaml(readFileSync(path, "utf8"))), note: null };
  } catch (err) {
    return {
      prices: {},
      note: `Cannot read prices ${path}: ${
        (err as Error).message
      }. Costs show as unknown; pass --prices FILE.`,
    };
  }
}
