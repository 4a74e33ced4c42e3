/**
 * When routing says no payer lane applies ("Authorization is not required" / "does not require payer
 * routing"), a clinical decision is the wrong path: every agent on pa_t035 ignored the error, approved and
 * failed the intake checks. Re-confirming the intake decisions after the failure releases the rule. In two
 * trials (P4, P9) it comes too late: the agent had routed the case to the notification-only lane, which
 * finalizes the approval itself (lib/trajectories/doom.ts).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { CLINICAL_DECISION_TOOLS, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { confirmCall } from "../lib/guard/engine/next_ids.ts";

const NO_LANE = /not required|does not require payer routing/i;
const FAILED = toolCall("triage.route_case", { case_id: "CASE-3903B8ED" }, {
  error: "Error executing tool triage.route_case: Authorization is not required for this service",
});
const APPROVE = toolCall("review.submit_nurse_case_recommendation", {
  case_id: "CASE-3903B8ED",
  recommendation: "approve",
});

/** UM-11: no clinical review, determination or letter after routing reported that no authorization applies. */
export const rule: Rule<{ tool: string; caseId: string; confirm: string }> = {
  meta: {
    id: "UM-11",
    fromAbsence: true,
    name: "no-review-without-lane",
    principle: "P-UM-04",
    seat: "payer",
    triggers: CLINICAL_DECISION_TOOLS,
    protects: [
      "intake.decision_member_eligible",
      "intake.decision_service_covered",
      "intake.decision_request_complete",
      "outcome.target_status",
    ],
    message:
      "Cannot call {tool} on {caseId}: triage_route_case reported that no authorization lane applies. " +
      "Re-check eligibility, coverage and completeness at intake and call {confirm}, before any clinical " +
      "decision.",
  },
  check(call, evidence) {
    const failedAt = evidence.calls.findLastIndex((c) =>
      !c.ok && c.tool === "triage.route_case" && NO_LANE.test(c.error ?? c.text)
    );
    if (failedAt < 0) return null;
    const reconfirmed = evidence.calls.slice(failedAt + 1).some((c) =>
      c.ok && c.tool === "payer_intake_hub.confirm_decisions"
    );
    if (reconfirmed) return null;
    const caseId = arg(call, "case_id");
    return { tool: shown(call), caseId, confirm: confirmCall(caseId) };
  },
  valid: [
    { name: "routing did not report anything", call: APPROVE, evidence: { calls: [] } },
    {
      name: "intake decisions confirmed after the failed route",
      call: APPROVE,
      evidence: {
        calls: [FAILED, toolCall("payer_intake_hub.confirm_decisions", { case_id: "CASE-3903B8ED" })],
      },
    },
  ],
  invalid: [
    {
      name: "a nurse review after routing said no authorization is required",
      call: APPROVE,
      evidence: { calls: [FAILED] },
      data: {
        tool: "review_submit_nurse_case_recommendation",
        caseId: "CASE-3903B8ED",
        confirm: confirmCall("CASE-3903B8ED"),
      },
      reason: "Cannot call review_submit_nurse_case_recommendation on CASE-3903B8ED: triage_route_case " +
        "reported that no authorization lane applies. Re-check eligibility, coverage and completeness at " +
        "intake and call payer_intake_hub_confirm_decisions(case_id=CASE-3903B8ED, request_complete=<true or " +
        "false, as the documents show>, member_eligible=<true or false, as the documents show>, " +
        "service_covered=<true or false, as the documents show>, provider_network_status=<as the documents " +
        "show>), before any clinical decision.",
    },
  ],
};
