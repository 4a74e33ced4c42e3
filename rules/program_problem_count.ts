/**
 * A program's care plan covers a minimum number of problems (complex_care 3; chronic_disease,
 * transitions_of_care and behavioral_health 2). The program is the one the session opened the case with.
 * Never fired in the discovery runs; the verifier's expected count may be higher than this floor.
 */
import { lastSavedPlan, listOf, okCalls } from "../lib/facts.ts";
import { arg, type Rule, toolCall } from "../lib/rule.ts";

const MINIMUM: Record<string, number> = {
  complex_care: 3,
  chronic_disease: 2,
  transitions_of_care: 2,
  behavioral_health: 2,
};
const CASE = "CM-CASE-CM_AFIB_001";
const OPEN = toolCall("cm_intake.open_case", { referral_id: "REF-CM_AFIB_001", program: "complex_care" }, {
  result: { case_id: CASE, program: "complex_care" },
});
const SAVE = (n: number) =>
  toolCall("cm_care_plan.save_care_plan", {
    case_id: CASE,
    plan_data: { problems: Array.from({ length: n }, (_, i) => ({ problem_id: `P${i + 1}` })) },
  });
const FINALIZE = toolCall("cm_care_plan.finalize", { case_id: CASE });

/** CM-03: no care-plan finalize with fewer problems than the program's minimum. */
export const rule: Rule<{ caseId: string; program: string; minimum: string; count: string }> = {
  meta: {
    id: "CM-03",
    name: "program-problem-count",
    principle: "P-CM-08",
    seat: "cm",
    triggers: ["cm_care_plan.finalize"],
    protects: ["cm.care_plan.problem_count"],
    message: "Cannot finalize the care plan for {caseId}: program {program} needs at least {minimum} " +
      "problems and the saved plan has {count}. Call cm_care_plan_save_care_plan with the whole plan_data " +
      "covering each active problem from the chart and assessment, then finalize.",
  },
  check(call, evidence) {
    const opened = okCalls(evidence, "cm_intake.open_case").at(-1);
    const program = String((opened?.result as { program?: string })?.program ?? opened?.input.program ?? "");
    const plan = lastSavedPlan(evidence, call.input);
    if (!MINIMUM[program] || !plan) return null;
    const count = listOf(plan.problems).length;
    if (count >= MINIMUM[program]) return null;
    return { caseId: arg(call, "case_id"), program, minimum: String(MINIMUM[program]), count: String(count) };
  },
  valid: [
    { call: FINALIZE, evidence: { calls: [OPEN, SAVE(3)] } },
    { call: FINALIZE, evidence: { calls: [SAVE(1)] } },
  ],
  invalid: [
    {
      call: FINALIZE,
      evidence: { calls: [OPEN, SAVE(2)] },
      data: { caseId: CASE, program: "complex_care", minimum: "3", count: "2" },
    },
  ],
};
