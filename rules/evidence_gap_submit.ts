/**
 * Do not submit while your own saved answers admit an evidence gap: 44 provider failures submitted where the
 * task expected gather_more_evidence / do_not_submit, and several had just written "Not documented in chart"
 * into the payer questionnaire. Only the latest save per form counts, and the phrase must open the answer
 * (so "M75.110 (incomplete … tear)" does not match).
 * Only policy-questionnaire answers count: the request form (`FORM-REQUEST-…`, `request_*` keys, NPIs) holds
 * identity fields, not criteria, and all 4 passing trials the unrestricted rule blocked on the leaderboard
 * replay (pa_t018) were exactly `request_servicing_provider_npi: "Not documented in chart"`.
 * A gap is a statement that a required criterion is unmet or undocumented, not any answer that opens with
 * "No": "No – sedation is not required" answers a question with a fact and states no gap, so an answer that
 * says the item is not required, not applicable or not indicated (or that answers a field asking whether
 * something is required) never counts. The message leads with re-saving the answer when the criterion is
 * met or does not apply, then offers the hold: a block on a correct submission must not invite a wrong hold.
 * Known limitation: content-sensitive (a regex over the agent's own words); the block asks for an explicit
 * decision, not a verdict, and the block budget releases it.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { objectArg, okOnCase, shown, stringsIn } from "../lib/guard/engine/facts.ts";
import { arg, type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const GAP = new RegExp(
  "^(?:not (?:yet )?(?:been )?(?:documented|completed|performed|done|met|on file|found|provided|scheduled|" +
    "obtained|available in the chart)|pending\\b|unknown\\b|undocumented|missing\\b|insufficient\\b|" +
    "no documentation|no record|none documented|unable to (?:confirm|verify|determine))",
  "i",
);
const NO_DASH =
  /^no\s*[-\u2013\u2014:,]\s*.{0,60}?(?:not (?:been )?(?:completed|documented|performed|scheduled)|has not been|pending)/i;

/** Request-form identity fields (`request_servicing_provider_npi`…), not policy criteria. */
const ADMINISTRATIVE = /^request_|npi/i;
/** An answer that the item is not required or does not apply: a fact about the criterion, not a gap. */
const NOT_REQUIRED =
  /\bnot (?:required|needed|necessary|applicable|indicated|a requirement)\b|\bn\/a\b|\bnone (?:required|needed)\b/i;
/** A field asking whether something is required or applies: "No" there is an answer, not a gap. */
const ASKS_IF_REQUIRED = /required|needed|necessary|applicable|indicated/i;

/** A saved answer that states a gap: its form, question key and text. */
interface Gap {
  form: string;
  key: string;
  text: string;
}

/** The first saved answer (latest save per form) that opens with an evidence-gap statement, or null. */
function gapAnswer(saves: { input: Record<string, unknown> }[]): Gap | null {
  const latest = new Map<string, unknown>();
  for (const s of saves) {
    const form = String(s.input.form_id ?? "");
    if (!form.startsWith("FORM-REQUEST")) latest.set(form, s.input.answers);
  }
  for (const [form, answers] of latest) {
    const fields = objectArg(answers);
    const entries: [string, unknown][] = fields ? Object.entries(fields) : [["", answers]];
    for (const [key, value] of entries) {
      if (ADMINISTRATIVE.test(key)) continue;
      for (const text of stringsIn(value)) {
        const t = text.trim();
        if (NOT_REQUIRED.test(t)) continue;
        if (GAP.test(t) || (NO_DASH.test(t) && !ASKS_IF_REQUIRED.test(key))) {
          return { form, key, text: t.slice(0, 80) };
        }
      }
    }
  }
  return null;
}

const SAVE = (answer: string, key = "conservative_therapy") =>
  toolCall("forms.save_form_response", {
    case_id: "CASE-ACT-001",
    form_id: "FORM-POLICY-CASE-ACT-001-QUESTIONNAIRE-01",
    answers: { [key]: answer },
  });
const DECIDE = toolCall("auth.finalize_provider_determination", {
  case_id: "CASE-ACT-001",
  final_action: "submit_pa",
});

const RESAVE = "forms_save_form_response(case_id=CASE-ACT-001, form_id=FORM-POLICY-CASE-ACT-001-" +
  "QUESTIONNAIRE-01, answers={conservative_therapy: <what the chart shows, citing the document>})";
const HOLD =
  "auth_finalize_provider_determination(case_id=CASE-ACT-001, final_action=gather_more_evidence, " +
  "override_reason=<the criterion the chart does not back>)";

