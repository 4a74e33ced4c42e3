/** Cost and walltime recipes A, B, C (harness.md §5.3) on hand numbers; unpriced models are never silently 0. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parsePrices, pricesFrom, type Recipe, trialCost, trialWalltime } from "../lib/results/cost.ts";
import { spanOf, type TrialSummary } from "../lib/results/trials.ts";

const s = suite("cost");
const PRICES = pricesFrom({ prices: { "anthropic/claude-sonnet-5": { input: 3, output: 15, cache: 0.3 } } });

function trial(model: string | null): TrialSummary {
  return {
    model,
    readable: true,
    unreadable: null,
    tokens: { input: 1_000_000, cache: 800_000, output: 10_000 },
    trial: spanOf("2026-07-22T04:15:01.679309Z", "2026-07-22T04:19:38.407706Z"),
    agentExecution: spanOf("2026-07-22T04:16:00.411349Z", "2026-07-22T04:18:03.381787Z"),
  } as TrialSummary;
}

// sonnet-5 prices, 1M input of which 800k cached, 10k output.
const COST: [Recipe, string | null, number | null][] = [
  ["A", "anthropic/claude-sonnet-5", 0.24], // cache only: 0.8M × 0.3
  ["B", "anthropic/claude-sonnet-5", 0.6 + 0.15 + 0.24], // 0.2M × 3 + 10k × 15 + 0.8M × 0.3
  ["C", "anthropic/claude-sonnet-5", 3 + 0.15 + 0.24], // cache counted twice
  ["A", "anthropic/claude-opus-4-8", 0], // chi-bench counts an unpriced model at 0
  ["B", "anthropic/claude-opus-4-8", null],
  ["C", null, null],
];
for (const [recipe, model, want] of COST) {
  s(`recipe ${recipe}, ${model}: cost ${want}`, () => {
    const got = trialCost(trial(model), recipe, PRICES);
    if (want === null) assert.is(got, null);
    else assert.ok(got !== null && Math.abs(got - want) < 1e-12, `${got}`);
  });
}

const WALL: [Recipe, number][] = [["A", 0], ["B", 122.970438], ["C", 276.728397]];
for (const [recipe, want] of WALL) {
  s(`recipe ${recipe}: walltime ${want} s, microseconds kept`, () => {
    assert.ok(Math.abs(trialWalltime(trial(null), recipe)! - want) < 1e-9);
  });
}

s("a missing cache price defaults to 0.1 × input, as chi-bench does", () => {
  assert.equal(pricesFrom({ prices: { m: { input: 2, output: 8 } } }).m, { input: 2, output: 8, cache: 0.2 });
});

s("a bad price names the model and field", () => {
  assert.throws(
    () => pricesFrom({ prices: { m: { input: "cheap", output: 1 } } }),
    /Cannot read price m\.input/,
  );
  assert.throws(() => pricesFrom({ rates: {} }), /no top-level `prices:` map/);
});

s("the repo prices file parses and carries chi-bench's sonnet-5 row", async () => {
  const text = await Deno.readTextFile(new URL("../data/prices.yaml", import.meta.url));
  assert.equal((await parsePrices(text))["anthropic/claude-sonnet-5"], { input: 3, output: 15, cache: 0.3 });
});

s.run();
