/**
 * The guard's facts for the readers (verify, aggregate, the dashboard, `deno task packet`), loaded when used:
 * lib/results/guard_facts.ts holds the one zod schema, and an entry must import no npm package before
 * lib/packages.ts can install them, so readers load it once (`loadFactsReader`) and then read synchronously.
 */
import type { FactsRead } from "./guard_facts.ts";

export { FACTS_KEY } from "./guard_facts_key.ts";

let reader: ((result: unknown, path: string) => FactsRead) | undefined;

/** Loads the facts' schema (and zod with it); every entry that reads trials calls it once. */
export async function loadFactsReader(): Promise<void> {
  reader ??= (await import("./guard_facts.ts")).factsIn;
}

/** The guard's facts in a parsed result.json, checked against the schema (see `factsIn`). */
export function readGuardFacts(result: unknown, path: string): FactsRead {
  if (!reader) {
    throw new Error(
      `Cannot read the guard's facts in ${path}: the facts reader is not loaded. Call loadFactsReader() ` +
        "(lib/results/guard_facts_reader.ts) before reading trials.",
    );
  }
  return reader(result, path);
}
