/**
 * How complete the next call a block reason names is, read from the reason as the model reads it: `complete`
 * when it names a tool and every id that tool needs is in the reason and in the evidence (the prompt or an
 * earlier result), `partial` when it names a tool but an id is missing, a placeholder or one the evidence does
 * not hold, `none` when it names no tool. The next call is the first tool the reason names after its state
 * ("Cannot …: state. <next step>"); a reason that first names a lookup (a read tool) is graded on that lookup,
 * the exact call that returns what the one after it needs. An id counts when the reason writes it as the
 * argument (`case_id=CASE-…`), or, in prose, when an id of that argument's kind appears in the reason.
 * Replay grades every deny reason and stop-gate obligation with it (replay.ts); it reads text, so a reason in
 * any format (the guard's before and after issue 37) is graded the same way.
 */
import { TOOLS } from "../../rules/catalog/tools.ts";
import { ID_SHAPES, normalizeId } from "../guard/engine/ids.ts";
import { foldEvidence } from "../guard/engine/evidence.ts";
import { groundedIds } from "../guard/engine/facts.ts";
import type { LedgerRecord } from "../guard/engine/record.ts";

/** A reason's grade. */
export type Grade = "complete" | "partial" | "none";

/** Deny reasons (or stop-gate obligations) of one protector, by grade. */
export interface NextCallCounts {
  complete: number;
  partial: number;
  none: number;
  /** Of `partial`: reasons whose missing ids the evidence held none of (no id of that kind was seen yet). */
  unheld: number;
}

/** Nothing counted yet. */
export function nextCallCounts(): NextCallCounts {
  return { complete: 0, partial: 0, none: 0, unheld: 0 };
}

/** Adds counts into a running total. */
export function addCounts(into: NextCallCounts, more: NextCallCounts): void {
  into.complete += more.complete;
  into.partial += more.partial;
  into.none += more.none;
  into.unheld += more.unheld ?? 0;
}

/** Counts one graded reason. */
export function countGrade(into: NextCallCounts, graded: { grade: Grade; held?: boolean }): void {
  into[graded.grade]++;
  if (graded.grade === "partial" && graded.held === false) into.unheld++;
}

/** The share complete, over every reason and over those whose ids the evidence held. */
export function completeShares(n: NextCallCounts): { all: number | null; held: number | null } {
  const all = n.complete + n.partial + n.none;
  const held = all - (n.unheld ?? 0);
  return { all: all ? n.complete / all : null, held: held ? n.complete / held : null };
}

/** The id kind (lib/guard/engine/ids.ts ID_SHAPES) an id argument takes, for ids written in prose. */
const ARG_KINDS: Record<string, keyof typeof ID_SHAPES> = {
  case_id: "case",
  patient_id: "patient",
  request_id: "p2p",
  letter_id: "letter",
  document_id: "document",
  document_ids: "document",
  bundle_document_id: "document",
  session_id: "session",
  payer_contact_id: "contact",
  referral_id: "referral",
  ordering_practitioner_id: "practitioner",
};

/**
 * Ids a P2P call cannot go without although its signature defaults them: with no payer_contact_id the
 * simulator looks up the contact `SYSTEM` and refuses ("No contact found with id 'SYSTEM'", in the packets).
 */
const NEEDED: Record<string, string[]> = {
  "p2p.offer_slots": ["payer_contact_id"],
  "p2p.schedule": ["payer_contact_id"],
  "p2p.record_outcome": ["payer_contact_id"],
};

/** The id arguments a tool needs: the catalog's required arguments that are ids, and NEEDED. */
export function requiredIds(tool: string): string[] {
  const info = TOOLS.find((t) => t.name === tool);
  if (!info) return [];
  const ids = new Set([...info.caseArgs, ...info.idArgs]);
  return [...new Set([...info.required.filter((a) => ids.has(a)), ...NEEDED[tool] ?? []])];
}

/** Every tool as a reason names it (`namespace_method`), longest first so no name matches inside another. */
const NAMES = TOOLS.map((t) => ({ tool: t.name, shown: t.name.replace(".", "_") }))
  .sort((a, b) => b.shown.length - a.shown.length);
const NAMED = new RegExp(`(?<![\\w.])(${NAMES.map((n) => n.shown).join("|")})(?![\\w])`, "g");

