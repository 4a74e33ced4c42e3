/**
 * A provider determination carries its reason: `override_reason` is the only rationale field the judge
 * reads for the submission's rationale scope, and a blank one leaves the decision unexplained.
 * Only the non-submit actions (gather_more_evidence, do_not_submit) need it: there the reason is the whole
 * output, while a submit_pa is explained by its packet. Requiring it on submit_pa too blocked 2 passing
 * trials (codex pa_t013, pa_t019) on the leaderboard replay for no failed-check gain.
 * Known limitation: the protected check is a judge rubric, so replay cannot show a deterministic gain.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const DECIDE = (reason: string) =>
  toolCall("auth.finalize_provider_determination", {
    case_id: "CASE-ACT-001",
    final_action: "gather_more_evidence",
    override_reason: reason,
  });

const AGAIN =
  "auth_finalize_provider_determination(case_id=CASE-ACT-001, final_action=gather_more_evidence, " +
  "override_reason=<which criteria the chart evidence meets or misses>)";

/** PP-06: no gather_more_evidence / do_not_submit determination without an override_reason stating why. */
export const rule: Rule<{ caseId: string; action: string; again: string }> = {
  meta: {
    id: "PP-06",
    name: "determination-rationale",
    principle: "P-PROV-09",
    seat: "provider",
    triggers: ["auth.finalize_provider_determination"],
    protects: ["judge.provider_pre_submission.submission.rationale_scope"],
    message: "Cannot record the {action} determination for {caseId}: override_reason is empty. Call " +
      "{again}.",
  },
  check(call) {
    if (call.input.final_action === "submit_pa" || arg(call, "override_reason")) return null;
    const caseId = arg(call, "case_id");
    const action = String(call.input.final_action ?? "");
    const again = callText("auth.finalize_provider_determination", {
      case_id: caseId,
      final_action: action,
      override_reason: "<which criteria the chart evidence meets or misses>",
    });
    return { caseId, action, again };
  },
  valid: [
    {
      name: "gather_more_evidence with a stated reason",
      call: DECIDE("Conservative therapy of 6 weeks is not documented; request PT notes."),
      evidence: {},
    },
    {
      name: "submit_pa needs no override reason",
      call: toolCall("auth.finalize_provider_determination", {
        case_id: "CASE-ACT-001",
        final_action: "submit_pa",
      }),
      evidence: {},
    },
  ],
  invalid: [
    {
      name: "gather_more_evidence with an empty reason",
      call: DECIDE(""),
      evidence: {},
      data: { caseId: "CASE-ACT-001", action: "gather_more_evidence", again: AGAIN },
      reason: "Cannot record the gather_more_evidence determination for CASE-ACT-001: override_reason is " +
        "empty. Call auth_finalize_provider_determination(case_id=CASE-ACT-001, " +
        "final_action=gather_more_evidence, override_reason=<which criteria the chart evidence meets or " +
        "misses>).",
    },
    {
      name: "a reason of blanks only",
      call: DECIDE("   "),
      evidence: {},
      data: { caseId: "CASE-ACT-001", action: "gather_more_evidence", again: AGAIN },
    },
  ],
};
