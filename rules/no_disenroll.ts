/**
 * Close through the care plan, not disenrolment: every v1.0.0 CM task (including the 15 "hard_refuses"
 * personas) expects the case closed by `cm_care_plan_finalize`, and all 16 disenrolments in the public runs
 * scored 0. The block budget still releases a second attempt.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { cmNextStep } from "../lib/guard/engine/next_ids.ts";

const DISENROLL = toolCall("cm_intake.disenroll_case", {
  case_id: "CM-CASE-CM_COPD_002",
  reason: "declined",
});

/** CM-07: no disenrolment; finish the assessment and close the case through the care plan. */
export const rule: Rule<{ caseId: string; next: string }> = {
  meta: {
    id: "CM-07",
    name: "no-disenroll",
    principle: "P-CM-05",
    seat: "cm",
    triggers: ["cm_intake.disenroll_case"],
    protects: ["cm.cross_stage.target_status", "cm.cross_stage.audit_actions", "cm.care_plan.finalized"],
    message: "Cannot disenroll {caseId}: disenrolment ends the case without the care plan this program " +
      "expects. Record what the member said and go on with the information you have: the next step is " +
      "{next}, then the rest of the assessment and the care plan (drafted, saved, finalized).",
  },
  check(call, evidence) {
    return { caseId: arg(call, "case_id"), next: cmNextStep(evidence, arg(call, "case_id")) };
  },
  valid: [],
  invalid: [{
    name: "any disenrolment",
    call: DISENROLL,
    evidence: {},
    data: {
      caseId: "CM-CASE-CM_COPD_002",
      next: "cm_chart_submit_chart_review(case_id=CM-CASE-CM_COPD_002, review=<the chart findings>)",
    },
    reason: "Cannot disenroll CM-CASE-CM_COPD_002: disenrolment ends the case without the care plan this " +
      "program expects. Record what the member said and go on with the information you have: the next step " +
      "is cm_chart_submit_chart_review(case_id=CM-CASE-CM_COPD_002, review=<the chart findings>), then the " +
      "rest of the assessment and the care plan (drafted, saved, finalized).",
  }],
};