/** Both next calls: the answer saved again (when the chart backs it), or the hold. */
function paths(call: Call, gap: Gap): { resave: string; hold: string } {
  const caseId = arg(call, "case_id");
  return {
    resave: callText("forms.save_form_response", {
      case_id: caseId,
      ...(gap.form ? { form_id: gap.form } : {}),
      answers: { [gap.key || "<question key>"]: "<what the chart shows, citing the document>" },
    }),
    hold: callText("auth.finalize_provider_determination", {
      case_id: caseId,
      final_action: "gather_more_evidence",
      override_reason: "<the criterion the chart does not back>",
    }),
  };
}

/** PP-03: no submit_pa determination or submission while a saved answer states an evidence gap. */
export const rule: Rule<{ tool: string; caseId: string; answer: string; resave: string; hold: string }> = {
  meta: {
    id: "PP-03",
    name: "evidence-gap-submit",
    principle: "P-PROV-07",
    seat: "provider",
    triggers: ["auth.finalize_provider_determination", "auth.submit_authorization"],
    protects: [
      "provider_pre_submission.final_action",
      "provider_pre_submission.packet_absent",
      "provider_pre_submission.provider_determination_present",
      "new_referral.case_status",
      "cross.closed_backed_by_provider_determination",
    ],
    message: 'Cannot call {tool} to submit {caseId} yet: your saved form answer "{answer}" says a required ' +
      "criterion is unmet or undocumented, and that answer decides between the two paths. If the chart shows " +
      "it is met, or it does not apply, call {resave}, then submit again. Only if it is truly unmet, call " +
      "{hold} instead (do_not_submit when nothing could make it approvable).",
  },
  check(call, evidence) {
    if (call.tool === "auth.finalize_provider_determination" && call.input.final_action !== "submit_pa") {
      return null;
    }
    const gap = gapAnswer(okOnCase(evidence, "forms.save_form_response", call.input));
    if (!gap) return null;
    return { tool: shown(call), caseId: arg(call, "case_id"), answer: gap.text, ...paths(call, gap) };
  },
  valid: [
    {
      name: "criteria answered as documented",
      call: DECIDE,
      evidence: { calls: [SAVE("Yes - 8 weeks of physical therapy documented 2026-01-04")] },
    },
    {
      name: "a diagnosis code answer",
      call: DECIDE,
      evidence: { calls: [SAVE("M75.110 (incomplete rotator cuff tear)")] },
    },
    {
      name: "a gap answer later saved as documented",
      call: DECIDE,
      evidence: { calls: [SAVE("Not documented in chart"), SAVE("Yes - PT notes on file")] },
    },
    // An answer that the item is not required is a fact, not a gap, however it opens.
    {
      name: "a criterion answered not required",
      call: DECIDE,
      evidence: { calls: [SAVE("No – sedation has not been planned; not required for this study")] },
    },
    {
      name: "No to a field asking whether it is required",
      call: DECIDE,
      evidence: { calls: [SAVE("No - sedation not performed", "sedation_required")] },
    },
    {
      name: "a criterion that does not apply",
      call: DECIDE,
      evidence: { calls: [SAVE("Not applicable: no prior surgery")] },
    },
    {
      name: "a request-form identity field left undocumented",
      call: DECIDE,
      evidence: {
        calls: [toolCall("forms.save_form_response", {
          case_id: "CASE-ACT-001",
          form_id: "FORM-REQUEST-CASE-ACT-001",
          answers: { request_servicing_provider_npi: "Not documented in chart" },
        })],
      },
    },
  ],
  invalid: [
    {
      name: "determination while a criterion reads not documented",
      call: DECIDE,
      evidence: { calls: [SAVE("Not documented in chart")] },
      data: {
        tool: "auth_finalize_provider_determination",
        caseId: "CASE-ACT-001",
        answer: "Not documented in chart",
        resave: RESAVE,
        hold: HOLD,
      },
      reason:
        "Cannot call auth_finalize_provider_determination to submit CASE-ACT-001 yet: your saved form " +
        'answer "Not documented in chart" says a required criterion is unmet or undocumented, and that answer ' +
        "decides between the two paths. If the chart shows it is met, or it does not apply, call " +
        "forms_save_form_response(case_id=CASE-ACT-001, form_id=FORM-POLICY-CASE-ACT-001-QUESTIONNAIRE-01, " +
        "answers={conservative_therapy: <what the chart shows, citing the document>}), then submit again. Only " +
        "if it is truly unmet, call auth_finalize_provider_determination(case_id=CASE-ACT-001, " +
        "final_action=gather_more_evidence, override_reason=<the criterion the chart does not back>) instead " +
        "(do_not_submit when nothing could make it approvable).",
    },
    {
      name: "submission while a criterion reads not completed",
      call: toolCall("auth.submit_authorization", { case_id: "CASE-ACT-001" }),
      evidence: { calls: [SAVE("No - physical therapy has not been completed")] },
      data: {
        tool: "auth_submit_authorization",
        caseId: "CASE-ACT-001",
        answer: "No - physical therapy has not been completed",
        resave: RESAVE,
        hold: HOLD,
      },
    },
  ],
};
