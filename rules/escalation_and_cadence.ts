/**
 * A care plan says when to escalate and how often to follow up: empty `escalation_conditions` or
 * `follow_up_cadence_kind` fail their presence checks. Checked at finalize on the last saved plan.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { filled, lastSavedPlan } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const CASE = "CM-CASE-CM_AFIB_001";
const SAVE = (plan: Record<string, unknown>) =>
  toolCall("cm_care_plan.save_care_plan", { case_id: CASE, plan_data: { problems: [], ...plan } });
const FINALIZE = toolCall("cm_care_plan.finalize", { case_id: CASE });

const PLAN_DATA =
  "<the whole plan with escalation_conditions (explicit triggers) and follow_up_cadence_kind (weekly, biweekly, monthly or custom)>";

/** The whole plan saved again: the next call before finalizing. */
function saveCall(caseId: string): string {
  return callText("cm_care_plan.save_care_plan", { case_id: caseId, plan_data: PLAN_DATA });
}

/** CM-05: no care-plan finalize without escalation_conditions and follow_up_cadence_kind. */
export const rule: Rule<{ caseId: string; missing: string; save: string }> = {
  meta: {
    id: "CM-05",
    name: "escalation-and-cadence",
    principle: "P-CM-11",
    seat: "cm",
    triggers: ["cm_care_plan.finalize"],
    protects: [
      "cm.care_plan.escalation_conditions_present",
      "cm.care_plan.follow_up_cadence_present",
      "cm.care_plan.finalized",
    ],
    message:
      "Cannot finalize the care plan for {caseId}: the saved plan is missing {missing}. Call {save}, " +
      "then finalize.",
  },
  check(call, evidence) {
    const plan = lastSavedPlan(evidence, call.input);
    if (!plan) return null;
    const missing = ["escalation_conditions", "follow_up_cadence_kind"].filter((k) => !filled(plan[k]));
    return missing.length
      ? { caseId: arg(call, "case_id"), missing: missing.join(" and "), save: saveCall(arg(call, "case_id")) }
      : null;
  },
  valid: [
    {
      name: "escalation conditions and a cadence saved",
      call: FINALIZE,
      evidence: {
        calls: [SAVE({ escalation_conditions: ["HR > 120 -> call PCP"], follow_up_cadence_kind: "weekly" })],
      },
    },
  ],
  invalid: [
    {
      name: "empty escalation conditions",
      call: FINALIZE,
      evidence: { calls: [SAVE({ escalation_conditions: [], follow_up_cadence_kind: "weekly" })] },
      data: { caseId: CASE, missing: "escalation_conditions", save: saveCall(CASE) },
      reason: `Cannot finalize the care plan for ${CASE}: the saved plan is missing escalation_conditions. ` +
        `Call cm_care_plan_save_care_plan(case_id=${CASE}, plan_data=<the whole plan with ` +
        "escalation_conditions (explicit triggers) and follow_up_cadence_kind (weekly, biweekly, monthly or " +
        "custom)>), then finalize.",
    },
    {
      name: "neither escalation conditions nor a cadence",
      call: FINALIZE,
      evidence: { calls: [SAVE({})] },
      data: {
        caseId: CASE,
        missing: "escalation_conditions and follow_up_cadence_kind",
        save: saveCall(CASE),
      },
    },
  ],
};
