/**
 * An MCP result over Claude Code's limit, then a call on an id from its tail, with each pinned version whose
 * handling differs: 2.1.139 and 2.1.219 pass the PostToolUse hook the whole result, 2.1.332 only the notice
 * naming the saved file (the guard then reads that file). Either way the id reaches the evidence, so the
 * call that uses it is allowed (GLOBAL-02 would deny an id never seen), and the model itself was shown the
 * notice, not the result.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { runBed } from "../support/e2e/bed.ts";
import { OVERSIZED_RESULT_VERSIONS } from "../support/e2e/claude_version.ts";
import { explain, PAYER, PAYER_CASE, PAYER_PROMPT, preOf, resultShown } from "../support/e2e/scenario.ts";

/** A queue of about 420 KB (the issue measured 418 KB) whose target case comes last. */
function bigQueue(): unknown {
  const filler = Array.from({ length: 2400 }, (_, i) => ({
    case_id: `CASE-${(0x10000000 + i).toString(16).toUpperCase()}`,
    intake_case_id: `INTAKE-${(0x20000000 + i).toString(16).toUpperCase()}`,
    patient_id: `PAT-${(0x30000000 + i).toString(16).toUpperCase()}`,
    status: "submitted",
    summary: "Routine outpatient request awaiting intake review; no clinical documents attached yet.",
  }));
  const target = { case_id: PAYER_CASE, intake_case_id: "INTAKE-457D5541", patient_id: "PAT-968308DB" };
  return { result: [...filler, { ...target, status: "submitted" }] };
}

const QUEUE = { ...PAYER.queue, id: "toolu_e2e_big_queue" };
const DECIDE = { ...PAYER.decide, id: "toolu_e2e_decide_tail" };
const NOTICE = /exceeds maximum allowed tokens|Output too large/;

const RUNS: { version: string; mode: "http" | "command" }[] = [
  ...OVERSIZED_RESULT_VERSIONS.map((version) => ({ version, mode: "http" as const })),
  { version: OVERSIZED_RESULT_VERSIONS.at(-1)!, mode: "command" },
];

for (const { version, mode } of RUNS) {
  const s = suite(`e2e oversized MCP result (Claude Code ${version}, ${mode} hooks)`);

  s("a call on an id from the tail of a saved result is allowed", async () => {
    const run = await runBed({
      mode,
      arm: "checklist",
      seat: "payer",
      prompt: PAYER_PROMPT,
      claudeVersion: version,
      budgets: { stop_blocks: 0 },
      handlers: { "payer_intake_hub.list_intake_queue": bigQueue },
      script: [
        { text: "Finding the case.", calls: [QUEUE] },
        { text: "Recording the MD decision on the last case of the queue.", calls: [DECIDE] },
        { text: "Done." },
      ],
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    const shown = resultShown(run, QUEUE.id!);
    assert.ok(shown && NOTICE.test(shown.text), `the model was shown the whole result; ${why}`);
    assert.not.ok(shown.text.includes(PAYER_CASE), "the target case must be beyond the notice's preview");
    const post = run.ledger.find((r) => r.event === "post" && r.tool_use_id === QUEUE.id);
    assert.ok(post?.ids?.includes(PAYER_CASE), `the target case never reached the evidence; ${why}`);
    assert.not.ok(post?.degraded, why);
    assert.is(preOf(run, DECIDE.id!)?.decision, "allow", why);
    assert.is(run.calls.filter((c) => c.tool === "review.submit_md_case_decision").length, 1, why);
  });

  s.run();
}
