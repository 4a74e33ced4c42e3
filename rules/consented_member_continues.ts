/**
 * A member who consented gets the full workflow: blocking the assessment or disenrolling after
 * `consent_obtained=true` leaves the case short of its closed status (one real failure saved a
 * `blocked_reason` right after consent).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { objectArg, okCalls, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { cmNextStep } from "../lib/guard/engine/next_ids.ts";

const CASE = "CM-CASE-CM_AFIB_001";
const END = (consent: boolean) =>
  toolCall("cm_outreach.end_outreach_call", {
    session_id: "SES-0E12A4B9",
    summary: { engagement_status: consent ? "engaged" : "refused", consent_obtained: consent },
  });
const BLOCK = toolCall("cm_assessment.save_section", {
  case_id: CASE,
  payload: { section: "sdoh" },
  blocked_reason: "member unavailable",
});

/** CM-04: no blocked assessment section or disenrolment after the member consented. */
export const rule: Rule<{ tool: string; caseId: string; next: string }> = {
  meta: {
    id: "CM-04",
    name: "consented-member-continues",
    principle: "P-CM-05",
    seat: "cm",
    triggers: ["cm_assessment.save_section", "cm_intake.disenroll_case"],
    protects: [
      "cm.assessment.completed",
      "cm.assessment.required_sections_present",
      "cm.care_plan.record_exists",
      "cm.cross_stage.target_status",
      "cm.cross_stage.audit_actions",
    ],
    message:
      "Cannot call {tool} on {caseId} this way: the member consented on the outreach call. Finish the " +
      "assessment with the information you have, each section without blocked_reason: the next step is " +
      "{next}; then complete the assessment and continue to the care plan.",
  },
  check(call, evidence) {
    if (call.tool === "cm_assessment.save_section" && !arg(call, "blocked_reason")) return null;
    const consented = okCalls(evidence, "cm_outreach.end_outreach_call")
      .some((c) => objectArg(c.input.summary)?.consent_obtained === true);
    if (!consented) return null;
    const caseId = arg(call, "case_id");
    return { tool: shown(call), caseId, next: cmNextStep(evidence, caseId, "assessment") };
  },
  valid: [
    { name: "a blocked section after the member refused", call: BLOCK, evidence: { calls: [END(false)] } },
    {
      name: "an unblocked section after consent",
      call: toolCall("cm_assessment.save_section", { case_id: CASE, payload: {} }),
      evidence: { calls: [END(true)] },
    },
  ],
  invalid: [
    {
      name: "a blocked section after consent",
      call: BLOCK,
      evidence: { calls: [END(true)] },
      data: {
        tool: "cm_assessment_save_section",
        caseId: CASE,
        next: "cm_assessment_start_assessment(case_id=CM-CASE-CM_AFIB_001)",
      },
      reason:
        "Cannot call cm_assessment_save_section on CM-CASE-CM_AFIB_001 this way: the member consented on " +
        "the outreach call. Finish the assessment with the information you have, each section without " +
        "blocked_reason: the next step is cm_assessment_start_assessment(case_id=CM-CASE-CM_AFIB_001); then " +
        "complete the assessment and continue to the care plan.",
    },
    {
      name: "disenrolment after consent",
      call: toolCall("cm_intake.disenroll_case", { case_id: CASE, reason: "declined" }),
      evidence: { calls: [END(true)] },
      data: {
        tool: "cm_intake_disenroll_case",
        caseId: CASE,
        next: "cm_assessment_start_assessment(case_id=CM-CASE-CM_AFIB_001)",
      },
    },
  ],
};
