/**
 * The critic panel. On terminal calls three deterministic judges (contract, grounding, policy) vote, and they
 * block when at least two object. At the decision points the checklist cannot judge, the decision-point judges
 * of lib/guard/engine/judges/ vote too, and an enforced one blocks on its own (protocol v2, docs/EVALUATION_PROTOCOL.md);
 * a shadow one is only recorded. Checklist blocks stand on their own (decide.ts).
 */
import { type Evidence, heldHex } from "./evidence.ts";
import { redactText } from "./secrets.ts";
import { groundedIds } from "./facts.ts";
import { extractIds, ID_SHAPES, normalizeId } from "./ids.ts";
import type { RuleHit, Vote } from "./record.ts";
import { type JudgeContext, NO_TEXT } from "./judge.ts";
import { JUDGES } from "./judges/mod.ts";
import { type Call, renderMessage } from "./rule.ts";
import { shownName } from "./names.ts";
import { lookupCall, sameCallWith } from "./next_ids.ts";

/** Argument names whose values are identifiers or codes the call must have observed. */
const ID_KEY = /(^|_)(id|ids|npi|code|codes)$/;
/** Identifier-named arguments that are free labels, not records (`reviewer_id` defaults to `SYSTEM`). */
const FREE_LABELS = new Set(["reviewer_id", "actor", "author_id", "line_number"]);
/** Code shapes checked wherever they appear under an id/code key: ICD-10, CPT, HCPCS, NPI. */
export const CODE_SHAPES = [
  /^[A-TV-Z]\d[0-9A-Z](?:\.?[0-9A-Z]{1,4})?$/i, // ICD-10-CM
  /^\d{4}[0-9A-Z]$/, // CPT (incl. category II/III)
  /^[A-V]\d{4}$/i, // HCPCS level II
  /^\d{10}$/, // NPI
];

/** Free-text rationale fields the policy judge reads, in the order it reports them. */
export const RATIONALE_ARGS = [
  "determination_rationale",
  "denial_rationale",
  "override_reason",
  "rationale",
  "reason",
  "summary",
  "note",
  "disposition_reason",
];
/** The shortest rationale that can name a criterion and the evidence behind it. */
export const MIN_RATIONALE = 40;
/** Whole-text boilerplate: rationales that say nothing about this case. */
const BOILERPLATE = new RegExp(
  "^(?:n/?a|none|ok|done|test|approved?|denied?|see (?:above|notes?|chart)|per (?:policy|guidelines?)|" +
    "as discussed|criteria (?:are |were )?(?:not )?met|meets? (?:all )?criteria|does not meet criteria|" +
    "medically (?:un)?necessary|not medically necessary|insufficient (?:documentation|information))\\.?$",
  "i",
);
const STOP = new Set(
  ("about after again against because before being between could does doing during having other should " +
    "their there these those through under until which while would patient member request policy criteria " +
    "criterion review decision approved denied approve denial documentation documented clinical medical " +
    "provided information additional service services requested").split(" "),
);

/** Every (key, string) pair inside a value, keys from the nearest object. */
function entries(value: unknown, key = "", out: [string, string][] = [], depth = 0): [string, string][] {
  if (depth > 6 || out.length > 400) return out;
  if (typeof value === "string") out.push([key, value]);
  else if (Array.isArray(value)) { for (const v of value) entries(v, key, out, depth + 1); }
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) entries(v, k, out, depth + 1);
  }
  return out;
}

/**
 * What every id and code shape has: no whitespace, and a digit or a dash (each id shape has a dash, each code
 * shape a digit). Tested first, so the fourteen shapes (each compiled on its first use, in every hook process)
 * are tried only on a value that could be one.
 */
export const MAYBE_IDENTIFIER = /^[^\s]*[\d-][^\s]*$/;

/** True for a value that looks like a record id or a clinical code (ICD-10, CPT, HCPCS, NPI). */
export function isIdentifier(value: string): boolean {
  const v = value.trim();
  return MAYBE_IDENTIFIER.test(v) &&
    (Object.values(ID_SHAPES).some((re) => re.test(v)) || CODE_SHAPES.some((re) => re.test(v)));
}

/** Contract judge: the deterministic terminal-state contract of this call, i.e. the checklist rules that fired. */
export function contractJudge(hits: RuleHit[]): Vote {
  return hits.length
    ? { judge: "contract", object: true, reason: `contract rules fired: ${hits.map((h) => h.id).join(", ")}` }
    : { judge: "contract", object: false, reason: "no contract rule fired" };
}

