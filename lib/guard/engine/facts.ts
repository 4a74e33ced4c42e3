/** Pure queries over the evidence that several rules, the closure gate and the critic share. */
import { type CallRecord, caseKeyOf, type Evidence, inputIds } from "./evidence.ts";
import { extractIds, stringsIn } from "./ids.ts";
import { isMutating, shownName } from "./names.ts";
import type { Call } from "./rule.ts";

/** Successful calls of one registered tool, in order, optionally filtered by input. */
export function okCalls(
  ev: Evidence,
  tool: string,
  where: (input: Record<string, unknown>) => boolean = () => true,
): CallRecord[] {
  return ev.calls.filter((c) => c.ok && c.tool === tool && where(c.input));
}

/** Per-evidence progress of `someCallEver` queries: calls scanned so far, and whether one matched. */
const EVER = new WeakMap<Evidence, Map<string, { scanned: number; found: boolean }>>();

/**
 * True when any call so far matches `test`, a test of the call alone that always gives the same answer for the
 * same call (the calls are only ever appended): remembered per evidence under `key`, so a resident guard scans
 * each call once per question instead of the whole session at every terminal call.
 */
export function someCallEver(ev: Evidence, key: string, test: (c: CallRecord) => boolean): boolean {
  let memo = EVER.get(ev);
  if (!memo) EVER.set(ev, memo = new Map());
  let at = memo.get(key);
  if (!at || at.scanned > ev.calls.length) memo.set(key, at = { scanned: 0, found: false });
  for (; !at.found && at.scanned < ev.calls.length; at.scanned++) {
    if (test(ev.calls[at.scanned])) at.found = true;
  }
  return at.found;
}

/** The case key (subject key) a call acts on, or null. */
export function caseOf(ev: Evidence, input: Record<string, unknown>): string | null {
  return caseKeyOf(input, ev.owners);
}

/** Successful calls of a tool on the same case as `input` (all of them when the call names no case). */
export function okOnCase(ev: Evidence, tool: string, input: Record<string, unknown>): CallRecord[] {
  const key = caseOf(ev, input);
  return okCalls(ev, tool).filter((c) => key === null || caseOf(ev, c.input) === key);
}

/** An object argument, parsing it when the model passed JSON text; null when it is neither. */
export function objectArg(value: unknown): Record<string, unknown> | null {
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}

/** An array field of an object (empty when absent). */
export function listOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v) => v && typeof v === "object") : [];
}

/** True when a value is a non-empty string or a non-empty array. */
export function filled(value: unknown): boolean {
  if (typeof value === "string") return value.trim().length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && value !== undefined && value !== false;
}

/**
 * Ids and codes grounded in the prompt or an earlier result, normalised: the evidence's `seen` set (ids
 * extracted from full results before the ledger caps them), minus ids that only ever came back as echoes of
 * the agent's own mutation arguments (an invented `PAYER-MD-001` echoed by the server stays invented),
 * whether the agent passed the id as a whole argument or wrote it inside one (a note, a document).
 */
export function groundedIds(ev: Evidence): Set<string> {
  // Folded evidence keeps the set up to date record by record; only hand-built evidence is rescanned.
  return ev.index ? ev.index.grounded : groundedIdsByScan(ev);
}

/** `groundedIds` computed from the whole history: the reference the fold's running set is tested against. */
export function groundedIdsByScan(ev: Evidence): Set<string> {
  const cached = GROUNDED.get(ev);
  if (cached && cached.calls === ev.calls.length) return cached.ids;
  const out = new Set(ev.seen);
  const prompt = new Set(idsOf(ev.prompt));
  for (const id of prompt) out.add(id);
  const written = ev.calls.map((c) => c.ok && isMutating(c.tool) ? new Set(inputIds(c.input)) : null);
  const echoes = new Set(written.flatMap((w) => w ? [...w] : []));
  for (const id of echoes) {
    if (!out.has(id) || prompt.has(id)) continue;
    // A result counts through the ids of the whole result, not the ledger's capped copy of it: an id past
    // the cap (a P2P request after a long MD rationale) is still what the system returned.
    const elsewhere = ev.calls.some((c, i) =>
      c.ok && !written[i]?.has(id) && (c.ids ?? (c.text ? idsOf(c.text) : [])).includes(id)
    );
    if (!elsewhere) out.delete(id);
  }
  GROUNDED.set(ev, { calls: ev.calls.length, ids: out });
  return out;
}

