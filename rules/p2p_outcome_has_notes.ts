/**
 * A recorded P2P outcome carries its notes: `outcome.p2p_has_notes` reads the request's notes, which only
 * the `note` of `p2p_record_outcome` (or the summary of `p2p_session_submit_summary`) writes.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { idArg } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { contactFor, grounded } from "../lib/guard/engine/next_ids.ts";

const RECORD = (note?: string) =>
  toolCall("p2p.record_outcome", {
    request_id: "P2P-5439b781",
    outcome: "overturn_to_approval",
    ...(note === undefined ? {} : { note }),
  });

/** UM-17: no P2P outcome without a note (or a summary) stating what the discussion established. */
export const rule: Rule<{ tool: string; requestId: string; field: string; again: string }> = {
  meta: {
    id: "UM-17",
    name: "p2p-outcome-has-notes",
    seat: "payer",
    triggers: ["p2p.record_outcome", "p2p_session.submit_summary"],
    protects: ["outcome.p2p_has_notes", "judge.p2p:summary_fidelity"],
    message: "Cannot call {tool} for {requestId}: {field} is empty. Call {again} with your other arguments " +
      "as they are.",
  },
  check(call, evidence) {
    const field = call.tool === "p2p.record_outcome" ? "note" : "summary";
    if (arg(call, field)) return null;
    const requestId = idArg(call.input, "request_id");
    const given = idArg(call.input, "payer_contact_id");
    const contact = call.tool === "p2p.record_outcome"
      ? (given && grounded(evidence, given) ? given : contactFor(evidence, requestId) || given)
      : "";
    const again = callText(call.tool, {
      request_id: requestId,
      ...(contact ? { payer_contact_id: contact } : {}),
      [field]: "<the blocker, what the discussion established and why the outcome follows>",
    });
    return { tool: call.tool.replace(".", "_"), requestId, field, again };
  },
  valid: [{
    name: "an outcome with a note of what was established",
    call: RECORD("Provider supplied PT notes showing 12 weeks failed; criterion 2 now met."),
    evidence: {},
  }],
  invalid: [
    {
      name: "an outcome with no note",
      call: RECORD(),
      evidence: {},
      data: {
        tool: "p2p_record_outcome",
        requestId: "P2P-5439b781",
        field: "note",
        again:
          "p2p_record_outcome(request_id=P2P-5439b781, note=<the blocker, what the discussion established " +
          "and why the outcome follows>)",
      },
    },
    {
      name: "a summary of blanks only",
      call: toolCall("p2p_session.submit_summary", { request_id: "P2P-5439b781", summary: " " }),
      evidence: {},
      data: {
        tool: "p2p_session_submit_summary",
        requestId: "P2P-5439b781",
        field: "summary",
        again:
          "p2p_session_submit_summary(request_id=P2P-5439b781, summary=<the blocker, what the discussion " +
          "established and why the outcome follows>)",
      },
      reason: "Cannot call p2p_session_submit_summary for P2P-5439b781: summary is empty. Call " +
        "p2p_session_submit_summary(request_id=P2P-5439b781, summary=<the blocker, what the discussion " +
        "established and why the outcome follows>) with your other arguments as they are.",
    },
  ],
};
