/**
 * Scenario 5: plan arm. The role plan for the seat and phase detected from the task prompt is injected at
 * UserPromptSubmit and reaches the model in its first request; nothing is denied.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { rolePlan } from "../../lib/guard/engine/plan.ts";
import { MODES, runBed } from "../support/e2e/bed.ts";
import { requestText } from "../support/e2e/model_server.ts";
import { explain, PAYER, PAYER_PROMPT, records } from "../support/e2e/scenario.ts";

for (const mode of MODES) {
  const s = suite(`e2e plan arm (${mode} hooks)`);

  s("the payer role plan is in the model's first request", async () => {
    const run = await runBed({
      mode,
      arm: "plan",
      seat: "payer",
      prompt: PAYER_PROMPT,
      script: [{ calls: [PAYER.queue] }, { text: "Done." }],
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    const context = records(run, "prompt", "context");
    assert.is(context.length, 1, why);
    const plan = context[0].reason ?? "";
    assert.is(plan, rolePlan("payer", "mdreview"), why);
    assert.match(plan, "fiable-agent role plan");
    const first = requestText(run.main[0].body);
    assert.ok(
      first.includes(JSON.stringify(plan).slice(1, -1)),
      `the plan is not in the first request; ${why}`,
    );
    assert.is(records(run, "pre", "deny").length, 0, why);
    // Claude Code runs SessionStart hooks of type command only (hooks.md §3.7): http mode records none.
    if (mode === "command") assert.is(records(run, "session-start").length, 1, why);
  });

  s.run();
}
