/** fiable-agent e2e: a payer MD-review task runs to completion, held by the closure gate until the letter exists. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cleanup, explainRun, runAgentBed } from "../support/agent_bed.ts";
import { lastToolResults, type MessagesRequest } from "../support/e2e/model_server.ts";
import { PAYER_PROMPT } from "../support/e2e/scenario.ts";

const CASE = "CASE-3903B8ED";

/** The letter id from the last tool result the model was shown. */
function letterId(body: MessagesRequest): string {
  const text = lastToolResults(body).map((r) => r.text).join("\n");
  return /"id":"(LET-[0-9a-f]+)"/.exec(text)?.[1] ?? "LET-missing";
}

const SCRIPT = [
  { calls: [{ name: "payer_intake_hub_list_intake_queue", input: {}, id: "toolu_queue" }] },
  { calls: [{ name: "review_get_md_review_data", input: { case_id: CASE }, id: "toolu_read" }] },
  {
    calls: [{
      name: "review_submit_md_case_decision",
      input: {
        case_id: CASE,
        decision: "approve",
        signed_off: true,
        determination_rationale:
          "Criterion C1 met: six weeks of failed conservative care are documented in the chart.",
      },
      id: "toolu_md",
    }],
  },
  { calls: [{ name: "determination_get_summary", input: { case_id: CASE }, id: "toolu_summary" }] },
  {
    calls: [{
      name: "determination_finalize",
      input: { case_id: CASE, decision: "approved", rationale: "MD approved; criteria C1 met." },
      id: "toolu_final",
    }],
  },
  { text: "The determination is finalized. Done." },
  {
    calls: [{ name: "payer_letter_center_generate_approval", input: { case_id: CASE }, id: "toolu_letter" }],
  },
  (body: MessagesRequest) => ({
    calls: [{
      name: "payer_letter_center_audit_completeness",
      input: { letter_id: letterId(body) },
      id: "toolu_audit",
    }],
  }),
  (body: MessagesRequest) => ({
    calls: [{
      name: "payer_letter_center_deliver",
      input: {
        letter_id: /"letter_id":"(LET-[0-9a-f]+)"/.exec(JSON.stringify(body.messages))?.[1] ?? "LET-missing",
      },
      id: "toolu_send",
    }],
  }),
  { text: "Approval letter generated and delivered. Done." },
];

const s = suite("e2e/agent_payer");

s("a payer task runs to completion under the checklist arm, gate held until the letter", async () => {
  const run = await runAgentBed({ seat: "payer", prompt: PAYER_PROMPT, script: SCRIPT });
  try {
    const why = explainRun(run);
    assert.is(run.code, 0, why);
    assert.is(run.summary?.stop_reason, "end_turn", why);
    assert.equal(
      run.calls.map((c) => c.tool),
      [
        "payer_intake_hub.list_intake_queue",
        "review.get_md_review_data",
        "review.submit_md_case_decision",
        "determination.get_summary",
        "determination.finalize",
        "payer_letter_center.generate_approval",
        "payer_letter_center.audit_completeness",
        "payer_letter_center.deliver",
      ],
      why,
    );
    assert.ok(run.calls.every((c) => !c.error), why);
    // The closure gate blocked the first stop; its reason reached the model as the next user message.
    const blocks = run.ledger.filter((r) => r.event === "stop" && r.decision === "block");
    assert.is(blocks.length, 1, why);
    assert.match(blocks[0].reason ?? "", /UM-LETTER/);
    const afterBlock = run.main[6].body.messages.at(-1);
    assert.is(afterBlock?.role, "user");
    assert.is((afterBlock?.content as { text: string }[])[0].text, blocks[0].reason);
    // The letter was generated only after the block, and the final stop was allowed.
    const order = run.ledger.map((r) => `${r.event}:${r.decision}:${r.tool ?? ""}`);
    const blockAt = order.indexOf("stop:block:");
    const letterAt = order.indexOf("post:record:payer_letter_center.generate_approval");
    assert.ok(blockAt >= 0 && letterAt > blockAt, why);
    assert.is(run.ledger.at(-1)?.event, "stop");
    assert.is(run.ledger.at(-1)?.decision, "allow");
    // The role plan is in the system prompt of every turn.
    assert.match(
      JSON.stringify(run.main[0].body.system),
      /role plan: payer utilization management \(entry phase: mdreview\)/,
    );
    // The model saw flattened names and the trajectory records every call with its result.
    assert.ok(run.main[0].body.tools?.some((t) => t.name === "determination_finalize"));
    const calls = run.trajectory.steps.flatMap((st) => st.tool_calls ?? []);
    assert.is(calls.length, 8);
    assert.is(run.trajectory.schema_version, "ATIF-v1.7");
    assert.is(run.trajectory.final_metrics.extra.stop_reason, "end_turn");
  } finally {
    cleanup(run);
  }
});

s.run();
