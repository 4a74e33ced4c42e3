/**
 * A nurse recommendation rests on a saved criteria evaluation: `nurse.reviews_exist` needs at least one
 * nurse review record, which only `review_save_criteria_evaluation` writes. Harmless in a passing trial:
 * there the nurse recommended after its evaluation save had failed validation and saved it only later; the
 * block asks for that save first and leaves the recommendation unchanged (one call).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): 2026-07-24-gpt-5-6-terra-codex 1.
 */
import { okOnCase } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const RECOMMEND = toolCall("review.submit_nurse_case_recommendation", {
  case_id: "CASE-3903B8ED",
  recommendation: "escalate",
});
const EVAL = toolCall("review.save_criteria_evaluation", { case_id: "CASE-3903B8ED", line_number: 1 });

/** UM-15: no nurse recommendation before a saved criteria evaluation on the case. */
export const rule: Rule<{ caseId: string; save: string }> = {
  meta: {
    id: "UM-15",
    fromAbsence: true,
    name: "nurse-evaluation-first",
    seat: "payer",
    triggers: ["review.submit_nurse_case_recommendation"],
    protects: ["nurse.reviews_exist"],
    message: "Cannot submit the nurse recommendation for {caseId}: no criteria evaluation is saved. Call " +
      "{save} for each line first.",
  },
  check(call, evidence) {
    return okOnCase(evidence, "review.save_criteria_evaluation", call.input).length ? null : {
      caseId: arg(call, "case_id"),
      save: callText("review.save_criteria_evaluation", {
        case_id: arg(call, "case_id"),
        line_number: 1,
        evaluations: "<one result per criterion: met, not_met or unclear>",
      }),
    };
  },
  valid: [{ name: "a criteria evaluation was saved", call: RECOMMEND, evidence: { calls: [EVAL] } }],
  invalid: [{
    name: "no criteria evaluation saved",
    call: RECOMMEND,
    evidence: { calls: [] },
    data: {
      caseId: "CASE-3903B8ED",
      save:
        "review_save_criteria_evaluation(case_id=CASE-3903B8ED, line_number=1, evaluations=<one result per " +
        "criterion: met, not_met or unclear>)",
    },
    reason:
      "Cannot submit the nurse recommendation for CASE-3903B8ED: no criteria evaluation is saved. Call " +
      "review_save_criteria_evaluation(case_id=CASE-3903B8ED, line_number=1, evaluations=<one result per " +
      "criterion: met, not_met or unclear>) for each line first.",
  }],
};
