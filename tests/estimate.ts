/**
 * The cost estimate: arithmetic on a hand-made reference, the default reference and why, an unpriced model,
 * and data/reference_tokens.json up to date with the real packets.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  estimateCost,
  estimateLines,
  headline,
  pickReference,
  type Reference,
  type ReferenceTable,
} from "../lib/install/estimate.ts";
import { OUTPUT, PACKET_SETS, referenceTable, tableText } from "../scripts/reference_tokens.ts";

const s = suite("estimate");
const PRICES = {
  "anthropic/claude-opus-5": { input: 5, output: 25, cache: 0.5 },
  "anthropic/claude-sonnet-5": { input: 3, output: 15, cache: 0.3 },
};
const ref = (id: string, model: string, agent = "claude-code"): Reference => ({
  id,
  source: `submissions/${id}`,
  agent,
  model,
  domains: { cm: { trials: 25, input: 2_000_000, cache: 1_000_000, output: 40_000 } },
});
const TABLE: ReferenceTable = {
  generated_by: "test",
  packets: [
    ref("2026-05-28-opus-4-8", "anthropic/claude-opus-4-8"),
    ref("2026-07-06-sonnet-5", "anthropic/claude-sonnet-5"),
    ref("2026-07-24-sol-codex", "openai/gpt-5.6-sol", "codex"),
  ],
  published: [{
    id: "p",
    agent: "claude-code",
    model: "anthropic/claude-opus-5",
    mean_cost_usd: 4.79,
    source: "x",
  }],
};
const PLAN = { model: "anthropic/claude-opus-5", arms: 4, attempts: 3, tasks: { cm: 25 } };

s(
  "the default reference: the model's own Claude Code packet, else the newest priced one of its vendor",
  () => {
    assert.is(pickReference(TABLE, "anthropic/claude-opus-5", PRICES).reference.id, "2026-07-06-sonnet-5");
    assert.match(pickReference(TABLE, "anthropic/claude-opus-5", PRICES).why, /no Claude Code packet of/);
    assert.is(pickReference(TABLE, "anthropic/claude-opus-4-8", PRICES).reference.id, "2026-05-28-opus-4-8");
    assert.is(
      pickReference({ ...TABLE, packets: [TABLE.packets[0]] }, "x/y", PRICES).reference.id,
      TABLE.packets[0].id,
    );
  },
);

s("trials × mean cost per trial: recipe B on the reference's tokens at the model's prices", () => {
  const e = estimateCost(PLAN, pickReference(TABLE, PLAN.model, PRICES), PRICES, TABLE.published);
  // (1M uncached × 5 + 40k × 25 + 1M cached × 0.5) / 1e6 = 5 + 1 + 0.5
  assert.is(e.perTrial.cm, 6.5);
  assert.equal([e.smoke.trials, e.smoke.usd, e.full.trials, e.full.usd], [4, 26, 300, 1950]);
  assert.equal([e.full.published, headline(e.full)], [1437, { high: 1950, low: 1437, highIs: "tokens" }]);
  const lines = estimateLines(e, PLAN, "prices.yaml");
  assert.match(lines[0], /anthropic\/claude-opus-5 at \$5\/\$25\/\$0\.5/);
  assert.match(
    lines[2],
    /full: {2}300 trials .* ≈ \$1,950 from the reference's tokens; ≈ \$1,437 at the published rate$/,
  );
  assert.match(lines.join("\n"), /published rate: the p packet's \$4\.79 per trial/);
});

s("the pilot: its arms on every task of its domain; the higher estimate leads", () => {
  const plan = { ...PLAN, pilot: { arms: ["stock", "critic"], domain: "cm", attempts: 2 } };
  const cheap = { ...TABLE.published[0], mean_cost_usd: 10 };
  const e = estimateCost(plan, pickReference(TABLE, plan.model, PRICES), PRICES, [cheap]);
  assert.equal([e.pilot!.trials, e.pilot!.usd, e.pilot!.published], [100, 650, 1000]);
  assert.match(
    estimateLines(e, plan, "prices.yaml")[1],
    /^ {2}pilot: 100 trials \(stock vs critic × 25 cm tasks × 2 attempts\) ≈ \$1,000 at the published rate; ≈ \$650 from the reference's tokens$/,
  );
});

s("a model without a price has an unknown cost, not $0", () => {
  const plan = { ...PLAN, model: "acme/mystery-1" };
  const e = estimateCost(plan, pickReference(TABLE, plan.model, PRICES), PRICES);
  assert.equal([e.price, e.full.usd, e.smoke.usd], [null, null, null]);
  assert.match(
    estimateLines(e, plan, "prices.yaml")[0],
    /unknown\. acme\/mystery-1 has no price .* It is not \$0/,
  );
});

s("a reference whose trials carry no token counts gives unknown, not $0", () => {
  const empty: Reference = { ...ref("x", "anthropic/claude-sonnet-5"), domains: {} };
  const e = estimateCost(PLAN, { reference: empty, why: "test" }, PRICES);
  assert.equal([e.perTrial.cm, e.full.usd], [null, null]);
  assert.match(
    estimateLines(e, PLAN, "prices.yaml").join("\n"),
    /unknown for cm: the reference has no trials with token counts/,
  );
});

s("data/reference_tokens.json is up to date with the real packets", () => {
  if (!PACKET_SETS.some(existsSync)) {
    console.warn(`skipped: ${PACKET_SETS.join(", ")} absent (needs ../shared beside the repo)`);
    return;
  }
  assert.ok(
    readFileSync(OUTPUT, "utf8") === tableText(referenceTable()!),
    "data/reference_tokens.json is stale: run `deno run -A scripts/reference_tokens.ts`",
  );
});

s("the shipped default for opus-5 is the sonnet-5 Claude Code packet", () => {
  const table = JSON.parse(
    readFileSync(join(import.meta.dirname!, "..", "data", "reference_tokens.json"), "utf8"),
  );
  const prices = { ...PRICES };
  assert.is(
    pickReference(table, "anthropic/claude-opus-5", prices).reference.id,
    "2026-07-06-sonnet-5-claude-code",
  );
});

s.run();
