/**
 * Self-consistency at the provider's submit decision: block `submit_pa` (or a direct submission) when the
 * agent's own record says a requirement is not met. Most provider tasks expect a hold, and in real runs the
 * agent builds and submits the packet in nearly every one, often after writing the gap down itself: its
 * questionnaire answer says "No" to "Was pre-test genetic counseling completed?", its override_reason says
 * the evaluation is "referred but not yet completed", the case it created shows `"active": false` coverage.
 * The judge names that fact and asks for an explicit decision; it never says which decision is right.
 *
 * Findings, in the order reported (the first one found is named):
 * 1. coverage — the case record (cases_create_from_order / cases_get_case result) shows coverage active=false;
 * 2. bundle — the latest submission bundle for the case reports ready_to_submit=false;
 * 3. answer — a saved policy-questionnaire answer (latest per question, plus the call's own
 *    questionnaire_answers) opens with a negation ("No", "Not", "Partial", "Pending"…) while the question, as
 *    the form in the tool results words it, asks whether something was completed / attested / confirmed /
 *    demonstrated / met / performed. Conditional ("If …") questions and "not applicable" answers never count;
 *    questions that ask about an exclusion ("under 18?", "contrast allergy?") carry no such word, so their
 *    favourable "No" is never read as a gap;
 * 4. rationale — the call's override_reason admits it: a required step "not yet completed / has not occurred"
 *    in a sentence that names a requirement, criterion, prerequisite, gap, referral or disclosure; criteria
 *    "not met" / "does not meet … policy"; "k of n criteria are met" with k < n; the policy "classifies … as
 *    unproven"; a request made "despite … exclusion"; a shortfall "disclosed transparently" or "flagged for
 *    the payer" (P-PROV-07: a gap you would flag or disclose to the payer is the reason to hold);
 * 5. text — the same admissions in the agent's last three text messages before the call (best effort: the
 *    live transcript may lag the call, so replay, which reads the whole trajectory, sees at least as much).
 *
 * At auth_submit_authorization the judge stays silent once a submit_pa determination succeeded on the case:
 * that decision was judged when it was recorded, so one case costs at most one extra call.
 *
 * Replay (`deno task replay ../shared/leaderboard ../shared/leaderboard-extra --no-ledgers`, 700 trials,
 * 10 packets): fires in 21 failed trials, all 21 with a protected check failed and all hold-expected
 * submissions (13 in the 300 tuned-on trials, 8 in the 400 unseen); in 0 passing trials and in 0 trials whose
 * task expected a submission (every provider trial where `provider_pre_submission.final_action` is not
 * applicable), so it never challenged a correct submit. In 9 of the 21 the checklist arm blocks nothing.
 * But in 18 it blocks one or two calls after the first docs_create_submission_bundle, which had already
 * failed `packet_absent` (too late: lib/guard/engine/doom.ts), and the 3 in time are trials whose target case never
 * resolved: counted in time, the critic arm's rescue estimate does not rise at all (counting the late blocks
 * it rose by 8). Figures per packet, in time and too late: replay, README.
 * Known limitations: recall is modest by construction — most hold-expected submissions are made by agents that
 * believed every criterion was met, and then no record of theirs contradicts the submission; the judge cannot
 * see that. The phrases are English and content-sensitive (regexes over the agent's own words), so an agent
 * that writes "not yet completed" about the requested service itself in a sentence naming a requirement would
 * be asked once needlessly; the message asks for a decision, not a retraction.
 */
import { caseKeyOf, type Evidence, succeeded } from "../evidence.ts";
import { objectArg, okCalls, plainText, shown } from "../facts.ts";
import { type Judge, type JudgeContext, quote } from "../judge.ts";
import { arg, type Call, toolCall } from "../rule.ts";

const FINALIZE = "auth.finalize_provider_determination";
const SUBMIT = "auth.submit_authorization";

/** A question asking whether something happened or holds (the words a requirement question uses). */
const COMPLETION =
  /\b(?:completed?|attest(?:s|ed|ation)?|confirmed|demonstrated|met|satisfied|performed|tried|undergone)\b/i;
/** An answer that opens by denying it. */
const NEGATED =
  /^\W*(?:no|not|none|never|pending|incomplete|partial(?:ly)?|unable|declined)\b|^\W*(?:has|have|had)\s+not\b/i;
const NOT_APPLICABLE = /^\W*(?:n\/?a\b|not\s+applicable)|^\W*no\W+(?:not\s+applicable|n\/?a\b)/i;
const CONDITIONAL = /^\s*if\b/i;

/** A required step that did not happen (completion words only: "scheduled" also describes the service itself). */
const NOT_DONE =
  /\b(?:(?:has|have|had)\s+not\s+(?:yet\s+)?(?:been\s+)?|not\s+yet\s+(?:been\s+)?|(?:was|were|is|are)\s+never\s+)(?:completed|performed|occurred|done|obtained|conducted|undergone|attempted|tried)\b/i;
