/**
 * A final MD decision is signed: approve, deny and partial_approve need `signed_off=true` (`md.signed_off`).
 * Deliberately silent on `p2p_review`: forcing a signature there would flip passing P2P tasks.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const DECIDE = (decision: string, signed?: boolean) =>
  toolCall("review.submit_md_case_decision", {
    case_id: "CASE-3903B8ED",
    decision,
    ...(signed === undefined ? {} : { signed_off: signed }),
  });

/** UM-05: no approve / deny / partial_approve MD decision without signed_off=true. */
export const rule: Rule<{ caseId: string; decision: string; again: string }> = {
  meta: {
    id: "UM-05",
    name: "md-decision-signed",
    principle: "P-UM-08",
    seat: "payer",
    triggers: ["review.submit_md_case_decision"],
    protects: ["md.signed_off"],
    message: "Cannot submit the {decision} MD decision for {caseId} unsigned: a final MD decision must be " +
      "signed. Call {again} with your other arguments as they are.",
  },
  check(call) {
    const decision = arg(call, "decision");
    if (!["approve", "deny", "partial_approve"].includes(decision) || call.input.signed_off === true) {
      return null;
    }
    const caseId = arg(call, "case_id");
    const again = callText("review.submit_md_case_decision", { case_id: caseId, decision, signed_off: true });
    return { caseId, decision, again };
  },
  valid: [
    { name: "an approval signed off", call: DECIDE("approve", true), evidence: {} },
    { name: "a p2p_review needs no sign-off", call: DECIDE("p2p_review", false), evidence: {} },
  ],
  invalid: [
    {
      name: "a denial with no signed_off",
      call: DECIDE("deny"),
      evidence: {},
      data: {
        caseId: "CASE-3903B8ED",
        decision: "deny",
        again: "review_submit_md_case_decision(case_id=CASE-3903B8ED, decision=deny, signed_off=true)",
      },
      reason: "Cannot submit the deny MD decision for CASE-3903B8ED unsigned: a final MD decision must be " +
        "signed. Call review_submit_md_case_decision(case_id=CASE-3903B8ED, decision=deny, signed_off=true) " +
        "with your other arguments as they are.",
    },
    {
      name: "an approval with signed_off=false",
      call: DECIDE("approve", false),
      evidence: {},
      data: {
        caseId: "CASE-3903B8ED",
        decision: "approve",
        again: "review_submit_md_case_decision(case_id=CASE-3903B8ED, decision=approve, signed_off=true)",
      },
    },
  ],
};
