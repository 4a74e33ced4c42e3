/**
 * The disposition checkpoint (critic arm only, protocol v3, amended 2026-12-06): at the first
 * `docs_create_submission_bundle` of a provider case, ask once the question that decides between submitting
 * and holding — is each enumerated criterion of the governing policy met by a chart document the case holds,
 * and is each required document kind present — quoting the case's policy questionnaire as the agent answered
 * it, and naming both next calls in full. Bundling commits the case: on a task that expects a hold, any
 * submission bundle fails `provider_pre_submission.packet_absent`, whatever follows. About four in five
 * hold-expected submissions come from agents whose own record contradicts nothing (they believed every
 * criterion met), so CRITIC-01 cannot reach them; only a question at the irreversible call can. It reads no
 * answer and decides nothing: it asks at every first bundle of a provider case, and the same call sent again
 * goes through (block budget 1 per case).
 *
 * Neutral by construction: it never names a reason to hold other than an unmet or undocumented criterion or a
 * missing document kind. A letter that openly states a limitation of the record is ordinary practice; until
 * 2026-12-06 the checkpoint quoted the plan's P-PROV-07, whose text then made a gap "you would flag or
 * disclose to the payer" the reason to hold, and a correct letter that disclosed a limitation read as one.
 *
 * It stays silent once the case has a bundle (the commitment is made), and when the latest determination on
 * the case is a hold (PP-02 blocks that bundle with its own message).
 *
 * Cost, not rescue: its block protects no check in replay's rescue estimate, because whether the model then
 * holds is what only a paid run shows (docs/EVALUATION_PROTOCOL.md, protocol v3). Replay reports what it
 * costs per packet: extra calls per provider trial, and the share of passing submit-expected trials it would
 * touch (`deno task replay ../shared/leaderboard ../shared/leaderboard-extra --no-ledgers`; docs/measured.md).
 * Known limitations: it cannot tell a correct submission from a wrong one, so it costs every submitting case
 * one call; an agent that restates its plan and resends is not moved by it; it quotes at most four
 * questionnaire answers.
 */
import { caseKeyOf, type Evidence, succeeded } from "../evidence.ts";
import { okOnCase } from "../facts.ts";
import { type Judge, quote } from "../judge.ts";
import { arg, type Call, toolCall } from "../rule.ts";
import { callText } from "../next_call.ts";
import { latestAnswers, questionLabels } from "./self_consistency.ts";

const BUNDLE = "docs.create_submission_bundle";
const FINALIZE = "auth.finalize_provider_determination";
/** Questionnaire answers quoted at most. */
const QUOTED = 4;

/** True when the latest determination recorded on the case is a hold. */
function holdRecorded(ev: Evidence, call: Call): boolean {
  const last = okOnCase(ev, FINALIZE, call.input).at(-1);
  return last !== undefined && last.input.final_action !== "submit_pa";
}

/** The case's policy questionnaire as the agent answered it: the record the question is decided from. */
function answered(ev: Evidence, call: Call): string {
  const labels = questionLabels(ev);
  const answers = latestAnswers(ev, call);
  const rows = [...answers].filter(([key]) => labels.has(key)).slice(0, QUOTED)
    .map(([key, answer]) => `"${quote(labels.get(key)!)}" — your saved answer "${quote(answer)}"`);
  return rows.length
    ? `The case's policy questionnaire, as you answered it: ${rows.join("; ")}.`
    : "No answer to the case's policy questionnaire is saved yet (forms_list_required_forms lists it).";
}

/** The bundle call again, exactly as sent (its case and documents), and the hold for the same case. */
function nextCalls(call: Call): { again: string; hold: string } {
  const caseId = arg(call, "case_id");
  return {
    again: callText(BUNDLE, {
      case_id: caseId,
      ...(call.input.document_ids ? { document_ids: call.input.document_ids } : {}),
    }),
    hold: callText(FINALIZE, {
      case_id: caseId,
      final_action: "gather_more_evidence",
      override_reason: "<the criterion or document kind the chart does not back>",
    }),
  };
}

