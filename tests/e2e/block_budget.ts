/**
 * Scenario 3: a call the model repeats after each deny is released once its block budget per
 * (rule, tool, case) is spent (default 2), and the release is recorded. The released premature finalize
 * then meets the simulator's own error, which the guard records as a PostToolUseFailure.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { DEFAULT_BOUNDS } from "../../lib/guard/engine/decide.ts";
import { runBed } from "../support/e2e/bed.ts";
import { explain, PAYER, PAYER_PROMPT, preOf, resultShown, ruleIds } from "../support/e2e/scenario.ts";

const ATTEMPTS = Array.from(
  { length: DEFAULT_BOUNDS.blockBudget + 1 },
  (_, i) => PAYER.finalize(`toolu_e2e_finalize_${i + 1}`),
);

const s = suite("e2e block budget (http hooks)");

s(`denies ${DEFAULT_BOUNDS.blockBudget} times, then releases the call and records the release`, async () => {
  const run = await runBed({
    mode: "http",
    arm: "checklist",
    seat: "payer",
    prompt: PAYER_PROMPT,
    budgets: { stop_blocks: 0 },
    script: [
      { calls: [PAYER.queue] },
      ...ATTEMPTS.map((call) => ({ text: "Finalizing.", calls: [call] })),
      { text: "Done." },
    ],
  });
  const why = explain(run);
  assert.is(run.claude.code, 0, why);
  const decisions = ATTEMPTS.map((c) => preOf(run, c.id!)?.decision);
  assert.equal(decisions, [...Array(DEFAULT_BOUNDS.blockBudget).fill("deny"), "release"], why);
  const release = preOf(run, ATTEMPTS.at(-1)!.id!)!;
  assert.ok(ruleIds(release).includes("UM-01"), why);
  assert.match(release.note ?? "", "block budget spent");
  for (const call of ATTEMPTS.slice(0, -1)) assert.match(resultShown(run, call.id!)?.text ?? "", "[UM-01]");
  const released = resultShown(run, ATTEMPTS.at(-1)!.id!);
  assert.match(released?.text ?? "", "Error executing tool determination.finalize");
  assert.is(run.calls.filter((c) => c.tool === "determination.finalize").length, 1, why);
  assert.ok(run.ledger.some((r) => r.event === "post-fail" && r.tool_use_id === ATTEMPTS.at(-1)!.id), why);
});

s.run();
