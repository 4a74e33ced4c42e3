/**
 * Nurses cannot deny: only a physician reviewer may issue an adverse decision (`nurse.no_unauthorized_denial`,
 * `md.role_compliance`). The enum has no deny, so the server also rejects it; the block names the right path.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";

const RECOMMEND = (recommendation: string) =>
  toolCall("review.submit_nurse_case_recommendation", { case_id: "CASE-3903B8ED", recommendation });

/** UM-07: no nurse recommendation of deny. */
export const rule: Rule<{ caseId: string; recommendation: string }> = {
  meta: {
    id: "UM-07",
    name: "nurse-cannot-deny",
    principle: "P-UM-06",
    seat: "payer",
    triggers: ["review.submit_nurse_case_recommendation"],
    protects: ["nurse.no_unauthorized_denial", "md.role_compliance", "md.decision_exists"],
    message:
      "Cannot record the nurse recommendation {recommendation} for {caseId}: nurses cannot deny. Call " +
      "review_submit_nurse_case_recommendation with recommendation=escalate so a physician reviews the case.",
  },
  check(call) {
    const recommendation = arg(call, "recommendation");
    return /^den(y|ied)$/i.test(recommendation) ? { caseId: arg(call, "case_id"), recommendation } : null;
  },
  valid: [{ name: "a nurse escalates", call: RECOMMEND("escalate"), evidence: {} }],
  invalid: [
    {
      name: "a nurse recommends deny",
      call: RECOMMEND("deny"),
      evidence: {},
      data: { caseId: "CASE-3903B8ED", recommendation: "deny" },
    },
    {
      name: "a nurse recommends denied",
      call: RECOMMEND("denied"),
      evidence: {},
      data: { caseId: "CASE-3903B8ED", recommendation: "denied" },
    },
  ],
};