const CASE = "CASE-ACT-001";
const BUNDLE_CALL = toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-5a1c9e27", "DOC-LMN-0b4d"] });
const BUNDLED = toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-5a1c9e27"] }, {
  result: { bundle_document: { id: "DOC-BUNDLE-1", case_id: CASE } },
});
const DECIDED = (action: string) => toolCall(FINALIZE, { case_id: CASE, final_action: action });
const FORM = toolCall("forms.list_required_forms", { case_id: CASE }, {
  result: {
    items: [{
      id: "FORM-POLICY-CASE-ACT-001-QUESTIONNAIRE-01",
      questions: [
        { key: "conservative_care_weeks", label: "Weeks of supervised conservative care completed" },
        { key: "imaging_confirms", label: "Imaging confirms the indication" },
      ],
    }],
  },
});
const ANSWERS = toolCall("forms.save_form_response", {
  case_id: CASE,
  answers: { conservative_care_weeks: "8 weeks (PT notes 01/05–03/02)", imaging_confirms: "Yes — MRI 02/20" },
});
const { again, hold } = nextCalls(BUNDLE_CALL);

/** CHECKPOINT-01: the first submission bundle of a provider case asks once the question that decides it. */
export const judge: Judge<{ caseId: string; record: string; again: string; hold: string }> = {
  meta: {
    id: "CHECKPOINT-01",
    name: "disposition-checkpoint",
    seat: "provider",
    principle: "P-PROV-07",
    triggers: [BUNDLE],
    protects: ["provider_pre_submission.packet_absent", "provider_pre_submission.final_action"],
    enforced: true,
    checkpoint: true,
    message:
      "Cannot build a submission bundle for {caseId} yet: bundling commits the case to submission, so " +
      "this checkpoint asks once, before it, the question that decides between submitting and holding. Is " +
      "each enumerated criterion of the governing policy met by a chart document the case holds, and is each " +
      "required document kind present? {record} If both are yes, send the same call again: {again}. If a " +
      "criterion is unmet or not documented in the chart, or a required document kind is missing, call " +
      "{hold} (final_action=do_not_submit instead when nothing added to the record could make the request " +
      "approvable) and build no bundle.",
  },
  check(call, evidence) {
    if (succeeded(evidence, BUNDLE, caseKeyOf(call.input, evidence.owners)).length) return null;
    if (holdRecorded(evidence, call)) return null;
    return { caseId: arg(call, "case_id"), record: answered(evidence, call), ...nextCalls(call) };
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
    {
      name: "the first bundle, the questionnaire answered",
      call: BUNDLE_CALL,
      evidence: { calls: [FORM, ANSWERS] },
      data: {
        caseId: CASE,
        record:
          "The case's policy questionnaire, as you answered it: \"Weeks of supervised conservative care " +
          'completed" — your saved answer "8 weeks (PT notes 01/05–03/02)"; "Imaging confirms the ' +
          'indication" — your saved answer "Yes — MRI 02/20".',
        again,
        hold,
      },
      reason: "Cannot build a submission bundle for CASE-ACT-001 yet: bundling commits the case to " +
        "submission, so this checkpoint asks once, before it, the question that decides between submitting " +
        "and holding. Is each enumerated criterion of the governing policy met by a chart document the case " +
        "holds, and is each required document kind present? The case's policy questionnaire, as you answered " +
        'it: "Weeks of supervised conservative care completed" — your saved answer "8 weeks (PT notes ' +
        '01/05–03/02)"; "Imaging confirms the indication" — your saved answer "Yes — MRI 02/20". If both ' +
        "are yes, send the same call again: docs_create_submission_bundle(case_id=CASE-ACT-001, " +
        "document_ids=[DOC-5a1c9e27, DOC-LMN-0b4d]). If a criterion is unmet or not documented in the chart, " +
        "or a required document kind is missing, call auth_finalize_provider_determination(case_id=" +
        "CASE-ACT-001, final_action=gather_more_evidence, override_reason=<the criterion or document kind the " +
        "chart does not back>) (final_action=do_not_submit instead when nothing added to the record could " +
        "make the request approvable) and build no bundle.",
    },
    {
      name: "the first bundle after a submit_pa determination, nothing answered",
      call: BUNDLE_CALL,
      evidence: { calls: [DECIDED("submit_pa")] },
      data: {
        caseId: CASE,
        record:
          "No answer to the case's policy questionnaire is saved yet (forms_list_required_forms lists it).",
        again,
        hold,
      },
    },
    {
      name: "an earlier bundle call failed",
      call: BUNDLE_CALL,
      evidence: { calls: [toolCall(BUNDLE, { case_id: CASE }, { error: "Document DOC-9 is not linked." })] },
      data: {
        caseId: CASE,
        record:
          "No answer to the case's policy questionnaire is saved yet (forms_list_required_forms lists it).",
        again,
        hold,
      },
    },
  ],
};
