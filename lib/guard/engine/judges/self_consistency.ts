/**
 * Self-consistency at the provider's submit decision: block the first submission bundle of a case,
 * `submit_pa` or a direct submission when the agent's own record says a requirement is not met. Most provider
 * tasks expect a hold, and in real runs the agent builds and submits the packet in nearly every one, often
 * after writing the gap down itself: its questionnaire answer says "No" to "Was pre-test genetic counseling
 * completed?", its override_reason says the evaluation is "referred but not yet completed", the case it created
 * shows `"active": false` coverage. The judge names that fact and both paths (bundle and submit, or record the
 * hold and build no bundle); it never says which is right. It judges the bundle because the bundle is what
 * dooms the case: on a hold-expected task any bundle fails `packet_absent`, so a question asked only at the
 * determination (1 to 5 steps after the bundle in real runs) comes too late.
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
 *    in a sentence that names a requirement, criterion, prerequisite, gap or referral; criteria "not met" /
 *    "does not meet … policy"; "k of n criteria are met" with k < n; the policy "classifies … as unproven"; a
 *    request made "despite … exclusion". Saying a limitation is disclosed to the payer is no admission (until
 *    2026-12-06 it was, after P-PROV-07's former wording): what counts is what the sentence says is unmet;
 * 5. text — the same admissions in the agent's last three text messages before the call (best effort: the
 *    live transcript may lag the call, so replay, which reads the whole trajectory, sees at least as much).
 *
 * It asks once per case (decide.ts: its block budget counts its denies at every trigger on the case). At a
 * later bundle, or at auth_submit_authorization once a submit_pa determination succeeded on the case, it stays
 * silent: the case was already committed, or the decision was judged when it was recorded.
 *
 * A favourable negation is not an admission: a negated exclusion, contraindication or disqualifier ("does not
 * meet any exclusion", "exclusion criteria are not met"), or a sentence saying a criterion "is not relied on".
 *
 * Replay (`deno task replay ../shared/leaderboard ../shared/leaderboard-extra --no-ledgers`, 700 trials,
 * 10 packets): fires in 22 failed trials, all 22 with a protected check failed and all hold-expected
 * submissions (11 in the 300 tuned-on trials, 11 in the 400 unseen); in 0 passing trials and in 0 trials whose
 * task expected a submission (every provider trial whose scorecard does not judge
 * `provider_pre_submission.final_action`), in every packet, so it never challenged a correct submit. 18 of the
 * 22 fire at the first bundle, before `packet_absent` is lost; 4 only at the determination after it (replay's
 * split: 20 in time, 2 too late; 2 of the 4 are trials whose target case never resolved). In 10 the
 * checklist arm blocks nothing. Counted in time (a block counts only at or before the call that dooms each
 * failed check), the critic arm's rescue estimate rises by 8 (upper and strict); counted whenever it fired,
 * by 8 too. A disclosure is no admission since 2026-12-06: that took 3 fires in P1 (25 → 22; 1 in time, 2
 * too late) and no rescue. Figures per packet: replay, docs/measured.md.
 * Known limitations: recall is modest by construction — most hold-expected submissions are made by agents that
 * believed every criterion was met, and then no record of theirs contradicts the submission; the judge cannot
 * see that. The phrases are English and content-sensitive (regexes over the agent's own words), so an agent
 * that writes "not yet completed" about the requested service itself in a sentence naming a requirement would
 * be asked once needlessly; the message asks for a decision, not a retraction.
 */
import { caseKeyOf, type Evidence, succeeded } from "../evidence.ts";
import { objectArg, okCalls, plainText } from "../facts.ts";
import { type Judge, type JudgeContext, quote } from "../judge.ts";
import { arg, type Call, toolCall } from "../rule.ts";
import { callText } from "../next_call.ts";

const BUNDLE = "docs.create_submission_bundle";
const FINALIZE = "auth.finalize_provider_determination";
const SUBMIT = "auth.submit_authorization";