/** What makes a not-done sentence about a requirement rather than about the requested service. */
const ABOUT_A_REQUIREMENT = /\b(?:requir\w*|criteri\w*|prerequisite\w*|gap|referr\w*|disclos\w*)\b/i;
/** A sentence (clauses split at `;` too); the admissions below stay within one, never across a colon. */
const SENTENCE = /[^.;!?\n]+/g;
/** Admissions that need no qualifier: unmet criteria, an unproven service, an exclusion overridden, a disclosed gap. */
const ADMISSIONS = [
  /\b(?:criteri(?:on|a)|requirements?|prerequisites?|thresholds?)\b[^:]{0,60}?\b(?:is|are|remains?|was|were)\s+(?:not\s+|un)(?:met|satisfied|fulfilled)\b/i,
  /\b(?:does|do|did)\s+not\s+(?:meet|satisfy|fulfil+|establish)\b[^:]{0,60}\b(?:criteri|requirement|polic|threshold|indication)/i,
  /(?<!\bnot\s)\b(?:classif\w+|considers?|lists?|deems?|labels?)\b[^:]{0,60}\bas\s+(?:unproven|investigational|experimental|not medically necessary)\b/i,
  /\bdespite\b[^:]{0,80}\b(?:exclusion|unproven)\b/i,
  // P-PROV-07: "a gap you would flag or disclose to the payer … is the reason to hold".
  /\b(?:disclos\w*|flag\w*)\b[^:]{0,40}\b(?:transparently|for (?:the )?payer|to (?:the )?payer)\b|\btransparently\s+(?:disclos|flag)\w*/i,
];
/** "1 of 3 required criteria are met". */
const COUNT =
  /\b(\d+|one|two|three|four|five)\s+of\s+(?:the\s+)?(\d+|two|three|four|five|six)\s+(?:\w+\s+){0,2}(?:criteria|bullets|requirements|elements|items)\s+(?:is|are)\s+met\b/i;
const NUMBERS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

function count(word: string): number {
  return NUMBERS[word.toLowerCase()] ?? Number(word);
}

/** The first admission in a text, as the span that says it; null when the text admits nothing. */
export function admission(text: string): { at: number; length: number } | null {
  for (const m of text.matchAll(SENTENCE)) {
    const sentence = m[0];
    const done = NOT_DONE.exec(sentence);
    if (done && ABOUT_A_REQUIREMENT.test(sentence)) {
      return { at: m.index + done.index, length: done[0].length };
    }
    for (const re of ADMISSIONS) {
      const hit = re.exec(sentence);
      if (hit) return { at: m.index + hit.index, length: hit[0].length };
    }
    const c = COUNT.exec(sentence);
    if (c && count(c[1]) < count(c[2])) return { at: m.index + c.index, length: c[0].length };
  }
  return null;
}

/** Question labels by key, as the forms in the tool results word them (request-form identity fields excluded). */
export function questionLabels(ev: Evidence): Map<string, string> {
  const labels = new Map<string, string>();
  const pairs = [
    /"key"\s*:\s*"([^"]+)"\s*,\s*"label"\s*:\s*"((?:[^"\\]|\\.)*)"/g,
    /"label"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"key"\s*:\s*"([^"]+)"/g,
  ];
  for (const c of ev.calls) {
    if (!c.ok || !c.tool.startsWith("forms.")) continue;
    const text = plainText(c.text);
    for (const [i, re] of pairs.entries()) {
      for (const m of text.matchAll(re)) {
        const [key, label] = i === 0 ? [m[1], m[2]] : [m[2], m[1]];
        if (!key.startsWith("request_")) labels.set(key, label);
      }
    }
  }
  return labels;
}

/** The latest saved answer per question for the case, with the pending call's own questionnaire_answers on top. */
function latestAnswers(ev: Evidence, call: Call): Map<string, string> {
  const answers = new Map<string, string>();
  const add = (value: unknown) => {
    for (const [k, v] of Object.entries(objectArg(value) ?? {})) if (typeof v === "string") answers.set(k, v);
  };
  const caseKey = caseKeyOf(call.input, ev.owners);
  for (const save of succeeded(ev, "forms.save_form_response", caseKey)) add(save.input.answers);
  add(call.input.questionnaire_answers);
  return answers;
}

