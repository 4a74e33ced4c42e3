/**
 * A nurse approves only when every criterion is met: the session's own latest criteria evaluation per line
 * must say `met` throughout; otherwise the case belongs to MD review. Never fired in the discovery runs
 * (wrong nurse approvals there had every criterion marked met — a judgement error this cannot see).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { listOf, okOnCase } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const EVAL = (results: string[]) =>
  toolCall("review.save_criteria_evaluation", {
    case_id: "CASE-3903B8ED",
    line_number: 1,
    evaluations: results.map((result, i) => ({ criterion_id: `C${i + 1}`, result })),
  });
const APPROVE = toolCall("review.submit_nurse_case_recommendation", {
  case_id: "CASE-3903B8ED",
  recommendation: "approve",
});

/** UM-06: no nurse approval while the session's saved evaluation has a criterion not met or unclear. */
export const rule: Rule<{ caseId: string; open: string; escalate: string; resave: string }> = {
  meta: {
    id: "UM-06",
    name: "nurse-approve-all-met",
    principle: "P-UM-06",
    seat: "payer",
    triggers: ["review.submit_nurse_case_recommendation"],
    protects: ["md.decision_exists", "md.audit", "outcome.target_status", "outcome.letter_types"],
    message:
      "Cannot approve {caseId} as the nurse: your own criteria evaluation marks {open} as not met or " +
      "unclear, and that evaluation decides it. Call {escalate} for MD review; only if the chart shows those " +
      "criteria met after all, call {resave} first.",
  },
  check(call, evidence) {
    if (call.input.recommendation !== "approve") return null;
    const latest = new Map<string, unknown>();
    for (const c of okOnCase(evidence, "review.save_criteria_evaluation", call.input)) {
      latest.set(String(c.input.line_number ?? ""), c.input.evaluations);
    }
    const open: string[] = [];
    for (const evaluations of latest.values()) {
      for (const e of listOf(evaluations)) {
        if (e.result !== undefined && e.result !== "met") open.push(String(e.criterion_id ?? "?"));
      }
    }
    if (!open.length) return null;
    const caseId = arg(call, "case_id");
    const line = [...latest.keys()][0] || "1";
    return {
      caseId,
      open: open.join(", "),
      escalate: callText("review.submit_nurse_case_recommendation", {
        case_id: caseId,
        recommendation: "escalate",
      }),
      resave: callText("review.save_criteria_evaluation", {
        case_id: caseId,
        line_number: Number(line) || line,
        evaluations: "<each criterion with the result the chart supports>",
      }),
    };
  },
  valid: [
    { name: "every criterion met", call: APPROVE, evidence: { calls: [EVAL(["met", "met"])] } },
    {
      name: "an unclear criterion later saved as met",
      call: APPROVE,
      evidence: { calls: [EVAL(["met", "unclear"]), EVAL(["met", "met"])] },
    },
  ],
  invalid: [
    {
      name: "a criterion not met and one unclear",
      call: APPROVE,
      evidence: { calls: [EVAL(["met", "not_met", "unclear"])] },
      data: {
        caseId: "CASE-3903B8ED",
        open: "C2, C3",
        escalate: "review_submit_nurse_case_recommendation(case_id=CASE-3903B8ED, recommendation=escalate)",
        resave: "review_save_criteria_evaluation(case_id=CASE-3903B8ED, line_number=1, evaluations=<each " +
          "criterion with the result the chart supports>)",
      },
      reason:
        "Cannot approve CASE-3903B8ED as the nurse: your own criteria evaluation marks C2, C3 as not met " +
        "or unclear, and that evaluation decides it. Call review_submit_nurse_case_recommendation(case_id=" +
        "CASE-3903B8ED, recommendation=escalate) for MD review; only if the chart shows those criteria met " +
        "after all, call review_save_criteria_evaluation(case_id=CASE-3903B8ED, line_number=1, " +
        "evaluations=<each criterion with the result the chart supports>) first.",
    },
  ],
};
