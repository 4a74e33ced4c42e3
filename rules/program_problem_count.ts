/**
 * A care plan must cover at least one problem. The verifier's `cm.care_plan.problem_count` compares the
 * saved problems with a hidden per-task minimum (the verifier's cm_v4 checks); the per-program minima this rule used to
 * apply (complex_care 3, the other programs 2) belong to the retired cm_v1–v3 gate (`gate_program_minima`)
 * and blocked a passing chronic_disease plan with one problem. Without the hidden minimum the only floor
 * that no correct plan falls below is one problem.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { lastSavedPlan, listOf } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const CASE = "CM-CASE-CM_AFIB_001";
const OPEN = toolCall("cm_intake.open_case", { referral_id: "REF-CM_AFIB_001", program: "chronic_disease" }, {
  result: { case_id: CASE, program: "chronic_disease" },
});
const SAVE = (n: number) =>
  toolCall("cm_care_plan.save_care_plan", {
    case_id: CASE,
    plan_data: { problems: Array.from({ length: n }, (_, i) => ({ problem_id: `P${i + 1}` })) },
  });
const FINALIZE = toolCall("cm_care_plan.finalize", { case_id: CASE });

const PLAN_DATA = "<the whole plan, one problem for each active problem>";

/** The whole plan saved again: the next call before finalizing. */
function saveCall(caseId: string): string {
  return callText("cm_care_plan.save_care_plan", { case_id: caseId, plan_data: PLAN_DATA });
}

/** CM-03: no care-plan finalize whose saved plan lists no problem. */
export const rule: Rule<{ caseId: string; save: string }> = {
  meta: {
    id: "CM-03",
    name: "program-problem-count",
    principle: "P-CM-08",
    seat: "cm",
    triggers: ["cm_care_plan.finalize"],
    protects: ["cm.care_plan.problem_count"],
    message:
      "Cannot finalize the care plan for {caseId}: the saved plan lists no problems. Call {save}, one " +
      "problem (with its goals and interventions) for each active problem from the chart and assessment, " +
      "then finalize.",
  },
  check(call, evidence) {
    const plan = lastSavedPlan(evidence, call.input);
    if (!plan || listOf(plan.problems).length > 0) return null;
    return { caseId: arg(call, "case_id"), save: saveCall(arg(call, "case_id")) };
  },
  valid: [
    { name: "three problems", call: FINALIZE, evidence: { calls: [OPEN, SAVE(3)] } },
    // A one-problem chronic_disease plan passed the verifier: program minima are not the check.
    { name: "one problem in a chronic_disease plan", call: FINALIZE, evidence: { calls: [OPEN, SAVE(1)] } },
    { name: "no plan saved yet", call: FINALIZE, evidence: { calls: [OPEN] } },
  ],
  invalid: [
    {
      name: "a saved plan with no problems",
      call: FINALIZE,
      evidence: { calls: [OPEN, SAVE(0)] },
      data: { caseId: CASE, save: saveCall(CASE) },
      reason: `Cannot finalize the care plan for ${CASE}: the saved plan lists no problems. Call ` +
        `cm_care_plan_save_care_plan(case_id=${CASE}, plan_data=<the whole plan, one problem for each active ` +
        "problem>), one problem (with its goals and interventions) for each active problem from the chart and " +
        "assessment, then finalize.",
    },
  ],
};