/** What the blocked call would do, as the message's opening names it. */
const ACTIONS: Record<string, (caseId: string) => string> = {
  [BUNDLE]: (caseId) => `build a submission bundle for ${caseId}`,
  [FINALIZE]: (caseId) => `record submit_pa on ${caseId}`,
  [SUBMIT]: (caseId) => `submit ${caseId}`,
};

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
const ABOUT_A_REQUIREMENT = /\b(?:requir\w*|criteri\w*|prerequisite\w*|gap|referr\w*)\b/i;
/** A sentence (clauses split at `;` too); the admissions below stay within one, never across a colon. */
const SENTENCE = /[^.;!?\n]+/g;
/**
 * Admissions that need no qualifier: unmet criteria, an unproven service, an exclusion overridden. Disclosing
 * a limitation to the payer is not one (a letter that states a limitation is ordinary practice; amendment
 * 2026-12-06): only what it says is unmet counts.
 */
const ADMISSIONS: { re: RegExp; negation: boolean }[] = [
  {
    re:
      /\b(?:criteri(?:on|a)|requirements?|prerequisites?|thresholds?)\b[^:]{0,60}?\b(?:is|are|remains?|was|were)\s+(?:not\s+|un)(?:met|satisfied|fulfilled)\b/i,
    negation: true,
  },
  {
    re:
      /\b(?:does|do|did)\s+not\s+(?:meet|satisfy|fulfil+|establish)\b[^:]{0,60}\b(?:criteri|requirement|polic|threshold|indication)/i,
    negation: true,
  },
  {
    re:
      /(?<!\bnot\s)\b(?:classif\w+|considers?|lists?|deems?|labels?)\b[^:]{0,60}\bas\s+(?:unproven|investigational|experimental|not medically necessary)\b/i,
    negation: false,
  },
  { re: /\bdespite\b[^:]{0,80}\b(?:exclusion|unproven)\b/i, negation: false },
];
/**
 * Favourable negations: what is "not met" is an exclusion, a contraindication or a disqualifier ("does not meet
 * any exclusion", "exclusion criteria are not met"), said in the span or just before it in the sentence.
 */
const UNFAVOURABLE_THING = /\b(?:exclu\w*|contraindicat\w*|disqualif\w*|red[ -]flags?|hard[ -]stops?)\b/i;
/** How far before a negation's span an exclusion word still names what is negated. */
const LOOKBACK = 40;
/** A sentence saying a criterion is not relied on: whatever it negates, the request does not rest on it. */
const NOT_RELIED_ON =
  /\bnot\s+(?:being\s+)?relied\s+(?:on|upon)\b|\b(?:does|do|did)\s+not\s+rely\s+(?:on|upon)\b/i;
/** "1 of 3 required criteria are met". */
const COUNT =
  /\b(\d+|one|two|three|four|five)\s+of\s+(?:the\s+)?(\d+|two|three|four|five|six)\s+(?:\w+\s+){0,2}(?:criteria|bullets|requirements|elements|items)\s+(?:is|are)\s+met\b/i;
const NUMBERS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

function count(word: string): number {
  return NUMBERS[word.toLowerCase()] ?? Number(word);
}

/** The first span of `re` in the sentence that admits a gap (a favourable negation is skipped); null if none. */
function admits(re: RegExp, negation: boolean, sentence: string): RegExpExecArray | null {
  for (let from = 0; from < sentence.length;) {
    const hit = re.exec(sentence.slice(from));
    if (!hit) return null;
    hit.index += from;
    const said = sentence.slice(Math.max(0, hit.index - LOOKBACK), hit.index + hit[0].length);
    if (!negation || !UNFAVOURABLE_THING.test(said)) return hit;
    from = hit.index + hit[0].length;
  }
  return null;
}

