/**
 * Every goal needs interventions with an owner and a time anchor (`due_date` or `frequency`):
 * `cm.care_plan.intervention_structure` caught 7 real failures, all with finalize succeeding server-side.
 * Checked at finalize on the last saved plan, like CM-01.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { filled, lastSavedPlan, listOf } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

/** Goals without interventions and interventions without owner or due_date/frequency. */
export function interventionGaps(plan: Record<string, unknown>): string[] {
  const gaps: string[] = [];
  listOf(plan.problems).forEach((p, i) =>
    listOf(p.goals).forEach((g, j) => {
      const list = listOf(g.interventions);
      if (!list.length) gaps.push(`problem[${i}].goal[${j}] has no interventions`);
      list.forEach((v, k) => {
        const missing = [
          ...(filled(v.owner) ? [] : ["owner"]),
          ...(filled(v.due_date) || filled(v.frequency) ? [] : ["due_date/frequency"]),
        ];
        if (missing.length) gaps.push(`intervention[${i}.${j}.${k}] missing ${missing.join(" and ")}`);
      });
    })
  );
  return gaps;
}

const CASE = "CM-CASE-CM_AFIB_001";
const SAVE = (interventions: unknown[]) =>
  toolCall("cm_care_plan.save_care_plan", {
    case_id: CASE,
    plan_data: JSON.stringify({ problems: [{ goals: [{ target_date: "2026-03-01", interventions }] }] }),
  });
const FINALIZE = toolCall("cm_care_plan.finalize", { case_id: CASE });

const PLAN_DATA = "<the whole plan, every intervention with an owner and a due_date or frequency>";

/** The whole plan saved again: the next call before finalizing. */
function saveCall(caseId: string): string {
  return callText("cm_care_plan.save_care_plan", { case_id: caseId, plan_data: PLAN_DATA });
}

/** CM-02: no care-plan finalize while a goal lacks interventions or one lacks owner or due_date/frequency. */
export const rule: Rule<{ caseId: string; gaps: string; save: string }> = {
  meta: {
    id: "CM-02",
    name: "intervention-owner-timing",
    principle: "P-CM-10",
    seat: "cm",
    triggers: ["cm_care_plan.finalize"],
    protects: ["cm.care_plan.intervention_structure"],
    message: "Cannot finalize the care plan for {caseId}: every intervention needs an owner and a due_date " +
      "or frequency, and {gaps}. Call {save}, then finalize.",
  },
  check(call, evidence) {
    const plan = lastSavedPlan(evidence, call.input);
    const gaps = plan ? interventionGaps(plan) : [];
    return gaps.length
      ? {
        caseId: arg(call, "case_id"),
        gaps: gaps.slice(0, 4).join("; "),
        save: saveCall(arg(call, "case_id")),
      }
      : null;
  },
  valid: [
    {
      name: "an intervention with its owner and frequency",
      call: FINALIZE,
      evidence: { calls: [SAVE([{ owner: "care manager", frequency: "weekly" }])] },
    },
    { name: "no care plan saved (another rule's concern)", call: FINALIZE, evidence: { calls: [] } },
  ],
  invalid: [
    {
      name: "one intervention without timing, one without owner",
      call: FINALIZE,
      evidence: { calls: [SAVE([{ owner: "care manager" }, { due_date: "2026-02-01" }])] },
      data: {
        caseId: CASE,
        gaps: "intervention[0.0.0] missing due_date/frequency; intervention[0.0.1] missing owner",
        save: saveCall(CASE),
      },
      reason:
        "Cannot finalize the care plan for CM-CASE-CM_AFIB_001: every intervention needs an owner and a " +
        "due_date or frequency, and intervention[0.0.0] missing due_date/frequency; intervention[0.0.1] " +
        "missing owner. Call cm_care_plan_save_care_plan(case_id=CM-CASE-CM_AFIB_001, plan_data=<the whole " +
        "plan, every intervention with an owner and a due_date or frequency>), then finalize.",
    },
    {
      name: "a goal with no interventions",
      call: FINALIZE,
      evidence: { calls: [SAVE([])] },
      data: { caseId: CASE, gaps: "problem[0].goal[0] has no interventions", save: saveCall(CASE) },
    },
  ],
};
