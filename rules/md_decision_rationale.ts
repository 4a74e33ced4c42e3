/**
 * An MD decision states its reasoning: `determination_rationale` is required for every finalizing decision
 * (`md.rationale_present`, the only source of those failures was a blank one), and a denial also needs
 * `denial_rationale`. 40 characters is the floor for a sentence that names a criterion.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const MIN = 40;
const WHY = "Conservative therapy of 6 weeks documented; MRI criteria 2 and 3 are met per policy.";
const DECIDE = (input: Record<string, unknown>) =>
  toolCall("review.submit_md_case_decision", { case_id: "CASE-3903B8ED", signed_off: true, ...input });

/** The same decision again with the rationale field written out. */
function again(call: { input: Record<string, unknown> }, field: string): string {
  return callText("review.submit_md_case_decision", {
    case_id: call.input.case_id,
    decision: call.input.decision,
    ...(call.input.signed_off === undefined ? {} : { signed_off: call.input.signed_off }),
    [field]: `<the policy criteria and the chart evidence behind the decision, at least ${MIN} characters>`,
  });
}

/** UM-04: no MD decision with a missing or too-short determination_rationale, or a denial without denial_rationale. */
export const rule: Rule<{ caseId: string; field: string; length: string; again: string }> = {
  meta: {
    id: "UM-04",
    name: "md-decision-rationale",
    principle: "P-UM-07",
    seat: "payer",
    triggers: ["review.submit_md_case_decision"],
    protects: ["md.rationale_present", "md.denial_rationale_present", "outcome.determination_has_rationale"],
    message: "Cannot submit the MD decision for {caseId}: {field} is {length} characters. Call {again}.",
  },
  check(call) {
    const caseId = arg(call, "case_id");
    const why = arg(call, "determination_rationale");
    if (why.length < MIN) {
      const field = "determination_rationale";
      return { caseId, field, length: String(why.length), again: again(call, field) };
    }
    if (call.input.decision === "deny" && !arg(call, "denial_rationale")) {
      return { caseId, field: "denial_rationale", length: "0", again: again(call, "denial_rationale") };
    }
    return null;
  },
  valid: [
    {
      name: "an approval with its rationale",
      call: DECIDE({ decision: "approve", determination_rationale: WHY }),
      evidence: {},
    },
    {
      name: "a denial with both rationales",
      call: DECIDE({ decision: "deny", determination_rationale: WHY, denial_rationale: WHY }),
      evidence: {},
    },
  ],
  invalid: [
    {
      name: "an approval with no rationale",
      call: DECIDE({ decision: "approve" }),
      evidence: {},
      data: {
        caseId: "CASE-3903B8ED",
        field: "determination_rationale",
        length: "0",
        again: "review_submit_md_case_decision(case_id=CASE-3903B8ED, decision=approve, signed_off=true, " +
          "determination_rationale=<the policy criteria and the chart evidence behind the decision, at least " +
          "40 characters>)",
      },
      reason:
        "Cannot submit the MD decision for CASE-3903B8ED: determination_rationale is 0 characters. Call " +
        "review_submit_md_case_decision(case_id=CASE-3903B8ED, decision=approve, signed_off=true, " +
        "determination_rationale=<the policy criteria and the chart evidence behind the decision, at least 40 " +
        "characters>).",
    },
    {
      name: "a denial without a denial rationale",
      call: DECIDE({ decision: "deny", determination_rationale: WHY }),
      evidence: {},
      data: {
        caseId: "CASE-3903B8ED",
        field: "denial_rationale",
        length: "0",
        again: "review_submit_md_case_decision(case_id=CASE-3903B8ED, decision=deny, signed_off=true, " +
          "denial_rationale=<the policy criteria and the chart evidence behind the decision, at least 40 " +
          "characters>)",
      },
    },
  ],
};