/**
 * Grounding judge: every identifier and code under an id/code argument (case, patient, request, letter ids,
 * ICD-10, CPT/HCPCS, NPI), and every id-shaped value anywhere, appeared earlier in the prompt or a result,
 * compared after normalising case, ICD-10 dots and whitespace. Echoes of the agent's own arguments do not count.
 */
export function groundingJudge(call: Call, ev: Evidence): Vote {
  const grounded = groundedIds(ev);
  const held = heldHex(ev);
  const unseen: string[] = [];
  for (const [key, raw] of entries(call.input)) {
    if (FREE_LABELS.has(key)) continue;
    // Split after redaction: a key cut from its name (`ADAFRUIT_IO = <key>` into three) no longer looks like one.
    const value = redactText(raw, held).trim();
    // A list written as text ("M54.41, M51.16") is checked item by item.
    const candidates = ID_KEY.test(key)
      ? value.split(/[,;]\s*|\s+/).filter((v) => v && v.length <= 64)
      : isIdentifier(value)
      ? [value]
      : [];
    for (const c of candidates) if (!grounded.has(normalizeId(c))) unseen.push(`${key}=${c}`);
  }
  return unseen.length
    ? {
      judge: "grounding",
      object: true,
      reason: `not seen in the prompt or any earlier result: ${unseen.join(", ")}`,
    }
    : { judge: "grounding", object: false, reason: "every identifier and code was observed" };
}

/** Content words (5+ letters, not generic) of a text, lower case. */
function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z][a-z-]{4,}/g) ?? []) if (!STOP.has(w)) out.add(w);
  return out;
}

/**
 * Content words seen so far, kept per evidence object and extended with new calls only: serve mode and replay
 * fold one growing evidence per session, so a terminal call need not re-read every earlier result.
 */
const WORDS = new WeakMap<Evidence, { prompt: string; calls: number; words: Set<string> }>();

/** The case vocabulary: content words and ids from the prompt and every successful earlier result. */
function caseVocabulary(ev: Evidence): CaseVocabulary {
  let seen = WORDS.get(ev);
  if (!seen || seen.prompt !== ev.prompt || seen.calls > ev.calls.length) {
    seen = { prompt: ev.prompt, calls: 0, words: contentWords(ev.prompt) };
    WORDS.set(ev, seen);
  }
  for (; seen.calls < ev.calls.length; seen.calls++) {
    const c = ev.calls[seen.calls];
    if (c.ok) { for (const w of contentWords(c.text.slice(0, 200_000))) seen.words.add(w); }
  }
  return { words: seen.words, ids: groundedIds(ev) };
}

/** The case vocabulary, or a function that builds it when the first rationale gets as far as needing it. */
type VocabularySource = CaseVocabulary | (() => CaseVocabulary);

/** Content words and ids from the prompt and every successful earlier result. */
interface CaseVocabulary {
  words: Set<string>;
  ids: Set<string>;
}

/**
 * What is wrong with one rationale text, or null when it is specific to the case. The vocabulary is built only
 * for a rationale that passes the length, boilerplate and word-count checks (a short rationale on a long
 * session then costs nothing; building it reads every earlier result).
 */
export function rationaleProblem(text: string, source: VocabularySource): string | null {
  const t = text.trim();
  if (t.length < MIN_RATIONALE) return `is ${t.length} characters (at least ${MIN_RATIONALE})`;
  if (BOILERPLATE.test(t)) return "is boilerplate";
  const words = [...contentWords(t)];
  if (words.length < 3) return "is boilerplate (fewer than 3 specific words)";
  const vocabulary = typeof source === "function" ? source() : source;
  const cited = extractIds(t).some((id) => vocabulary.ids.has(id)) ||
    words.filter((w) => vocabulary.words.has(w)).length >= 2;
  return cited ? null : "cites no criterion or evidence item seen in the case";
}

/** Policy judge: rationale fields are specific (long enough, citing something seen in the case, not boilerplate). */
export function policyJudge(call: Call, ev: Evidence): Vote {
  const problems: string[] = [];
  let vocabulary: CaseVocabulary | null = null;
  const built = () => (vocabulary ??= caseVocabulary(ev));
  for (const key of RATIONALE_ARGS) {
    const value = call.input[key];
    const text = typeof value === "string"
      ? value
      : value && typeof value === "object"
      ? entries(value).map(([, s]) => s).join(" ")
      : null;
    if (text === null) continue;
    const problem = rationaleProblem(text, built);
    if (problem) problems.push(`${key} ${problem}`);
  }
  if (call.input.overridden === true && !String(call.input.override_reason ?? "").trim()) {
    problems.push("overridden=true without an override_reason");
  }
  return problems.length
    ? { judge: "policy", object: true, reason: problems.join("; ") }
    : { judge: "policy", object: false, reason: "every rationale is specific (or none is required)" };
}

