/**
 * Care-plan goals must be SMART: every problem needs a goal, and every goal a `target_date` and
 * `measurable_criteria` (`cm.care_plan.goal_structure`). The server's finalize checks neither, so the
 * check runs at finalize on the last saved plan (save replaces the whole body), never at save time:
 * incremental drafts fired 18–25 times with 3 false positives when checked on save.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { filled, lastSavedPlan, listOf } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

/** Problems in the plan whose goals are missing or lack target_date / measurable_criteria. */
export function goalGaps(plan: Record<string, unknown>): string[] {
  const gaps: string[] = [];
  listOf(plan.problems).forEach((p, i) => {
    const goals = listOf(p.goals);
    if (!goals.length) gaps.push(`problem[${i}] has no goals`);
    goals.forEach((g, j) => {
      const missing = ["target_date", "measurable_criteria"].filter((k) => !filled(g[k]));
      if (missing.length) gaps.push(`problem[${i}].goal[${j}] missing ${missing.join(" and ")}`);
    });
  });
  return gaps;
}

const CASE = "CM-CASE-CM_AFIB_001";
const GOAL = {
  description: "Stable rate",
  target_date: "2026-03-01",
  measurable_criteria: "HR < 100 at rest",
};
const SAVE = (goals: unknown[]) =>
  toolCall("cm_care_plan.save_care_plan", { case_id: CASE, plan_data: { problems: [{ goals }] } });
const FINALIZE = toolCall("cm_care_plan.finalize", { case_id: CASE });

const PLAN_DATA = "<the whole plan, every goal with target_date and measurable_criteria>";

/** The whole plan saved again: the next call before finalizing. */
function saveCall(caseId: string): string {
  return callText("cm_care_plan.save_care_plan", { case_id: caseId, plan_data: PLAN_DATA });
}

/** CM-01: no care-plan finalize while a problem lacks a goal or a goal lacks target_date / measurable_criteria. */
export const rule: Rule<{ caseId: string; gaps: string; save: string }> = {
  meta: {
    id: "CM-01",
    name: "smart-goals",
    principle: "P-CM-09",
    seat: "cm",
    triggers: ["cm_care_plan.finalize"],
    protects: ["cm.care_plan.goal_structure"],
    message: "Cannot finalize the care plan for {caseId}: goals must be SMART, and {gaps}. Call {save}, " +
      "giving every problem a goal with target_date and measurable_criteria, then finalize.",
  },
  check(call, evidence) {
    const plan = lastSavedPlan(evidence, call.input);
    const gaps = plan ? goalGaps(plan) : [];
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
      name: "every goal has a target date and measurable criteria",
      call: FINALIZE,
      evidence: { calls: [SAVE([GOAL])] },
    },
    {
      name: "an incomplete goal later saved complete",
      call: FINALIZE,
      evidence: { calls: [SAVE([{ description: "x" }]), SAVE([GOAL])] },
    },
  ],
  invalid: [
    {
      name: "a goal with empty measurable criteria",
      call: FINALIZE,
      evidence: { calls: [SAVE([{ ...GOAL, measurable_criteria: "" }])] },
      data: { caseId: CASE, gaps: "problem[0].goal[0] missing measurable_criteria", save: saveCall(CASE) },
      reason: "Cannot finalize the care plan for CM-CASE-CM_AFIB_001: goals must be SMART, and " +
        "problem[0].goal[0] missing measurable_criteria. Call cm_care_plan_save_care_plan(case_id=" +
        "CM-CASE-CM_AFIB_001, plan_data=<the whole plan, every goal with target_date and " +
        "measurable_criteria>), giving every problem a goal with target_date and measurable_criteria, then " +
        "finalize.",
    },
    {
      name: "a problem with no goals",
      call: FINALIZE,
      evidence: { calls: [SAVE([])] },
      data: { caseId: CASE, gaps: "problem[0] has no goals", save: saveCall(CASE) },
    },
  ],
};
