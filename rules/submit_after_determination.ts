/**
 * Disposition before submission: the verifier wants an explicit provider determination behind every
 * submitted case, and 25 failed provider runs never made one (15 submitted directly).
 * Known limitation: the bundle's contents are not checked here. Every fire in a passing trial (below) is an
 * agent that submitted directly. Harmless: the cost is one extra call (auth_finalize_provider_determination
 * with submit_pa, then the same submission), which records the decision the submission already made; it
 * forces the submit / gather / do-not-submit decision where most provider failures happen (on the 300
 * tuning trials it fires in 9 failed trials, 7 with a protected check failed).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials):
 *   2026-07-06-cuilinke-hermes-medguard 1, 2026-07-06-sonnet-5-claude-code 4, 2026-07-24-gpt-5-6-sol-codex 2,
 *   2026-07-24-gpt-5-6-terra-codex 1.
 */
import { arg, type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { sessionCaseId } from "../lib/guard/engine/next_ids.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";

const SUBMIT = toolCall("auth_submit_authorization", { case_id: "CASE-ACT-001" });
const DECIDED = toolCall("auth_finalize_provider_determination", {
  case_id: "CASE-ACT-001",
  final_action: "submit_pa",
});

/** The determination this submission needs, and the hold that is the other outcome. */
function paths(call: Call, ev?: Evidence): { caseId: string; decide: string; hold: string } {
  const caseId = arg(call, "case_id") || (ev ? sessionCaseId(ev) : "") || "<the case id>";
  const bundle = arg(call, "bundle_document_id");
  return {
    caseId,
    decide: callText(DECIDED.tool, {
      case_id: caseId,
      final_action: "submit_pa",
      ...(bundle ? { bundle_document_id: bundle } : {}),
      override_reason: "<the criteria the chart documents>",
    }),
    hold: callText(DECIDED.tool, {
      case_id: caseId,
      final_action: "gather_more_evidence",
      override_reason: "<the criterion the chart does not back>",
    }),
  };
}

/** PP-01: no submission without `auth_finalize_provider_determination(final_action=submit_pa)` on the case. */
export const rule: Rule<{ caseId: string; decide: string; hold: string }> = {
  meta: {
    id: "PP-01",
    fromAbsence: true,
    name: "submit-after-determination",
    principle: "P-PROV-09",
    seat: "provider",
    triggers: ["auth.submit_authorization"],
    protects: [
      "provider_pre_submission.provider_determination_present",
      "provider_pre_submission.final_action",
      "cross.closed_backed_by_provider_determination",
    ],
    message: "Cannot submit {caseId}: no provider determination is recorded. Call {decide} first, then " +
      "this submission again. If a criterion of the policy is unmet or not documented in the chart, record " +
      "{hold} instead (do_not_submit when nothing could make it approvable) and do not submit.",
  },
  check(call, evidence) {
    const caseId = arg(call, "case_id");
    const decided = evidence.calls.some((c) =>
      c.ok && c.tool === DECIDED.tool && c.input.case_id === caseId && c.input.final_action === "submit_pa"
    );
    return decided ? null : paths(call, evidence);
  },
  valid: [{ name: "a submit_pa determination on the case", call: SUBMIT, evidence: { calls: [DECIDED] } }],
  invalid: [
    {
      name: "no determination on the case",
      call: SUBMIT,
      evidence: { calls: [] },
      data: paths(SUBMIT),
      reason: "Cannot submit CASE-ACT-001: no provider determination is recorded. Call " +
        "auth_finalize_provider_determination(case_id=CASE-ACT-001, final_action=submit_pa, " +
        "override_reason=<the criteria the chart documents>) first, then this submission again. If a " +
        "criterion of the policy is unmet or not documented in the chart, record " +
        "auth_finalize_provider_determination(case_id=CASE-ACT-001, final_action=gather_more_evidence, " +
        "override_reason=<the criterion the chart does not back>) instead (do_not_submit when nothing could " +
        "make it approvable) and do not submit.",
    },
    {
      name: "the determination call failed",
      call: SUBMIT,
      evidence: {
        calls: [toolCall("auth_finalize_provider_determination", { ...DECIDED.input }, { error: "x" })],
      },
      data: paths(SUBMIT),
    },
  ],
};