/** Arguments that carry a terminal call's decision: kept as they are in the panel's next call. */
const DECISION_ARGS = [
  "decision",
  "final_action",
  "recommendation",
  "outcome",
  "proposed_result",
  "signed_off",
];

/**
 * The panel's next call: the same call with the rationale the policy judge found wanting written out (the
 * rules that fired name their own next calls in the same reason), or, for an unseen id alone, its lookup.
 */
function panelNext(call: Call, ev: Evidence, objecting: Vote[]): string {
  const decision = Object.fromEntries(
    DECISION_ARGS.filter((k) => call.input[k] !== undefined).map((k) => [k, call.input[k]]),
  );
  const policy = objecting.find((v) => v.judge === "policy");
  if (policy) {
    const fields = RATIONALE_ARGS.filter((k) => policy.reason.includes(k));
    const written = Object.fromEntries(
      fields.map((
        k,
      ) => [
        k,
        `<the policy criterion and the chart evidence behind it, at least ${MIN_RATIONALE} characters>`,
      ]),
    );
    return `Call ${sameCallWith(call, { ...decision, ...written }, ev)}`;
  }
  const unseen = /(\w+)=\S/.exec(objecting.find((v) => v.judge === "grounding")?.reason ?? "")?.[1];
  const lookup = unseen ? lookupCall(unseen, call, ev) : null;
  return lookup ? `Look the id up with ${lookup}, then call ${sameCallWith(call, decision, ev)} with it` : "";
}

/** The panel's three votes for a terminal call. */
export function panel(call: Call, ev: Evidence, hits: RuleHit[]): Vote[] {
  return [contractJudge(hits), groundingJudge(call, ev), policyJudge(call, ev)];
}

/** True when at least two of the three panel judges object (decision-point votes are not counted here). */
export function panelObjects(votes: Vote[]): boolean {
  return votes.filter((v) => v.object && !v.mode).length >= 2;
}

/**
 * The decision-point judges' votes on a call (none when no judge triggers on it): each judge that triggers
 * for the session's seat votes, its reason the rendered message when it objects. Checkpoints vote only when
 * `checkpoints` is set (the critic arm): they find no fact, so elsewhere their vote would say nothing.
 */
export function judgeVotes(
  call: Call,
  ev: Evidence,
  context: JudgeContext = NO_TEXT,
  checkpoints = false,
): Vote[] {
  const votes: Vote[] = [];
  for (const judge of JUDGES) {
    if (!judge.meta.triggers.includes(call.tool) || (ev.seat && ev.seat !== judge.meta.seat)) continue;
    if (judge.meta.checkpoint && !checkpoints) continue;
    const data = judge.check(call, ev, context);
    votes.push({
      judge: judge.meta.name,
      object: data !== null,
      reason: data ? renderMessage(judge.meta.message, data) : "no contradiction found",
      mode: judge.meta.enforced ? "decisive" : "shadow",
    });
  }
  return votes;
}

/**
 * The blocks the panel asks for: `CRITIC` for two of three, and one per objecting decisive judge (its own ID).
 * A checkpoint's block protects no check: what it changes is for a paid run to show, not for replay to count.
 */
export function criticHits(votes: Vote[], call?: Call, ev?: Evidence): RuleHit[] {
  const hits: RuleHit[] = [];
  if (panelObjects(votes)) {
    const objecting = votes.filter((v) => v.object && !v.mode);
    const reasons = objecting.map((v) => `${v.judge}: ${v.reason}`).join("; ");
    const next = call && ev ? panelNext(call, ev, objecting) : "";
    const tool = call ? shownName(call.tool) : "this call";
    hits.push({
      id: "CRITIC",
      checks: [],
      message: `Cannot call ${tool} yet: two of the critic panel's three judges object (${reasons}). ` +
        (next ? `${next}.` : "Answer each objection, then call it again."),
    });
  }
  for (const v of votes) {
    if (!v.object || v.mode !== "decisive") continue;
    const judge = JUDGES.find((j) => j.meta.name === v.judge);
    if (judge) {
      hits.push({
        id: judge.meta.id,
        checks: judge.meta.checkpoint ? [] : judge.meta.protects,
        message: v.reason,
      });
    }
  }
  return hits;
}
