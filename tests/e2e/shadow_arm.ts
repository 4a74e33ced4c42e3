/**
 * Scenario 6: shadow arm. Nothing is blocked: the premature finalize reaches the server and the stop with an
 * open obligation ends the run, yet each would-be deny and block is in the ledger as a `shadow` record.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { runBed } from "../support/e2e/bed.ts";
import { explain, PAYER, PAYER_PROMPT, preOf, records, ruleIds } from "../support/e2e/scenario.ts";

const EARLY = PAYER.finalize("toolu_e2e_finalize_early");

const s = suite("e2e shadow arm (http hooks)");

s("would-be deny and stop block are recorded as shadow; the call proceeds and the run ends", async () => {
  const run = await runBed({
    mode: "http",
    arm: "shadow",
    seat: "payer",
    prompt: PAYER_PROMPT,
    script: [{ calls: [PAYER.queue] }, { calls: [EARLY] }, { text: "Done." }],
  });
  const why = explain(run);
  assert.is(run.claude.code, 0, why);
  const rec = preOf(run, EARLY.id!);
  assert.is(rec?.decision, "shadow", why);
  assert.ok(ruleIds(rec).includes("UM-01"), why);
  assert.is(run.calls.filter((c) => c.tool === "determination.finalize").length, 1, why);
  const stops = records(run, "stop");
  assert.equal(stops.map((r) => r.decision), ["shadow"], why);
  assert.ok(stops[0].obligations?.some((o) => o.startsWith("UM-DETERMINATION")), why);
  assert.is(run.main.length, 3, `the stop was not blocked; ${why}`);
  assert.is(run.ledger.filter((r) => r.decision === "deny" || r.decision === "block").length, 0, why);
});

s.run();
