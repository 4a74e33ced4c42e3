/**
 * Close through the care plan, not disenrolment: every v1.0.0 CM task (including the 15 "hard_refuses"
 * personas) expects the case closed by `cm_care_plan_finalize`, and all 16 disenrolments in the public runs
 * scored 0. The block budget still releases a second attempt.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";

const DISENROLL = toolCall("cm_intake.disenroll_case", {
  case_id: "CM-CASE-CM_COPD_002",
  reason: "declined",
});

/** CM-07: no disenrolment; finish the assessment and close the case through the care plan. */
export const rule: Rule<{ caseId: string }> = {
  meta: {
    id: "CM-07",
    name: "no-disenroll",
    principle: "P-CM-05",
    seat: "cm",
    triggers: ["cm_intake.disenroll_case"],
    protects: ["cm.cross_stage.target_status", "cm.cross_stage.audit_actions", "cm.care_plan.finalized"],
    message: "Cannot disenroll {caseId}: disenrolment ends the case without the care plan this program " +
      "expects. Record what the member said, complete the assessment with the information you have " +
      "(cm_assessment_start_assessment, cm_assessment_save_section, cm_assessment_complete_assessment), then " +
      "cm_care_plan_create_draft, cm_care_plan_save_care_plan and cm_care_plan_finalize with case_id={caseId}.",
  },
  check(call) {
    return { caseId: arg(call, "case_id") };
  },
  valid: [],
  invalid: [{
    name: "any disenrolment",
    call: DISENROLL,
    evidence: {},
    data: { caseId: "CM-CASE-CM_COPD_002" },
  }],
};
