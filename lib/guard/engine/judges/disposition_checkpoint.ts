/**
 * The disposition checkpoint (critic arm only, protocol v3): at the first `docs_create_submission_bundle` of a
 * provider case, ask once whether the case should be submitted at all, quoting the plan's rules P-PROV-06 and
 * P-PROV-07. Bundling commits the case: on a task that expects a hold, any submission bundle fails
 * `provider_pre_submission.packet_absent`, whatever follows. About four in five hold-expected submissions come
 * from agents whose own record contradicts nothing (they believed every criterion met), so CRITIC-01 cannot
 * reach them; only a question at the irreversible call can. It finds no fact and reads no answer: it asks at
 * every first bundle of a provider case, and the same call sent again goes through (block budget 1 per case).
 *
 * It stays silent once the case has a bundle (the commitment is made), and when the latest determination on
 * the case is a hold (PP-02 blocks that bundle with its own message).
 *
 * Cost, not rescue: its block protects no check in replay's rescue estimate, because whether the model then
 * holds is what only a paid run shows (docs/EVALUATION_PROTOCOL.md, protocol v3). Replay reports what it
 * costs per packet: extra calls per provider trial, and the share of passing submit-expected trials it would
 * touch (`deno task replay ../shared/leaderboard ../shared/leaderboard-extra --no-ledgers`; docs/measured.md).
 * Known limitations: it cannot tell a correct submission from a wrong one, so it costs every submitting case
 * one call; an agent that restates its plan and resends is not moved by it.
 */
import { caseKeyOf, type Evidence, succeeded } from "../evidence.ts";
import { okOnCase } from "../facts.ts";
import type { Judge } from "../judge.ts";
import { arg, type Call, toolCall } from "../rule.ts";
import { PRINCIPLES } from "../../../../rules/principles.ts";

const BUNDLE = "docs.create_submission_bundle";
const FINALIZE = "auth.finalize_provider_determination";

/** The plan's words for a principle, exactly as the role plan gives them to the model. */
function planText(id: string): string {
  const text = PRINCIPLES.find((p) => p.id === id)?.text;
  if (!text) throw new Error(`Cannot quote principle ${id}: it is not in rules/principles.ts.`);
  return text;
}

/** True when the latest determination recorded on the case is a hold. */
function holdRecorded(ev: Evidence, call: Call): boolean {
  const last = okOnCase(ev, FINALIZE, call.input).at(-1);
  return last !== undefined && last.input.final_action !== "submit_pa";
}

const CASE = "CASE-ACT-001";
const BUNDLE_CALL = toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-1"] });
const BUNDLED = toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-1"] }, {
  result: { bundle_document: { id: "DOC-BUNDLE-1", case_id: CASE } },
});
const DECIDED = (action: string) => toolCall(FINALIZE, { case_id: CASE, final_action: action });

/** CHECKPOINT-01: the first submission bundle of a provider case asks once whether to submit at all. */
export const judge: Judge<{ caseId: string }> = {
  meta: {
    id: "CHECKPOINT-01",
    name: "disposition-checkpoint",
    seat: "provider",
    principle: "P-PROV-07",
    triggers: [BUNDLE],
    protects: ["provider_pre_submission.packet_absent", "provider_pre_submission.final_action"],
    enforced: true,
    checkpoint: true,
    message: "Cannot build a submission bundle for {caseId} yet: bundling commits the case to submission. " +
      `The plan's rules: P-PROV-06 "${planText("P-PROV-06")}" P-PROV-07 "${planText("P-PROV-07")}" ` +
      "If every criterion of the governing policy and every required document kind is backed by chart " +
      "evidence, send the same docs_create_submission_bundle call again (this check asks once); otherwise " +
      "record the hold with auth_finalize_provider_determination (final_action=gather_more_evidence or " +
      "do_not_submit) and build no bundle.",
  },
  check(call, evidence) {
    if (succeeded(evidence, BUNDLE, caseKeyOf(call.input, evidence.owners)).length) return null;
    if (holdRecorded(evidence, call)) return null;
    return { caseId: arg(call, "case_id") };
  },
  valid: [
    { name: "the case already has a bundle", call: BUNDLE_CALL, evidence: { calls: [BUNDLED] } },
    {
      name: "the latest determination is a hold (PP-02's to block)",
      call: BUNDLE_CALL,
      evidence: { calls: [DECIDED("gather_more_evidence")] },
    },
  ],
  invalid: [
    { name: "the first bundle, nothing decided", call: BUNDLE_CALL, evidence: {}, data: { caseId: CASE } },
    {
      name: "the first bundle after a submit_pa determination",
      call: BUNDLE_CALL,
      evidence: { calls: [DECIDED("submit_pa")] },
      data: { caseId: CASE },
    },
    {
      name: "an earlier bundle call failed",
      call: BUNDLE_CALL,
      evidence: { calls: [toolCall(BUNDLE, { case_id: CASE }, { error: "Document DOC-9 is not linked." })] },
      data: { caseId: CASE },
    },
  ],
};
