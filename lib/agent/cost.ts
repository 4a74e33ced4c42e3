/** Token prices and the cost of one Messages API response, in USD. */

/** Prices in USD per million tokens; `cacheWrite` defaults to 1.25 × input. */
export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite?: number;
}

/** Token usage as the Messages API reports it. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Known prices (chi-bench configs/prices.yaml, plus the fitted opus-5 and fable-5 prices of recipe B). */
export const PRICES: Record<string, Price> = {
  "claude-opus-5": { input: 5, output: 25, cacheRead: 0.5 },
  "claude-fable-5": { input: 10, output: 50, cacheRead: 1 },
  "claude-sonnet-5": { input: 3, output: 15, cacheRead: 0.3 },
  "claude-opus-4-7": { input: 5, output: 25, cacheRead: 0.5 },
  "claude-opus-4-6": { input: 5, output: 25, cacheRead: 0.5 },
  "claude-sonnet-4-6": { input: 3, output: 15, cacheRead: 0.3 },
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1 },
};

/** The price used for a model missing from the table: the dearest common one, so a ceiling still holds. */
export const FALLBACK_PRICE: Price = { input: 5, output: 25, cacheRead: 0.5 };

/** The price of a model (`anthropic/` prefix and date suffix ignored) and whether it was known. */
export function priceOf(model: string): { price: Price; known: boolean } {
  const bare = model.replace(/^anthropic\//, "").replace(/-\d{8}$/, "");
  const price = PRICES[bare];
  return price ? { price, known: true } : { price: FALLBACK_PRICE, known: false };
}

/** Parses `--prices input,output,cacheRead` (USD per million tokens). */
export function parsePrice(text: string): Price {
  const parts = text.split(",").map((p) => Number(p.trim()));
  if (parts.length !== 3 || parts.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(
      `Cannot use prices "${text}": expected three non-negative numbers. Write input,output,cacheRead, e.g. 3,15,0.3.`,
    );
  }
  return { input: parts[0], output: parts[1], cacheRead: parts[2] };
}

/** The USD cost of one response's usage. */
export function costOf(usage: Usage, price: Price): number {
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  return (usage.input_tokens * price.input + usage.output_tokens * price.output + read * price.cacheRead +
    write * (price.cacheWrite ?? price.input * 1.25)) / 1e6;
}