/** A saved answer that denies what its question asks was completed / attested / met, as a fact to name. */
function contradictedAnswer(ev: Evidence, call: Call): string | null {
  const answers = latestAnswers(ev, call);
  if (!answers.size) return null;
  const labels = questionLabels(ev);
  for (const [key, answer] of answers) {
    const label = labels.get(key);
    if (!label || CONDITIONAL.test(label)) continue;
    if (!COMPLETION.test(label) && !COMPLETION.test(key.replaceAll("_", " "))) continue;
    if (NEGATED.test(answer) && !NOT_APPLICABLE.test(answer)) {
      return `your saved answer to "${quote(label)}" is "${quote(answer)}"`;
    }
  }
  return null;
}

/** The case's coverage record, when a result about the case shows it inactive. */
function inactiveCoverage(ev: Evidence, call: Call): string | null {
  const caseKey = caseKeyOf(call.input, ev.owners);
  if (!caseKey) return null;
  for (const tool of ["cases.create_from_order", "cases.get_case"]) {
    for (const c of succeeded(ev, tool, caseKey)) {
      for (const m of plainText(c.text).matchAll(/"coverage"\s*:\s*\{([^{}]*)\}/g)) {
        if (!/"active"\s*:\s*false/.test(m[1])) continue;
        const id = /"id"\s*:\s*"([^"]{1,40})"/.exec(m[1])?.[1];
        return `the case record shows coverage ${id ? `${id} ` : ""}"active": false`;
      }
    }
  }
  return null;
}

/** The latest bundle for the case, when its own readiness check says it is not ready to submit. */
function unreadyBundle(ev: Evidence, call: Call): string | null {
  const bundles = succeeded(ev, "docs.create_submission_bundle", caseKeyOf(call.input, ev.owners));
  const text = bundles.length ? plainText(bundles.at(-1)!.text) : "";
  if (!/"ready_to_submit"\s*:\s*false/.test(text)) return null;
  const missing = /"missing_items"\s*:\s*\[([^\]]{1,200})\]/.exec(text)?.[1].replace(/"/g, "").trim();
  return `your submission bundle reports ready_to_submit=false${
    missing ? ` (missing: ${quote(missing)})` : ""
  }`;
}

/** An admission in the override_reason, then in the agent's recent text, as a fact to name. */
function admittedGap(call: Call, context: JudgeContext): string | null {
  const reason = arg(call, "override_reason");
  const said = admission(reason);
  if (said) return `your override_reason says "${quote(reason, said.at)}"`;
  for (const text of [...context.recentText].reverse()) {
    const hit = admission(text);
    if (hit) return `your own note before this call says "${quote(text, hit.at)}"`;
  }
  return null;
}

/** True when a submit_pa determination already succeeded on the case (the decision was judged then). */
function submitRecorded(ev: Evidence, call: Call): boolean {
  const caseKey = caseKeyOf(call.input, ev.owners);
  return okCalls(ev, FINALIZE, (i) => i.final_action === "submit_pa")
    .some((c) => caseKeyOf(c.input, ev.owners) === caseKey);
}

const CASE = "CASE-ACT-001";
const DECIDE = (extra: Record<string, unknown> = {}) =>
  toolCall(FINALIZE, { case_id: CASE, final_action: "submit_pa", ...extra });
const FORM = toolCall("forms.list_required_forms", { case_id: CASE }, {
  result: {
    items: [{
      id: "FORM-POLICY-CASE-ACT-001-QUESTIONNAIRE-01",
      questions: [
        { key: "counseling_completed", label: "Was pre-test genetic counseling completed?" },
        { key: "patient_under_18", label: "Is the patient under 18 years of age?" },
        { key: "arthrodesis_confirmed", label: "If prior fusion: is complete arthrodesis confirmed?" },
      ],
    }],
  },
});
const SAVE = (answers: Record<string, string>) =>
  toolCall("forms.save_form_response", { case_id: CASE, form_id: "FORM-POLICY-01", answers });
const CREATED = (active: boolean) =>
  toolCall("cases.create_from_order", { patient_id: "PAT-1" }, {
    result: {
      case: { id: CASE, patient_id: "PAT-1", status: "draft" },
      coverage: { id: "COV-b1", patient_id: "PAT-1", active },
    },
  });
const BUNDLE = (ready: boolean) =>
  toolCall("docs.create_submission_bundle", { case_id: CASE }, {
    result: { readiness: { ready_to_submit: ready, missing_items: ready ? [] : ["lab_result"] } },
  });

