/**
 * A terminal call must not paper over a failed gate: when the last call of a gate tool (routing, intake
 * confirmation, a review decision, assessment completion, the submission bundle) failed and has not since
 * succeeded, the state the terminal call relies on does not exist. A rejection saying the decision "has
 * already been submitted" is a duplicate, not a failed gate, and does not count.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { shown } from "../lib/guard/engine/facts.ts";
import { shownName } from "../lib/guard/engine/names.ts";
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { sameCallWith } from "../lib/guard/engine/next_ids.ts";

const GATES = [
  "triage.route_case",
  "payer_intake_hub.confirm_decisions",
  "review.submit_md_case_decision",
  "review.submit_nurse_case_recommendation",
  "cm_assessment.complete_assessment",
  "docs.create_submission_bundle",
];
const DUPLICATE = /already (?:been )?(?:submitted|completed|finalized|exists)/i;
const FINALIZE = toolCall("determination.finalize", { case_id: "CASE-3903B8ED", decision: "approved" });
const ROUTE_FAIL = toolCall("triage.route_case", { case_id: "CASE-3903B8ED" }, {
  error: "Error executing tool triage.route_case: Authorization is not required for this service",
});

/** GLOBAL-06: no terminal call while the last call of a gate tool failed and was not retried successfully. */
export const rule: Rule<{ tool: string; gate: string; error: string; again: string }> = {
  meta: {
    id: "GLOBAL-06",
    fromAbsence: true,
    name: "terminal-after-failed-gate",
    principle: "P-ALL-03",
    seat: "all",
    triggers: [
      "determination.finalize",
      "auth.submit_authorization",
      "auth.finalize_provider_determination",
      "cm_care_plan.finalize",
    ],
    protects: [
      "outcome.target_status",
      "intake.decision_member_eligible",
      "cm.assessment.completed",
      "cm.cross_stage.target_status",
      "provider_pre_submission.final_action",
    ],
    message: "Cannot call {tool}: the last {gate} call failed ({error}) and has not succeeded since. Fix " +
      "what that error names (an argument, or the earlier step it needs), then call {again} until it " +
      "succeeds, before calling {tool}.",
  },
  check(call, evidence) {
    for (const gate of GATES) {
      const last = evidence.calls.filter((c) => c.tool === gate && !c.sidechain).at(-1);
      if (!last || last.ok) continue;
      const error = (last.error ?? last.text).replace(/^Error executing tool \S+:\s*/, "");
      if (DUPLICATE.test(error)) continue;
      const again = sameCallWith({ tool: gate, input: last.input }, {}, evidence);
      return { tool: shown(call), gate: shownName(gate), error: error.slice(0, 160).trim(), again };
    }
    return null;
  },
  valid: [
    {
      name: "the failed gate was retried successfully",
      call: FINALIZE,
      evidence: { calls: [ROUTE_FAIL, toolCall("triage.route_case", { case_id: "CASE-3903B8ED" })] },
    },
    {
      name: "the gate failed only because it was already done",
      call: FINALIZE,
      evidence: {
        calls: [toolCall("review.submit_md_case_decision", { case_id: "CASE-3903B8ED" }, {
          error: "A case decision has already been submitted",
        })],
      },
    },
  ],
  invalid: [
    {
      name: "the routing gate failed and was not retried",
      call: FINALIZE,
      evidence: { calls: [ROUTE_FAIL] },
      data: {
        tool: "determination_finalize",
        gate: "triage_route_case",
        error: "Authorization is not required for this service",
        again: "triage_route_case(case_id=CASE-3903B8ED)",
      },
      reason:
        "Cannot call determination_finalize: the last triage_route_case call failed (Authorization is " +
        "not required for this service) and has not succeeded since. Fix what that error names (an argument, " +
        "or the earlier step it needs), then call triage_route_case(case_id=CASE-3903B8ED) until it " +
        "succeeds, before calling determination_finalize.",
    },
  ],
};