/** The payer calls that record a clinical decision or its consequences (reviews, determination, decision letters). */
export const CLINICAL_DECISION_TOOLS = [
  "review.submit_nurse_case_recommendation",
  "review.submit_md_case_decision",
  "determination.finalize",
  "payer_letter_center.generate_approval",
  "payer_letter_center.generate_denial",
  "payer_letter_center.generate_partial_approval",
];

/** A result's text with one level of JSON string escaping undone, for harnesses that wrap results as escaped text. */
export function plainText(text: string): string {
  return text.includes('\\"') ? text.replaceAll('\\"', '"').replaceAll("\\n", "\n") : text;
}

/** Per-evidence memo of groundedIds (several rules ask on one call); keyed weakly, so it never leaks. */
const GROUNDED = new WeakMap<Evidence, { calls: number; ids: Set<string> }>();
/** Memo of extractIds by text: replaying a long session re-reads the same results at every call. */
const ID_MEMO = new Map<string, string[]>();

/** extractIds, memoised for texts long enough to matter (bounded, cleared when full). */
function idsOf(text: string): string[] {
  if (text.length < 256) return extractIds(text);
  let ids = ID_MEMO.get(text);
  if (!ids) {
    if (ID_MEMO.size > 4000) ID_MEMO.clear();
    ids = extractIds(text);
    ID_MEMO.set(text, ids);
  }
  return ids;
}

/** Every string inside a value (objects and arrays walked), capped. */
export { stringsIn };

/** The tool name as the model sees it. */
export function shown(call: Call): string {
  return shownName(call.tool);
}

/**
 * The last successfully saved CM care plan body for the case (save replaces the whole body): the plan_data
 * sent when it carries `problems`, else the stored plan the result shows; null when nothing was saved.
 */
export function lastSavedPlan(ev: Evidence, input: Record<string, unknown>): Record<string, unknown> | null {
  const saves = okOnCase(ev, "cm_care_plan.save_care_plan", input);
  for (const save of saves.toReversed()) {
    const sent = objectArg(save.input.plan_data);
    if (sent && Array.isArray(sent.problems)) return sent;
    const stored = objectArg(save.result);
    if (stored && Array.isArray(stored.problems)) return stored;
    if (sent) return sent;
  }
  return null;
}

/** `mutatingTools` per tool list: five rules ask about the same catalog as every hook process loads them. */
const MUTATING = new WeakMap<readonly unknown[], string[]>();

/** Registered names of every exposed mutating (or terminal) tool (a fresh array; the list is read once). */
export function mutatingTools(tools: readonly { name: string; exposed: boolean }[]): string[] {
  let names = MUTATING.get(tools);
  if (!names) {
    MUTATING.set(
      tools,
      names = tools.filter((t) => t.exposed && isMutating(t.name)).map((t) => t.name),
    );
  }
  return [...names];
}

/** True when the text of a successful result shows a P2P request open for conversation. */
export function showsEventOpen(raw: string): boolean {
  const text = plainText(raw);
  return /"status"\s*:\s*"event_open"/.test(text) || /\bstatus\W+event_open\b/.test(text);
}

/** The id a call passes in an argument, trimmed (empty when absent). */
export function idArg(input: Record<string, unknown>, name: string): string {
  const v = input[name];
  return typeof v === "string" ? v.trim() : "";
}

/** Case-naming arguments, most specific first. */
const CASE_ARGS = ["case_id", "cm_case_id", "intake_case_id", "referral_id"];

/** The raw case id a call names (first case argument), or empty. */
export function rawCase(input: Record<string, unknown>): string {
  for (const name of CASE_ARGS) {
    const id = idArg(input, name);
    if (id) return id;
  }
  return "";
}

const SESSION = ["p2p_session.get_context", "p2p_session.send_turn"];
const SCHEDULING = ["p2p.offer_slots", "p2p.schedule"];
/** A result that reports an error in its text although the harness did not flag it (seen in openai-agents runs). */
const NOT_OPEN =
  /^\W*(?:\{"type":\s*"text",\s*"text":\s*")?Error executing tool|No active peer-to-peer session/;

/** True when the P2P session for the request opened in this session. */
export function sessionOpened(ev: Evidence, requestId: string): boolean {
  return ev.calls.some((c) =>
    c.ok && idArg(c.input, "request_id") === requestId && !NOT_OPEN.test(c.text) &&
    (SESSION.includes(c.tool) || (SCHEDULING.includes(c.tool) && showsEventOpen(c.text)))
  );
}
