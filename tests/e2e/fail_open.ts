/**
 * Scenario 4: fail-open. With the test-only fault switch (FIABLE_FAULT, on PreToolUse only) the guard
 * crashes, or hangs past its time budget (profile budgets.decision_ms); the premature finalize it would have
 * denied reaches the server, and each failure is an `error` record in the ledger.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MODES, runBed } from "../support/e2e/bed.ts";
import { explain, PAYER, PAYER_PROMPT, records, resultShown } from "../support/e2e/scenario.ts";

const EARLY = PAYER.finalize("toolu_e2e_finalize_early");

const FAULTS = [
  { kind: "crash" as const, note: "internal error", budgets: { stop_blocks: 0 } },
  {
    kind: "hang" as const,
    note: "time budget of 300 ms overrun",
    budgets: { decision_ms: 300, stop_blocks: 0 },
  },
];

for (const mode of MODES) {
  const s = suite(`e2e fail-open (${mode} hooks)`);

  for (const fault of FAULTS) {
    s(`a guard ${fault.kind} lets the call it would deny proceed, and is recorded`, async () => {
      const run = await runBed({
        mode,
        arm: "checklist",
        seat: "payer",
        prompt: PAYER_PROMPT,
        script: [{ calls: [PAYER.queue] }, { calls: [EARLY] }, { text: "Done." }],
        fault: { kind: fault.kind, event: "pre" },
        budgets: fault.budgets,
      });
      const why = explain(run);
      assert.is(run.claude.code, 0, why);
      assert.is(run.calls.filter((c) => c.tool === "determination.finalize").length, 1, why);
      assert.match(resultShown(run, EARLY.id!)?.text ?? "", "Error executing tool determination.finalize");
      const errors = records(run, "pre", "error");
      assert.is(errors.length, 2, why);
      errors.forEach((r) => assert.match(r.note ?? "", fault.note));
      assert.is(records(run, "pre", "deny").length, 0, why);
    });
  }

  s.run();
}
