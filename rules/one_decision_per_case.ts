/**
 * One decision per case: MD decisions, nurse recommendations and determinations are write-once. A second
 * call is rejected ("has already been submitted") or, worse, records a contradicting decision; either way
 * the agent should build on the decision it made. Harmless in a passing trial: there the repeat duplicates
 * a decision already recorded (the server refused it: "already been finalized"), so the block costs the
 * call the server would have rejected and changes nothing.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials):
 *   2026-07-24-inkling-256k-openai-agents 1.
 */
import { okOnCase, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const FIELD: Record<string, string> = {
  "review.submit_md_case_decision": "decision",
  "review.submit_nurse_case_recommendation": "recommendation",
  "determination.finalize": "decision",
};
const MD = (decision: string) =>
  toolCall("review.submit_md_case_decision", { case_id: "CASE-3903B8ED", decision });

/** UM-08: no second MD decision, nurse recommendation or determination on the same case. */
export const rule: Rule<{ tool: string; caseId: string; earlier: string; next: string }> = {
  meta: {
    id: "UM-08",
    name: "one-decision-per-case",
    principle: "P-ALL-04",
    seat: "payer",
    triggers: Object.keys(FIELD),
    protects: [
      "outcome.review_decision_matches",
      "outcome.clean_determination",
      "outcome.source_recommendation_consistent",
      "outcome.determination_decision_matches",
    ],
    message: "Cannot call {tool} on {caseId} again: {earlier} is already recorded and cannot be changed. " +
      "Continue from that decision: {next} shows the next step.",
  },
  check(call, evidence) {
    const earlier = okOnCase(evidence, call.tool, call.input)[0];
    if (!earlier) return null;
    return {
      tool: shown(call),
      caseId: arg(call, "case_id"),
      earlier: `${FIELD[call.tool]} ${String(earlier.input[FIELD[call.tool]] ?? "?")}`,
      next: callText("determination.get_summary", { case_id: arg(call, "case_id") }),
    };
  },
  valid: [
    { name: "the first MD decision on the case", call: MD("deny"), evidence: { calls: [] } },
    {
      name: "the earlier decision call failed",
      call: MD("deny"),
      evidence: { calls: [toolCall("review.submit_md_case_decision", MD("x").input, { error: "x" })] },
    },
  ],
  invalid: [
    {
      name: "a second MD decision after p2p_review",
      call: MD("deny"),
      evidence: { calls: [MD("p2p_review")] },
      data: {
        tool: "review_submit_md_case_decision",
        caseId: "CASE-3903B8ED",
        earlier: "decision p2p_review",
        next: "determination_get_summary(case_id=CASE-3903B8ED)",
      },
      reason: "Cannot call review_submit_md_case_decision on CASE-3903B8ED again: decision p2p_review is " +
        "already recorded and cannot be changed. Continue from that decision: " +
        "determination_get_summary(case_id=CASE-3903B8ED) shows the next step.",
    },
  ],
};
