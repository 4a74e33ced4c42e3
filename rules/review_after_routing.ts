/**
 * Triage tasks route the case before anyone reviews it: `triage_route_case` writes the routing record and
 * the `route_case` audit row, and a fast-track lane finalizes the approval itself. Only for tasks that
 * start at triage (the prompt's phase).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { CLINICAL_DECISION_TOOLS, okOnCase, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";

const TRIAGE = "# Triage Routing\n- Use only payer namespaces: `triage`, `review`";
const RECOMMEND = toolCall("review.submit_nurse_case_recommendation", {
  case_id: "CASE-3903B8ED",
  recommendation: "approve",
});
const ROUTE = toolCall("triage.route_case", { case_id: "CASE-3903B8ED" });

/** Routing's next step: the disposition first when none is set, else the route itself. */
function routing(ev: Evidence, input: Record<string, unknown>, caseId: string): string {
  if (okOnCase(ev, "triage.set_disposition", input).length) {
    return `${
      callText("triage.route_case", { case_id: caseId })
    } (no override_target unless the policy lane ` +
      "is wrong)";
  }
  return `${
    callText("triage.set_disposition", {
      case_id: caseId,
      urgency_level: "<routine, urgent or stat>",
      sla_deadline: "<from triage_calculate_sla>",
    })
  }, then ${callText("triage.route_case", { case_id: caseId })}`;
}

/** UM-14: in a triage task, no review decision, determination or letter before triage_route_case succeeded. */
export const rule: Rule<{ tool: string; caseId: string; next: string }> = {
  meta: {
    id: "UM-14",
    fromAbsence: true,
    name: "review-after-routing",
    seat: "payer",
    triggers: CLINICAL_DECISION_TOOLS,
    protects: ["triage.record_exists", "triage.audit", "triage.route_matches"],
    message: "Cannot call {tool} on {caseId}: this is a triage task and the case has not been routed. Call " +
      "{next} first.",
  },
  check(call, evidence) {
    if (evidence.phase !== "triage") return null;
    return okOnCase(evidence, "triage.route_case", call.input).length ? null : {
      tool: shown(call),
      caseId: arg(call, "case_id"),
      next: routing(evidence, call.input, arg(call, "case_id")),
    };
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
      data: {
        tool: "review_submit_nurse_case_recommendation",
        caseId: "CASE-3903B8ED",
        next: "triage_set_disposition(case_id=CASE-3903B8ED, urgency_level=<routine, urgent or stat>, " +
          "sla_deadline=<from triage_calculate_sla>), then triage_route_case(case_id=CASE-3903B8ED)",
      },
      reason:
        "Cannot call review_submit_nurse_case_recommendation on CASE-3903B8ED: this is a triage task and " +
        "the case has not been routed. Call triage_set_disposition(case_id=CASE-3903B8ED, urgency_level=" +
        "<routine, urgent or stat>, sla_deadline=<from triage_calculate_sla>), then " +
        "triage_route_case(case_id=CASE-3903B8ED) first.",
    },
  ],
};