/** The first admission in a text, as the span that says it; null when the text admits nothing. */
export function admission(text: string): { at: number; length: number } | null {
  for (const m of text.matchAll(SENTENCE)) {
    const sentence = m[0];
    if (NOT_RELIED_ON.test(sentence)) continue;
    const done = NOT_DONE.exec(sentence);
    if (done && ABOUT_A_REQUIREMENT.test(sentence)) {
      return { at: m.index + done.index, length: done[0].length };
    }
    for (const { re, negation } of ADMISSIONS) {
      const hit = admits(re, negation, sentence);
      if (hit) return { at: m.index + hit.index, length: hit[0].length };
    }
    const c = admits(COUNT, true, sentence);
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
export function latestAnswers(ev: Evidence, call: Call): Map<string, string> {
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

/** The arguments that make the call the same call again (ids and the decision; not the free text). */
const SAME = ["case_id", "final_action", "document_ids", "bundle_document_id", "channel"];

/** Both next calls, in full: the same call again, and the hold on the same case. */
export function bothPaths(call: Call): { again: string; hold: string } {
  const same = Object.fromEntries(
    SAME.filter((k) => call.input[k] !== undefined).map((k) => [k, call.input[k]]),
  );
  return {
    again: callText(call.tool, same),
    hold: callText(FINALIZE, {
      case_id: arg(call, "case_id"),
      final_action: "gather_more_evidence",
      override_reason: "<the criterion the chart does not back>",
    }),
  };
}

/** True when a submission bundle already succeeded on the case (only the first one commits it). */
function bundled(ev: Evidence, call: Call): boolean {
  return succeeded(ev, BUNDLE, caseKeyOf(call.input, ev.owners)).length > 0;
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
const BUNDLED = (ready: boolean) =>
  toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-1"] }, {
    result: { readiness: { ready_to_submit: ready, missing_items: ready ? [] : ["lab_result"] } },
  });

const BUNDLE_PATHS = bothPaths(toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-1"] }));
const DECIDE_PATHS = bothPaths(DECIDE());
const SUBMIT_PATHS = bothPaths(toolCall(SUBMIT, { case_id: CASE, channel: "portal" }));

/** CRITIC-01: no submission that the agent's own recorded findings contradict, without an explicit decision. */
export const judge: Judge<{ action: string; fact: string; again: string; hold: string }> = {
  meta: {
    id: "CRITIC-01",
    name: "self-consistency",
    seat: "provider",
    principle: "P-PROV-07",
    triggers: [BUNDLE, FINALIZE, SUBMIT],
    protects: [
      "provider_pre_submission.final_action",
      "provider_pre_submission.packet_absent",
      "new_referral.case_status",
      "cross.closed_backed_by_provider_determination",
    ],
    enforced: true,
    message: "Cannot {action} yet: {fact}, and that contradicts submitting. That fact decides whether to " +
      "submit or hold, and the choice is yours. If the chart does back every criterion it concerns, send the same " +
      "call again: {again} (this check asks once). If it does not, call {hold} and build no bundle " +
      "(final_action=do_not_submit instead when nothing added to the record could make the request " +
      "approvable).",
  },
  check(call, evidence, context) {
    if (call.tool === FINALIZE && call.input.final_action !== "submit_pa") return null;
    // A submit_pa determination was judged when it was recorded; a later bundle re-packages a decided case.
    if (call.tool !== FINALIZE && submitRecorded(evidence, call)) return null;
    if (call.tool === BUNDLE && bundled(evidence, call)) return null;
    const fact = inactiveCoverage(evidence, call) ?? unreadyBundle(evidence, call) ??
      contradictedAnswer(evidence, call) ?? admittedGap(call, context);
    return fact ? { action: ACTIONS[call.tool](arg(call, "case_id")), fact, ...bothPaths(call) } : null;
  },
  valid: [
    {
      name: "the override reason says every criterion is met",
      call: DECIDE({ override_reason: "All three criteria are met and documented." }),
      evidence: {},
    },
    {
      name: "the saved answer says counseling was completed",
      call: DECIDE(),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "Yes — completed 03/02" })] },
    },
    {
      name: "a No to a question not about a completed requirement (patient under 18)",
      call: DECIDE(),
      evidence: { calls: [FORM, SAVE({ patient_under_18: "No — patient is 48" })] },
    },
    {
      name: "a No to a conditional question (if prior fusion)",
      call: DECIDE(),
      evidence: { calls: [FORM, SAVE({ arthrodesis_confirmed: "No prior fusion" })] },
    },
    {
      name: "a saved answer of not applicable",
      call: DECIDE(),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "Not applicable" })] },
    },
    {
      name: "a later saved Yes replaces an earlier No",
      call: DECIDE(),
      evidence: {
        calls: [FORM, SAVE({ counseling_completed: "No" }), SAVE({ counseling_completed: "Yes" })],
      },
    },
    {
      name: "a hold (gather_more_evidence) after a saved No",
      call: DECIDE({ final_action: "gather_more_evidence" }),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "No" })] },
    },
    {
      name: "active coverage and a ready bundle",
      call: DECIDE(),
      evidence: { calls: [CREATED(true), BUNDLED(true)] },
    },
    {
      name: "the override says only the requested service is not yet performed",
      call: DECIDE({ override_reason: "The MRI has not yet been performed; it is the requested service." }),
      evidence: {},
    },
    {
      name: "a submit after the submit_pa determination was judged",
      call: toolCall(SUBMIT, { case_id: CASE, channel: "portal" }),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "No" }), DECIDE()] },
    },
    {
      name: "the agent's own note says 3 of 3 criteria are met",
      call: DECIDE(),
      evidence: {},
      recentText: ["All 3 of 3 criteria are met; submitting."],
    },
    // Favourable negations: an exclusion, contraindication or disqualifier not met; a criterion not relied on.
    {
      name: "an exclusion not met and a criterion not relied on",
      call: DECIDE({
        override_reason: "Both BMI criteria are met; the request does not meet any exclusion and is not " +
          "relied on as a criterion.",
      }),
      evidence: {},
    },
    {
      name: "exclusion criteria not met",
      call: DECIDE({ override_reason: "Exclusion criteria are not met (no active infection)." }),
      evidence: {},
    },
    {
      name: "no contraindication met",
      call: DECIDE({
        override_reason: "The patient does not meet any contraindication listed in the policy.",
      }),
      evidence: {},
    },
    {
      name: "disqualifying criteria not met, 3 of 3 criteria met",
      call: DECIDE({ override_reason: "Disqualifying criteria are not met; 3 of 3 criteria are met." }),
      evidence: {},
    },
    {
      name: "an unmet item not relied on as a criterion",
      call: DECIDE({
        override_reason: "Prior imaging is not met, but it is not relied on as a criterion here.",
      }),
      evidence: {},
    },
    {
      name: "a second bundle on a case already bundled",
      call: toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-2"] }),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "No" }), BUNDLED(true)] },
    },
  ],
  invalid: [
    {
      name: "a bundle while the case record shows coverage inactive",
      call: toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-1"] }),
      evidence: { calls: [CREATED(false)] },
      data: {
        action: `build a submission bundle for ${CASE}`,
        ...BUNDLE_PATHS,
        fact: `the case record shows coverage COV-b1 "active": false`,
      },
      reason: `Cannot build a submission bundle for ${CASE} yet: the case record shows coverage COV-b1 ` +
        `"active": false, and that contradicts submitting. That fact decides whether to submit or hold, and ` +
        "the choice is yours. If the chart does back every criterion it concerns, send the same call again: " +
        `docs_create_submission_bundle(case_id=${CASE}, document_ids=[DOC-1]) (this check asks once). If it ` +
        `does not, call auth_finalize_provider_determination(case_id=${CASE}, ` +
        "final_action=gather_more_evidence, override_reason=<the criterion the chart does not back>) and " +
        "build no bundle (final_action=do_not_submit instead when nothing added to the record could make the " +
        "request approvable).",
    },
    {
      name: "a bundle after a saved answer that counseling is not completed",
      call: toolCall(BUNDLE, { case_id: CASE, document_ids: ["DOC-1"] }),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "Not completed; referral placed" })] },
      data: {
        action: `build a submission bundle for ${CASE}`,
        ...BUNDLE_PATHS,
        fact:
          `your saved answer to "Was pre-test genetic counseling completed?" is "Not completed; referral ` +
          `placed"`,
      },
    },
    {
      name: "the override reason admits a criterion not met",
      call: DECIDE({ override_reason: "Criterion 3 is not met, and no exclusion applies." }),
      evidence: {},
      data: {
        action: `record submit_pa on ${CASE}`,
        ...DECIDE_PATHS,
        fact: `your override_reason says "Criterion 3 is not met, and no exclusion applies."`,
      },
    },
    {
      name: "submit_pa after a saved No to counseling",
      call: DECIDE(),
      evidence: { calls: [FORM, SAVE({ counseling_completed: "No - referral placed, not yet scheduled" })] },
      data: {
        action: `record submit_pa on ${CASE}`,
        ...DECIDE_PATHS,
        fact: `your saved answer to "Was pre-test genetic counseling completed?" is "No - referral placed, ` +
          `not yet scheduled"`,
      },
    },
    {
      name: "the call's own questionnaire answer says counseling was partial",
      call: DECIDE({ questionnaire_answers: { counseling_completed: "Partial — discussed only" } }),
      evidence: { calls: [FORM] },
      data: {
        action: `record submit_pa on ${CASE}`,
        ...DECIDE_PATHS,
        fact:
          `your saved answer to "Was pre-test genetic counseling completed?" is "Partial — discussed only"`,
      },
    },
    {
      name: "submit_pa while the case record shows coverage inactive",
      call: DECIDE(),
      evidence: { calls: [CREATED(false)] },
      data: {
        action: `record submit_pa on ${CASE}`,
        ...DECIDE_PATHS,
        fact: `the case record shows coverage COV-b1 "active": false`,
      },
    },
    {
      name: "a submit while the bundle reports not ready",
      call: toolCall(SUBMIT, { case_id: CASE, channel: "portal" }),
      evidence: { calls: [BUNDLED(false)] },
      data: {
        action: `submit ${CASE}`,
        ...SUBMIT_PATHS,
        fact: "your submission bundle reports ready_to_submit=false (missing: lab_result)",
      },
    },
    {
      name: "the override reason says the evaluation is not yet completed",
      call: DECIDE({
        override_reason: "BMI criteria are met. The evaluation required by policy is referred but not yet " +
          "completed and is flagged for payer review.",
      }),
      evidence: {},
      data: {
        action: `record submit_pa on ${CASE}`,
        ...DECIDE_PATHS,
        fact: `your override_reason says "BMI criteria are met. The evaluation required by policy is ` +
          `referred but not yet completed and is flagged for payer review."`,
      },
    },
    {
      name: "the override reason submits despite an exclusion",
      call: DECIDE({
        override_reason: "Submitting as an exception despite the policy's hybrid-surgery exclusion.",
      }),
      evidence: {},
      data: {
        action: `record submit_pa on ${CASE}`,
        ...DECIDE_PATHS,
        fact: `your override_reason says "Submitting as an exception despite the policy's hybrid-surgery ` +
          `exclusion."`,
      },
    },
    {
      name: "the agent's own note says 1 of 3 bullets are met",
      call: DECIDE(),
      evidence: {},
      recentText: [
        "Reading the policy.",
        "Only 1 of 3 required bullets is met, so I will disclose and submit.",
      ],
      data: {
        action: `record submit_pa on ${CASE}`,
        ...DECIDE_PATHS,
        fact:
          `your own note before this call says "Only 1 of 3 required bullets is met, so I will disclose ` +
          `and submit."`,
      },
    },
  ],
};
