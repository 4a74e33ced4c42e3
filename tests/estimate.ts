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
    domains: { cm: 5.75 },
    source: "x",
  }],
};
const PLAN = { model: "anthropic/claude-opus-5", arms: 4, attempts: 3, tasks: { cm: 25 } };
const PILOT = { ...PLAN, pilot: { arms: ["stock", "critic"], domain: "cm", attempts: 2 } };

s(
  "the default reference: the model's own Claude Code packet, else the newest priced one of its vendor",
  () => {
    assert.is(pickReference(TABLE, "anthropic/claude-opus-5", PRICES).reference.id, "2026-07-06-sonnet-5");
    assert.match(
      pickReference(TABLE, "anthropic/claude-opus-5", PRICES).why,
      /no Claude Code packet of anthropic\/claude-opus-5 has its trials at hand; 2026-07-06-sonnet-5 is/,
    );
    assert.is(pickReference(TABLE, "anthropic/claude-opus-4-8", PRICES).reference.id, "2026-05-28-opus-4-8");
    assert.is(
      pickReference({ ...TABLE, packets: [TABLE.packets[0]] }, "x/y", PRICES).reference.id,
      TABLE.packets[0].id,
    );
  },
);

s("one basis per stage: the published per-domain rate, the reference's tokens beside it", () => {
  const e = estimateCost(PILOT, pickReference(TABLE, PLAN.model, PRICES), PRICES, TABLE.published);
  // Tokens: (1M uncached × 5 + 40k × 25 + 1M cached × 0.5) / 1e6 = 5 + 1 + 0.5 per trial.
  assert.equal([e.basis.kind, e.basis.perTrial.cm, e.second!.kind, e.second!.perTrial.cm], [
    "published",
    5.75,
    "tokens",
    6.5,
  ]);
  assert.equal([e.smoke.trials, e.smoke.usd, e.smoke.second], [4, 23, 26]);
  assert.equal([e.pilot!.trials, e.pilot!.usd, e.pilot!.second], [100, 575, 650]);
  assert.equal([e.first!.trials, e.first!.usd, e.first!.second], [104, 598, 676]);
  assert.equal([e.full.trials, e.full.usd, e.full.second], [300, 1725, 1950]);
  const lines = estimateLines(e, PILOT, "prices.yaml");
  assert.match(lines[0], /anthropic\/claude-opus-5 at \$5\/\$25\/\$0\.5 .*\(prices\.yaml\)\.$/);
  assert.match(
    lines[1],
    /^ {2}basis, the published rate: the mean cost per trial the p packet publishes per domain \(x\), the same model and harness; per trial: cm \$5\.75\.$/,
  );
  assert.match(
    lines[2],
    /^ {2}beside it, the reference's tokens: mean token use per trial in submissions\/2026-07-06-sonnet-5 \(recipe B\) at anthropic\/claude-opus-5's prices, because .*; per trial: cm \$6\.50\.$/,
  );
  assert.is(
    lines[3],
    "  smoke: 4 trials (4 arms × 1 domains × 1 task × 1 attempt) ≈ $23 (the reference's tokens: $26)",
  );
  assert.is(
    lines[4],
    "  pilot: 100 trials (stock vs critic × 25 cm tasks × 2 attempts) ≈ $575 (the reference's tokens: $650)",
  );
  assert.is(
    lines[5],
    "  run.sh pilot runs the smoke run, then the pilot: 104 trials ≈ $598 (the reference's tokens: $676) in all, the first spend.",
  );
  assert.match(
    lines[6],
    /^ {2}full: {2}300 trials .* ≈ \$1,725 \(the reference's tokens: \$1,950\), only when named after a go\.$/,
  );
  // --reference: the reference's tokens are the basis, the published rate beside them.
  const tokens = estimateCost(PLAN, pickReference(TABLE, PLAN.model, PRICES), PRICES, TABLE.published, {
    tokensFirst: true,
  });
  assert.equal([tokens.basis.kind, tokens.full.usd, tokens.full.second], ["tokens", 1950, 1725]);
});

s("no published rate of the model: the reference's tokens alone, nothing beside them", () => {
  const plan = { ...PLAN, model: "anthropic/claude-sonnet-5" };
  const e = estimateCost(plan, pickReference(TABLE, plan.model, PRICES), PRICES, TABLE.published);
  assert.equal([e.basis.kind, e.second, e.full.second], ["tokens", null, null]);
  assert.not.match(estimateLines(e, plan, "prices.yaml").join("\n"), /beside it|\(the /);
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

s("a domain neither basis knows is unknown, not $0, and says why", () => {
  const empty: Reference = { ...ref("x", "anthropic/claude-sonnet-5"), domains: {} };
  const plan = { ...PLAN, tasks: { cm: 25, pa_um: 25 } };
  const e = estimateCost(plan, { reference: empty, why: "test" }, PRICES, TABLE.published);
  assert.equal([e.basis.perTrial.pa_um, e.second!.perTrial.cm, e.full.usd, e.full.second], [
    null,
    null,
    null,
    null,
  ]);
  const text = estimateLines(e, plan, "prices.yaml").join("\n");
  assert.match(text, /full: {2}600 trials .* ≈ unknown \(the reference's tokens: unknown\)/);
  assert.match(
    text,
    /x has no trials with token counts for cm, pa_um, so the reference's tokens there are unknown, not \$0/,
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
