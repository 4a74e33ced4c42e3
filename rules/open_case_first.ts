/**
 * Open the case first: every care-manager write names the case `cm_intake_open_case` returns, so a chart
 * review, outreach call, assessment or care plan started before any case was opened acts on nothing (the
 * server answers "No CM case found"). Reads are not blocked: on the 10-packet replay 7 PASSING trials read
 * the chart before opening the case, got that error and recovered, so a block there would only cost a call.
 * Known limitation: never fired on the 700 replayed trials (no write came before the open); kept as the
 * enforcement of P-CM-01 at no measured cost.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okCalls, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { cmOpenCall } from "../lib/guard/engine/next_ids.ts";

const CASE = "CM-CASE-CM_AFIB_001";
const OPEN = toolCall("cm_intake.open_case", {
  referral_id: "REF-CM_AFIB_001",
  priority: "standard",
  program: "chronic_disease",
}, { result: { case_id: CASE, status: "intake_complete" } });
const REVIEW = toolCall("cm_chart.submit_chart_review", { case_id: CASE, review: { primary_concerns: [] } });

const LIST_THEN_OPEN =
  "cm_intake_list_referral_queue(), then cm_intake_open_case(referral_id=<the referral " +
  "that matches the prompt>, priority=<the referral's priority>, program=<the referral's program>)";

/** CM-08: no care-manager write before a case was opened with cm_intake_open_case. */
export const rule: Rule<{ tool: string; caseId: string; open: string }> = {
  meta: {
    id: "CM-08",
    fromAbsence: true,
    name: "open-case-first",
    principle: "P-CM-01",
    seat: "cm",
    triggers: [
      "cm_chart.submit_chart_review",
      "cm_outreach.start_outreach_call",
      "cm_assessment.start_assessment",
      "cm_care_plan.create_draft",
    ],
    protects: ["cm.cross_stage.audit_actions", "cm.chart_review.record_exists"],
    message: "Cannot call {tool} on {caseId}: no care-management case was opened in this session. Call " +
      "{open} once, then use the case_id it returns.",
  },
  check(call, evidence) {
    return okCalls(evidence, "cm_intake.open_case").length
      ? null
      : { tool: shown(call), caseId: arg(call, "case_id") || "(no case_id)", open: cmOpenCall(evidence) };
  },
  valid: [{ name: "the case was opened", call: REVIEW, evidence: { calls: [OPEN] } }],
  invalid: [
    {
      name: "no case opened",
      call: REVIEW,
      evidence: { calls: [] },
      data: { tool: "cm_chart_submit_chart_review", caseId: CASE, open: LIST_THEN_OPEN },
      reason:
        `Cannot call cm_chart_submit_chart_review on ${CASE}: no care-management case was opened in this ` +
        "session. Call cm_intake_list_referral_queue(), then cm_intake_open_case(referral_id=<the referral " +
        "that matches the prompt>, priority=<the referral's priority>, program=<the referral's program>) " +
        "once, then use the case_id it returns.",
    },
    {
      name: "the open_case call failed",
      call: REVIEW,
      evidence: { calls: [toolCall("cm_intake.open_case", OPEN.input, { error: "Field required" })] },
      data: { tool: "cm_chart_submit_chart_review", caseId: CASE, open: LIST_THEN_OPEN },
    },
  ],
};