/** CRITIC-01: no submission that the agent's own recorded findings contradict, without an explicit decision. */
export const judge: Judge<{ tool: string; caseId: string; fact: string }> = {
  meta: {
    id: "CRITIC-01",
    name: "self-consistency",
    seat: "provider",
    principle: "P-PROV-07",
    triggers: [FINALIZE, SUBMIT],
    protects: [
      "provider_pre_submission.final_action",
      "provider_pre_submission.packet_absent",
      "new_referral.case_status",
      "cross.closed_backed_by_provider_determination",
    ],
    enforced: true,
    message: "Cannot submit {caseId} through {tool} yet: {fact}, and that contradicts a submission. Decide " +
      "explicitly from your own evidence: call auth_finalize_provider_determination with " +
      "final_action=gather_more_evidence (the gap can be cured) or do_not_submit (it cannot), or, if the " +
      "requirement is met after all, say why in override_reason and call {tool} again (this check asks once).",
  },
  check(call, evidence, context) {
    if (call.tool === FINALIZE && call.input.final_action !== "submit_pa") return null;
    if (call.tool === SUBMIT && submitRecorded(evidence, call)) return null;
    const fact = inactiveCoverage(evidence, call) ?? unreadyBundle(evidence, call) ??
      contradictedAnswer(evidence, call) ?? admittedGap(call, context);
    return fact ? { tool: shown(call), caseId: arg(call, "case_id"), fact } : null;
  },
  valid: [
    { call: DECIDE({ override_reason: "All three criteria are met and documented." }), evidence: {} },
    { call: DECIDE(), evidence: { calls: [FORM, SAVE({ counseling_completed: "Yes — completed 03/02" })] } },
    { call: DECIDE(), evidence: { calls: [FORM, SAVE({ patient_under_18: "No — patient is 48" })] } },
    { call: DECIDE(), evidence: { calls: [FORM, SAVE({ arthrodesis_confirmed: "No prior fusion" })] } },
    { call: DECIDE(), evidence: { calls: [FORM, SAVE({ counseling_completed: "Not applicable" })] } },
    {
      call: DECIDE(),
      evidence: {
        calls: [FORM, SAVE({ counseling_completed: "No" }), SAVE({ counseling_completed: "Yes" })],
      },
    },
    {
      call: DECIDE({ final_action: "gather_more_evidence" }),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "No" })] },
    },
    { call: DECIDE(), evidence: { calls: [CREATED(true), BUNDLE(true)] } },
    {
      call: DECIDE({ override_reason: "The MRI has not yet been performed; it is the requested service." }),
      evidence: {},
    },
    {
      call: toolCall(SUBMIT, { case_id: CASE, channel: "portal" }),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "No" }), DECIDE()] },
    },
    { call: DECIDE(), evidence: {}, recentText: ["All 3 of 3 criteria are met; submitting."] },
  ],
  invalid: [
    {
      call: DECIDE(),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "No - referral placed, not yet scheduled" })] },
      data: {
        tool: "auth_finalize_provider_determination",
        caseId: CASE,
        fact: `your saved answer to "Was pre-test genetic counseling completed?" is "No - referral placed, ` +
          `not yet scheduled"`,
      },
    },
    {
      call: DECIDE({ questionnaire_answers: { counseling_completed: "Partial — discussed only" } }),
      evidence: { calls: [FORM] },
      data: {
        tool: "auth_finalize_provider_determination",
        caseId: CASE,
        fact:
          `your saved answer to "Was pre-test genetic counseling completed?" is "Partial — discussed only"`,
      },
    },
    {
      call: DECIDE(),
      evidence: { calls: [CREATED(false)] },
      data: {
        tool: "auth_finalize_provider_determination",
        caseId: CASE,
        fact: `the case record shows coverage COV-b1 "active": false`,
      },
    },
    {
      call: toolCall(SUBMIT, { case_id: CASE, channel: "portal" }),
      evidence: { calls: [BUNDLE(false)] },
      data: {
        tool: "auth_submit_authorization",
        caseId: CASE,
        fact: "your submission bundle reports ready_to_submit=false (missing: lab_result)",
      },
    },
    {
      call: DECIDE({
        override_reason: "BMI criteria are met. The evaluation required by policy is referred but not yet " +
          "completed and is flagged for payer review.",
      }),
      evidence: {},
      data: {
        tool: "auth_finalize_provider_determination",
        caseId: CASE,
        fact: `your override_reason says "BMI criteria are met. The evaluation required by policy is ` +
          `referred but not yet completed and is flagged for payer review."`,
      },
    },
    {
      call: DECIDE({
        override_reason: "Submitting as an exception despite the policy's hybrid-surgery exclusion.",
      }),
      evidence: {},
      data: {
        tool: "auth_finalize_provider_determination",
        caseId: CASE,
        fact: `your override_reason says "Submitting as an exception despite the policy's hybrid-surgery ` +
          `exclusion."`,
      },
    },
    {
      call: DECIDE(),
      evidence: {},
      recentText: [
        "Reading the policy.",
        "Only 1 of 3 required bullets is met, so I will disclose and submit.",
      ],
      data: {
        tool: "auth_finalize_provider_determination",
        caseId: CASE,
        fact:
          `your own note before this call says "Only 1 of 3 required bullets is met, so I will disclose ` +
          `and submit."`,
      },
    },
  ],
};
