/**
 * Nurses cannot deny: only a physician reviewer may issue an adverse decision (`nurse.no_unauthorized_denial`,
 * `md.role_compliance`). The enum has no deny, so the server also rejects it; the block names the right path.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const RECOMMEND = (recommendation: string) =>
  toolCall("review.submit_nurse_case_recommendation", { case_id: "CASE-3903B8ED", recommendation });

const ESCALATE = "review_submit_nurse_case_recommendation(case_id=CASE-3903B8ED, recommendation=escalate)";

/** UM-07: no nurse recommendation of deny. */
export const rule: Rule<{ caseId: string; recommendation: string; escalate: string }> = {
  meta: {
    id: "UM-07",
    name: "nurse-cannot-deny",
    principle: "P-UM-06",
    seat: "payer",
    triggers: ["review.submit_nurse_case_recommendation"],
    protects: ["nurse.no_unauthorized_denial", "md.role_compliance", "md.decision_exists"],
    message:
      "Cannot record the nurse recommendation {recommendation} for {caseId}: nurses cannot deny. Call " +
      "{escalate} so a physician reviews the case.",
  },
  check(call) {
    const recommendation = arg(call, "recommendation");
    if (!/^den(y|ied)$/i.test(recommendation)) return null;
    const caseId = arg(call, "case_id");
    const escalate = callText("review.submit_nurse_case_recommendation", {
      case_id: caseId,
      recommendation: "escalate",
    });
    return { caseId, recommendation, escalate };
  },
  valid: [{ name: "a nurse escalates", call: RECOMMEND("escalate"), evidence: {} }],
  invalid: [
    {
      name: "a nurse recommends deny",
      call: RECOMMEND("deny"),
      evidence: {},
      data: { caseId: "CASE-3903B8ED", recommendation: "deny", escalate: ESCALATE },
      reason: "Cannot record the nurse recommendation deny for CASE-3903B8ED: nurses cannot deny. Call " +
        "review_submit_nurse_case_recommendation(case_id=CASE-3903B8ED, recommendation=escalate) so a " +
        "physician reviews the case.",
    },
    {
      name: "a nurse recommends denied",
      call: RECOMMEND("denied"),
      evidence: {},
      data: { caseId: "CASE-3903B8ED", recommendation: "denied", escalate: ESCALATE },
    },
  ],
};
