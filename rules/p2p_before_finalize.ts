/**
 * Finalize after the peer-to-peer, not before: once the MD chose `p2p_review` (or the task starts at the P2P
 * stage), the determination must wait for the recorded P2P outcome. Never fired in the discovery runs.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";

const FINALIZE = toolCall("determination.finalize", { case_id: "CASE-3903B8ED", decision: "denied" });
const P2P_REVIEW = toolCall("review.submit_md_case_decision", {
  case_id: "CASE-3903B8ED",
  decision: "p2p_review",
});

/** UM-03: no determination.finalize while a P2P review is pending without a recorded outcome. */
export const rule: Rule<{ caseId: string }> = {
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
      "recorded. Conduct the P2P (p2p_offer_slots, p2p_schedule, p2p_session_send_turn) and record it with " +
      "p2p_session_submit_summary or p2p_record_outcome, then finalize.",
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
    return recorded ? null : { caseId: arg(call, "case_id") };
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
    data: { caseId: "CASE-3903B8ED" },
  }],
};
