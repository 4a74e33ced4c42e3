/**
 * Scenario 1: a premature `determination_finalize` (no MD decision, nurse approval or P2P outcome yet) is
 * denied with the rule ID (UM-01) and the fix, the model's next request carries that reason, and after the
 * scripted fix (the signed MD decision) the same call goes through. Both hook modes.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MODES, runBed } from "../support/e2e/bed.ts";
import {
  deliverShownLetter,
  explain,
  PAYER,
  PAYER_CASE,
  PAYER_PROMPT,
  preOf,
  resultShown,
  ruleIds,
} from "../support/e2e/scenario.ts";

const EARLY = PAYER.finalize("toolu_e2e_finalize_early");
const FIXED = PAYER.finalize("toolu_e2e_finalize_fixed");

for (const mode of MODES) {
  const s = suite(`e2e premature terminal call (${mode} hooks)`);

  s("UM-01 denies with the fix, the model is shown it, the call passes after the fix", async () => {
    const run = await runBed({
      mode,
      arm: "checklist",
      seat: "payer",
      prompt: PAYER_PROMPT,
      script: [
        { text: "Finding the case.", calls: [PAYER.queue] },
        { calls: [PAYER.mdData] },
        { text: "Finalizing the approval.", calls: [EARLY] },
        { text: "Recording the signed MD decision first.", calls: [PAYER.decide] },
        { calls: [FIXED] },
        { calls: [PAYER.letter] },
        deliverShownLetter,
        { text: "Approved and the letter is delivered." },
      ],
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);

    const denied = preOf(run, EARLY.id!);
    assert.is(denied?.decision, "deny", why);
    assert.ok(ruleIds(denied).includes("UM-01"), why);

    const shown = resultShown(run, EARLY.id!);
    assert.ok(shown, `the model never saw a result for the denied call; ${why}`);
    assert.is(shown.is_error, true);
    assert.match(shown.text, "[UM-01]");
    assert.match(shown.text, "review_submit_md_case_decision");
    assert.match(shown.text, PAYER_CASE);

    assert.is(preOf(run, FIXED.id!)?.decision, "allow", why);
    const accepted = resultShown(run, FIXED.id!);
    assert.ok(accepted && !accepted.is_error && accepted.text.includes("AUTH-CASE-3903B8ED-"), why);
    assert.is(
      run.calls.filter((c) => c.tool === "determination.finalize").length,
      1,
      `the denied call must never reach the server; ${why}`,
    );
    assert.ok(run.ledger.some((r) => r.event === "post" && r.tool_use_id === FIXED.id), why);
    assert.equal(run.ledger.filter((r) => r.event === "pre" && r.decision === "deny").length, 1, why);
  });

  s.run();
}
