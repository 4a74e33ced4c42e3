/**
 * Finalize after the peer-to-peer, not before: once the MD chose `p2p_review` (or the task starts at the P2P
 * stage), the determination must wait for the recorded P2P outcome. Never fired in the discovery runs.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { p2pNextStep, withP2pRequest } from "../lib/guard/engine/next_ids.ts";

const FINALIZE = toolCall("determination.finalize", { case_id: "CASE-3903B8ED", decision: "denied" });
const P2P_REVIEW = toolCall("review.submit_md_case_decision", {
  case_id: "CASE-3903B8ED",
  decision: "p2p_review",
}, { result: { p2p_request: { id: "P2P-5439b781", case_id: "CASE-3903B8ED", status: "requested" } } });

/** UM-03: no determination.finalize while a P2P review is pending without a recorded outcome. */
export const rule: Rule<{ caseId: string; next: string }> = {
  meta: {
    id: "UM-03",
    fromAbsence: true,
    name: "p2p-before-finalize",
    principle: "P-UM-10",
    seat: "payer",
    triggers: ["determination.finalize"],
    protects: [
      "p2p.result_recorded",
      "outcome.p2p_outcome_matches",
      "p2p.determination_matches_contract",
      "p2p.audit",
      "outcome.target_status",
    ],
    message: "Cannot finalize {caseId}: the case is pending peer-to-peer review and no P2P outcome is " +
      "recorded. The P2P's next step: {next}; record its outcome with p2p_session_submit_summary once the " +
      "conversation has happened, then finalize.",
  },
  check(call, evidence) {
    const pending = evidence.phase === "p2p" ||
      okOnCase(evidence, "review.submit_md_case_decision", call.input).some((c) =>
        c.input.decision === "p2p_review"
      );
    if (!pending) return null;
    const recorded = evidence.calls.some((c) =>
      c.ok && (c.tool === "p2p.record_outcome" || c.tool === "p2p_session.submit_summary")
    );
    if (recorded) return null;
    const caseId = arg(call, "case_id");
    return { caseId, next: withP2pRequest(evidence, caseId, (request) => p2pNextStep(evidence, request)) };
  },
  valid: [
    { name: "no P2P review pending", call: FINALIZE, evidence: { calls: [] } },
    {
      name: "the P2P summary is recorded",
      call: FINALIZE,
      evidence: {
        calls: [P2P_REVIEW, toolCall("p2p_session.submit_summary", { request_id: "P2P-5439b781" })],
      },
    },
  ],
  invalid: [{
    name: "a P2P review pending without an outcome",
    call: FINALIZE,
    evidence: { calls: [P2P_REVIEW] },
    data: {
      caseId: "CASE-3903B8ED",
      next:
        "people_list_reviewer_contacts(), then p2p_offer_slots(request_id=P2P-5439b781, payer_contact_id=<the " +
        "contact it returns>, slots=[<open slots>])",
    },
    reason: "Cannot finalize CASE-3903B8ED: the case is pending peer-to-peer review and no P2P outcome is " +
      "recorded. The P2P's next step: people_list_reviewer_contacts(), then p2p_offer_slots(request_id=" +
      "P2P-5439b781, payer_contact_id=<the contact it returns>, slots=[<open slots>]); record its outcome with " +
      "p2p_session_submit_summary once the conversation has happened, then finalize.",
  }],
};
