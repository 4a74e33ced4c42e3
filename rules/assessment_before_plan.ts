/**
 * Assess, then plan: a care plan drafted or finalized before `cm_assessment_complete_assessment`
 * succeeded rests on no assessment. Never fired in discovery (the server's state machine also refuses it).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { cmNextStep } from "../lib/guard/engine/next_ids.ts";

const CASE = "CM-CASE-CM_AFIB_001";
const DRAFT = toolCall("cm_care_plan.create_draft", { case_id: CASE });
const DONE = toolCall("cm_assessment.complete_assessment", { case_id: CASE });

/** CM-06: no care-plan draft or finalize before the assessment was completed. */
export const rule: Rule<{ tool: string; caseId: string; next: string }> = {
  meta: {
    id: "CM-06",
    fromAbsence: true,
    name: "assessment-before-plan",
    principle: "P-CM-06",
    seat: "cm",
    triggers: ["cm_care_plan.create_draft", "cm_care_plan.finalize"],
    protects: [
      "cm.assessment.completed",
      "cm.assessment.required_sections_present",
      "cm.care_plan.record_exists",
    ],
    message: "Cannot call {tool} on {caseId}: the assessment is not completed (the four sections clinical, " +
      "medication, behavioral_health and sdoh saved, then completed). Its next step: {next}.",
  },
  check(call, evidence) {
    return okOnCase(evidence, "cm_assessment.complete_assessment", call.input).length ? null : {
      tool: shown(call),
      caseId: arg(call, "case_id"),
      next: cmNextStep(evidence, arg(call, "case_id"), "assessment"),
    };
  },
  valid: [{ name: "the assessment was completed", call: DRAFT, evidence: { calls: [DONE] } }],
  invalid: [{
    name: "a draft before the assessment was completed",
    call: DRAFT,
    evidence: { calls: [] },
    data: {
      tool: "cm_care_plan_create_draft",
      caseId: CASE,
      next: `cm_assessment_start_assessment(case_id=${CASE})`,
    },
    reason: `Cannot call cm_care_plan_create_draft on ${CASE}: the assessment is not completed (the four ` +
      "sections clinical, medication, behavioral_health and sdoh saved, then completed). Its next step: " +
      `cm_assessment_start_assessment(case_id=${CASE}).`,
  }],
};
