/**
 * Case lock: every queue holds the target case among 24 distractors, and the verifier fails a session that
 * mutates any other case (`cross.forbidden_mutations`, `cm.cross_stage.no_forbidden_mutations`). The first case
 * the session successfully mutated is its case (CM referral, case and patient ids share one subject key).
 * Known limitation: when the very first mutation hits the wrong case, the lock holds the wrong case. A lock on
 * an id the system never returned changed no real case, so it locks nothing: in replay, a codex script that
 * failed to parse (its statically read calls never ran) had set the lock to `CASE ring?`.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { caseOf, mutatingTools, rawCase, shown } from "../lib/guard/engine/facts.ts";
import { type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { grounded, lockedCaseId } from "../lib/guard/engine/next_ids.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";
import { TOOLS } from "./catalog/tools.ts";

const QUEUE = toolCall("payer_intake_hub.list_intake_queue", {}, {
  result: { result: [{ case_id: "CASE-3903B8ED" }, { case_id: "CASE-11AA22BB" }] },
});
const WORKED = toolCall("triage.set_disposition", { case_id: "CASE-3903B8ED", disposition: "md_review" });
const OTHER = toolCall("determination.finalize", { case_id: "CASE-11AA22BB", decision: "approved" });
const SAME = toolCall("determination.finalize", { case_id: "CASE-3903B8ED", decision: "approved" });
const OPENED = toolCall(
  "cm_intake.open_case",
  { referral_id: "REF-CM_AFIB_001", program: "chronic_disease" },
  {
    result: { case_id: "CM-CASE-CM_AFIB_001", status: "intake_complete" },
  },
);

/** The same call on the session's case: its case argument set to the case it already changed. */
function onLocked(call: Call, ev: Evidence): { locked: string; next: string } {
  const locked = lockedCaseId(ev) || ev.caseLock!;
  const arg = ["case_id", "cm_case_id", "intake_case_id", "referral_id"].find((a) => call.input[a]) ??
    "case_id";
  return { locked, next: callText(call.tool, { [arg === "referral_id" ? "case_id" : arg]: locked }) };
}

/** GLOBAL-01: no mutation of a case other than the first case this session successfully mutated. */
export const rule: Rule<{ tool: string; caseId: string; locked: string; next: string }> = {
  meta: {
    id: "GLOBAL-01",
    name: "case-lock",
    principle: "P-ALL-01",
    seat: "all",
    triggers: mutatingTools(TOOLS),
    protects: [
      "cross.forbidden_mutations",
      "cm.cross_stage.no_forbidden_mutations",
      "cross.forward_transitions",
      "cm.cross_stage.audit_actions",
    ],
    message: "Cannot call {tool} on {caseId}: this session already changed case {locked}, and touching any " +
      "other case in the queue fails the task. Call {next} instead, with your other arguments as they are, " +
      "or leave {caseId} alone.",
  },
  check(call, evidence) {
    if (!evidence.caseLock) return null;
    const key = caseOf(evidence, call.input);
    if (!key || key === evidence.caseLock) return null;
    // A lock on an id the system never returned changed no real case (a replayed script that never ran).
    const locked = lockedCaseId(evidence);
    if (locked && !grounded(evidence, locked)) return null;
    return { tool: shown(call), caseId: rawCase(call.input) || key, ...onLocked(call, evidence) };
  },
  valid: [
    { name: "the same case the session already mutated", call: SAME, evidence: { calls: [QUEUE, WORKED] } },
    {
      name: "the only earlier change named an id the system never returned",
      call: OTHER,
      evidence: { calls: [QUEUE, toolCall("triage.set_disposition", { case_id: "CASE ring?" })] },
    },
    { name: "a first mutation, no case locked yet", call: OTHER, evidence: { calls: [] } },
    {
      name: "the CM case opened from the session's referral",
      call: toolCall("cm_chart.submit_chart_review", { case_id: "CM-CASE-CM_AFIB_001", review: {} }),
      evidence: { calls: [OPENED] },
    },
  ],
  invalid: [
    {
      name: "a second case after another was mutated",
      call: OTHER,
      evidence: { calls: [QUEUE, WORKED] },
      data: {
        tool: "determination_finalize",
        caseId: "CASE-11AA22BB",
        locked: "CASE-3903B8ED",
        next: "determination_finalize(case_id=CASE-3903B8ED)",
      },
      reason: "Cannot call determination_finalize on CASE-11AA22BB: this session already changed case " +
        "CASE-3903B8ED, and touching any other case in the queue fails the task. Call " +
        "determination_finalize(case_id=CASE-3903B8ED) instead, with your other arguments as they are, or " +
        "leave CASE-11AA22BB alone.",
    },
    {
      name: "another CM case than the one opened from the referral",
      call: toolCall("cm_chart.submit_chart_review", { case_id: "CM-CASE-CM_COPD_002", review: {} }),
      evidence: { calls: [OPENED] },
      data: {
        tool: "cm_chart_submit_chart_review",
        caseId: "CM-CASE-CM_COPD_002",
        locked: "CM-CASE-CM_AFIB_001",
        next: "cm_chart_submit_chart_review(case_id=CM-CASE-CM_AFIB_001)",
      },
    },
  ],
};