/** The first tool a text names, and where. */
function firstTool(text: string): { tool: string; at: number } | null {
  NAMED.lastIndex = 0;
  const m = NAMED.exec(text);
  return m ? { tool: NAMES.find((n) => n.shown === m[1])!.tool, at: m.index } : null;
}

/** Where the next step starts: after the state sentence that follows "Cannot …:" (the whole text otherwise). */
export function nextStepAt(reason: string): number {
  const colon = reason.indexOf(": ");
  if (!/^\s*(?:\[[\w-]+\]\s*)?Cannot\b/.test(reason) || colon < 0) return 0;
  const end = /[.?!]["')\]]*\s+(?=["'(`[<A-Z])/g;
  end.lastIndex = colon;
  const m = end.exec(reason);
  return m ? m.index + m[0].length : reason.length;
}

/** The values a text gives an argument after `at`: `arg=value` or `arg=[a, b]` (quotes removed). */
function argValues(text: string, arg: string, at: number): string[] | null {
  const re = new RegExp(
    `(?<![\\w])${arg}\\s*[=:]\\s*(\\[[^\\]]*\\]|"[^"]*"|'[^']*'|<[^>]*>|[^\\s,;)]+)`,
    "g",
  );
  re.lastIndex = at;
  const m = re.exec(text);
  if (!m) return null;
  const raw = m[1];
  const list = raw.startsWith("[") ? raw.slice(1, -1).split(/\s*,\s*/) : [raw];
  return list.map((v) => v.trim().replace(/^["']|["'.]$/g, "")).filter(Boolean);
}

/** True for a value the model still has to fill in: `<…>`, `…`, empty. */
function placeholder(value: string): boolean {
  return !value || /^<.*>$|…|\.\.\./.test(value);
}

/**
 * Grades one reason (a rule's, a judge's message, or a stop-gate obligation line) against the ids the
 * evidence holds (`known` takes an id as the model would write it).
 */
export function gradeReason(
  reason: string,
  ids: ReadonlySet<string>,
): { grade: Grade; tool?: string; missing?: string[]; held?: boolean } {
  const known = (id: string) => ids.has(normalizeId(id));
  const from = nextStepAt(reason);
  const next = firstTool(reason.slice(from));
  if (!next) return { grade: "none" };
  const at = from + next.at;
  const missing = requiredIds(next.tool).filter((arg) => {
    const values = argValues(reason, arg, at);
    if (values) return !values.length || values.some((v) => placeholder(v) || !known(v));
    const kind = ARG_KINDS[arg];
    if (!kind) return true;
    const shape = ID_SHAPES[kind];
    return !(reason.match(/[A-Za-z0-9_.-]+/g) ?? []).some((token) => shape.test(token) && known(token));
  });
  if (!missing.length) return { grade: "complete", tool: next.tool };
  // Held: for every missing argument, the evidence holds some id of its kind the reason could have named.
  const held = missing.every((arg) => {
    const kind = ARG_KINDS[arg];
    if (!kind) return true;
    const shape = new RegExp(ID_SHAPES[kind].source, "i");
    return [...ids].some((id) => shape.test(id));
  });
  return { grade: "partial", tool: next.tool, missing, held };
}

/** The stop-gate reason's obligations, each as its own line (`- ID: what is open; close it with …`). */
export function obligationLines(reason: string): { id: string; line: string }[] {
  const out: { id: string; line: string }[] = [];
  for (const m of reason.matchAll(/^- ([A-Z]+-[A-Z0-9-]+): (.*)$/gm)) out.push({ id: m[1], line: m[2] });
  return out;
}

/**
 * What the model read in one block, graded: each rule's or judge's message of a deny, each obligation of a
 * stop block (from "; " on: what closes it), against the ids of the evidence folded from the records before.
 */
export function gradeRecord(
  record: LedgerRecord,
  before: readonly LedgerRecord[],
): [string, { grade: Grade; held?: boolean }][] {
  if (record.decision !== "deny" && record.decision !== "block") return [];
  const ids = groundedIds(foldEvidence(before));
  const graded: [string, string][] = record.event === "stop"
    ? obligationLines(record.reason ?? "").map((o) => [o.id, o.line.slice(o.line.indexOf("; ") + 1)])
    : (record.rules ?? []).map((h) => [h.id, h.message]);
  return graded.map(([id, text]) => [id, gradeReason(text, ids)]);
}
