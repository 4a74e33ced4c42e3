/**
 * Triage tasks route the case before anyone reviews it: `triage_route_case` writes the routing record and
 * the `route_case` audit row, and a fast-track lane finalizes the approval itself. Only for tasks that
 * start at triage (the prompt's phase).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { CLINICAL_DECISION_TOOLS, okOnCase, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";

const TRIAGE = "# Triage Routing\n- Use only payer namespaces: `triage`, `review`";
const RECOMMEND = toolCall("review.submit_nurse_case_recommendation", {
  case_id: "CASE-3903B8ED",
  recommendation: "approve",
});
const ROUTE = toolCall("triage.route_case", { case_id: "CASE-3903B8ED" });

/** UM-14: in a triage task, no review decision, determination or letter before triage_route_case succeeded. */
export const rule: Rule<{ tool: string; caseId: string }> = {
  meta: {
    id: "UM-14",
    fromAbsence: true,
    name: "review-after-routing",
    seat: "payer",
    triggers: CLINICAL_DECISION_TOOLS,
    protects: ["triage.record_exists", "triage.audit", "triage.route_matches"],
    message: "Cannot call {tool} on {caseId}: this is a triage task and the case has not been routed. Call " +
      "triage_set_disposition and then triage_route_case with case_id={caseId} (no override_target unless " +
      "the policy lane is wrong) first.",
  },
  check(call, evidence) {
    if (evidence.phase !== "triage") return null;
    return okOnCase(evidence, "triage.route_case", call.input).length
      ? null
      : { tool: shown(call), caseId: arg(call, "case_id") };
  },
  valid: [
    {
      name: "a triage task after the case was routed",
      call: RECOMMEND,
      evidence: { prompt: TRIAGE, calls: [ROUTE] },
    },
    {
      name: "a review task, not a triage task",
      call: RECOMMEND,
      evidence: { prompt: "# Nurse Clinical Review\n- Use only payer namespaces: `review`" },
    },
  ],
  invalid: [
    {
      name: "a triage task before the case was routed",
      call: RECOMMEND,
      evidence: { prompt: TRIAGE, calls: [] },
      data: { tool: "review_submit_nurse_case_recommendation", caseId: "CASE-3903B8ED" },
    },
  ],
};
