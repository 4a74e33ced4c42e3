/** Evidence state folded from a session's ledger: pure functions, no I/O. */
import type { LedgerRecord } from "./record.ts";
import { isMutating, normalizeToolName } from "./names.ts";
import { detectPhase, detectSeat, type Phase, type Seat, seatFromTools } from "./seat.ts";
import { extractIds, normalizeId, stringsIn, subjectKey } from "./ids.ts";

/** A completed tool call as the rules see it. */
export interface CallRecord {
  id: string;
  tool: string;
  input: Record<string, unknown>;
  ok: boolean;
  result?: unknown;
  text: string;
  error?: string;
  sidechain?: boolean;
  /** Ids in the call's full result, extracted before the ledger capped it (the record's `ids`). */
  ids?: string[];
  /** The result was an object: `result` is `text` parsed (a checkpoint keeps the text only). */
  parsedText?: true;
}

/** Everything the rules may know when a call is pending. */
export interface Evidence {
  prompt: string;
  seat: Seat | null;
  phase: Phase | null;
  calls: CallRecord[];
  seen: Set<string>;
  owners: Map<string, string>;
  caseLock: string | null;
  denies: Map<string, number>;
  stopBlocks: number;
  /** Some evidence may be missing (a `degraded` record was folded): rules from absence do not enforce. */
  degraded: boolean;
  /** Running indexes kept by the fold; absent on hand-built evidence, whose queries then rescan the calls. */
  index?: EvidenceIndex;
}

/**
 * What the fold keeps beside the calls so a query on a pending call does not rescan the whole session: each
 * set only grows with appended records, so folding one record updates it in time independent of the length.
 */
export interface EvidenceIndex {
  /** Ids in the task prompt (`extractIds` of the kept prompt). */
  promptIds: Set<string>;
  /** The seat the prompt names, and the first seat a tool's namespace showed (the fallback). */
  promptSeat: Seat | null;
  toolSeat: Seat | null;
  /** Ids in the arguments of successful mutating calls: candidates for the server's echoes of them. */
  written: Set<string>;
  /** Ids a successful call returned that the same call did not pass in its arguments. */
  returned: Set<string>;
  /** `groundedIds`: seen or in the prompt, minus ids only ever returned as echoes of the agent's own arguments. */
  grounded: Set<string>;
}

/** Case-identifying argument names, most specific first. */
const CASE_ARGS = ["case_id", "cm_case_id", "intake_case_id", "referral_id"];
/** Arguments that name a record owned by a case (P2P request, outreach session, letter, document). */
const OWNED_ARGS = [
  "request_id",
  "session_id",
  "letter_id",
  "document_id",
  "bundle_document_id",
  "message_id",
];

/** Walks a parsed result and maps every record id to the case that owns it (`{id, case_id}` pairs). */
function collectOwners(value: unknown, owners: Map<string, string>, depth = 0): void {
  if (depth > 6 || !value || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 200)) collectOwners(item, owners, depth + 1);
    return;
  }
  const obj = value as Record<string, unknown>;
  const owner = typeof obj.case_id === "string" ? obj.case_id : undefined;
  if (owner) {
    for (const key of ["id", "session_id", "request_id", "letter_id", "intake_case_id", "document_id"]) {
      const id = obj[key];
      if (typeof id === "string" && id !== owner) owners.set(id, owner);
    }
  }
  for (const child of Object.values(obj)) collectOwners(child, owners, depth + 1);
}

/** The case a call acts on (CM ids reduced to their subject key), or null when the call names none. */
export function caseKeyOf(input: Record<string, unknown>, owners: Map<string, string>): string | null {
  for (const arg of CASE_ARGS) {
    const value = input[arg];
    if (typeof value === "string" && value.trim()) {
      const id = value.trim();
      return subjectKey(owners.get(id) ?? id);
    }
  }
  for (const arg of OWNED_ARGS) {
    const value = input[arg];
    if (typeof value === "string" && owners.has(value.trim())) return subjectKey(owners.get(value.trim())!);
  }
  return null;
}

/** The case a successful call created or touched, read from its result when its input names none. */
function caseFromResult(result: unknown): string | null {
  if (!result || typeof result !== "object") return null;
  const r = result as Record<string, unknown>;
  const nested = r.case as Record<string, unknown> | undefined;
  const id = typeof r.case_id === "string" ? r.case_id : typeof nested?.id === "string" ? nested.id : null;
  return id ? subjectKey(id) : null;
}

/** The block-budget signature of a rule on a call: rule, tool and case. */
export function signature(ruleId: string, tool: string, caseKey: string | null): string {
  return `${ruleId}|${tool}|${caseKey ?? "-"}`;
}

/** The evidence of a session with no records. */
export function emptyEvidence(): Evidence {
  return {
    prompt: "",
    seat: null,
    phase: null,
    calls: [],
    seen: new Set(),
    owners: new Map(),
    caseLock: null,
    denies: new Map(),
    stopBlocks: 0,
    degraded: false,
    index: {
      promptIds: new Set(),
      promptSeat: null,
      toolSeat: null,
      written: new Set(),
      returned: new Set(),
      grounded: new Set(),
    },
  };
}

/** The bare hex ids the evidence holds (a result or the prompt showed them): kept where a record writes them. */
export function heldHex(ev: Evidence): (hex: string) => boolean {
  return (hex) => ev.seen.has(normalizeId(hex));
}

/** The ids in a call's arguments, as the agent wrote them (whole values and ids inside text). */
export function inputIds(input: Record<string, unknown>): string[] {
  return extractIds(stringsIn(input).join("\n"));
}

/** Whether an id is grounded, from the index's sets (the definition `groundedIds` documents). */
function isGrounded(ev: Evidence, ix: EvidenceIndex, id: string): boolean {
  if (ix.promptIds.has(id)) return true;
  return ev.seen.has(id) && (!ix.written.has(id) || ix.returned.has(id));
}

/** Re-decides the grounded membership of the ids a record touched. */
function regrounded(ev: Evidence, ix: EvidenceIndex, ids: Iterable<string>): void {
  for (const id of ids) {
    if (isGrounded(ev, ix, id)) ix.grounded.add(id);
    else ix.grounded.delete(id);
  }
}

/**
 * Folds one record into the evidence, in place, and returns it: the fold's step. No I/O, no clock; the cost
 * depends on the record, not on how many came before it, so a resident guard folds each appended record once.
 */
export function foldRecord(ev: Evidence, r: LedgerRecord): Evidence {
  const ix = ev.index;
  if (r.degraded) ev.degraded = true;
  if (r.event === "prompt" && typeof r.prompt === "string" && !ev.prompt) {
    ev.prompt = r.prompt;
    const ids = r.ids ?? extractIds(r.prompt);
    for (const id of ids) ev.seen.add(id);
    ev.phase = detectPhase(ev.prompt);
    if (ix) {
      ix.promptIds = new Set(extractIds(ev.prompt));
      ix.promptSeat = detectSeat(ev.prompt);
      regrounded(ev, ix, [...ids, ...ix.promptIds]);
    }
  } else if ((r.event === "post" || r.event === "post-fail") && r.tool) {
    const tool = normalizeToolName(r.tool) ?? r.tool;
    const input = (r.input && typeof r.input === "object" ? r.input : {}) as Record<string, unknown>;
    const ok = r.event === "post";
    const raw = r.result;
    const plain = typeof raw === "string" ? raw : r.error ?? "";
    // An object result is kept as the object until a rule first reads its text, then as the text only (parsed
    // again on the rare read of `result`): a held session never keeps both, and most texts are never read.
    const isObject = raw !== undefined && typeof raw !== "string" && !plain;
    let object: unknown = typeof raw === "string" ? undefined : raw;
    let text: string | undefined = isObject
      ? undefined
      : plain || (raw !== undefined ? JSON.stringify(raw) : "");
    const call: CallRecord = {
      id: r.tool_use_id ?? "",
      tool,
      input,
      ok,
      get result() {
        return object !== undefined || !isObject ? object : JSON.parse(text!);
      },
      get text() {
        if (text === undefined) {
          text = JSON.stringify(object);
          object = undefined;
        }
        return text;
      },
      error: r.error,
      sidechain: Boolean(r.agent_id),
      ...(r.ids ? { ids: r.ids } : {}),
      ...(isObject ? { parsedText: true as const } : {}),
    };
    ev.calls.push(call);
    for (const id of r.ids ?? []) ev.seen.add(id);
    if (ok) collectOwners(r.result, ev.owners);
    if (ok && !ev.caseLock && isMutating(tool)) {
      ev.caseLock = caseKeyOf(input, ev.owners) ?? caseFromResult(r.result);
    }
    if (ix) {
      ix.toolSeat ??= seatFromTools([tool]);
      const written = ok && isMutating(tool) ? new Set(inputIds(input)) : null;
      const returned = ok ? call.ids ?? (call.text ? extractIds(call.text) : []) : [];
      for (const id of written ?? []) ix.written.add(id);
      for (const id of returned) if (!written?.has(id)) ix.returned.add(id);
      regrounded(ev, ix, [...(r.ids ?? []), ...(written ?? []), ...returned]);
    }
  } else if (r.event === "pre" && (r.decision === "deny" || r.decision === "shadow") && r.tool) {
    for (const hit of r.rules ?? []) {
      const sig = signature(hit.id, r.tool, r.case ?? null);
      ev.denies.set(sig, (ev.denies.get(sig) ?? 0) + 1);
    }
  } else if (r.event === "stop" && (r.decision === "block" || r.decision === "shadow")) {
    ev.stopBlocks++;
  }
  ev.seat = ix
    ? ix.promptSeat ?? ix.toolSeat
    : detectSeat(ev.prompt) ?? seatFromTools(ev.calls.map((c) => c.tool));
  return ev;
}

/**
 * A line the evidence does not need (the resident guard and command mode leave it unparsed): an allowed pre
 * record, which folds to nothing (only denies and shadows count toward block budgets). Matched on the key
 * order `decide` writes, anchored at the line's start, so text inside an input can never match; any other
 * line is parsed.
 */
const ALLOWED_PRE =
  /^\{"v":[12],"t":"[^"]*","session":"(?:[^"\\]|\\.)*","arm":"[a-z]+","event":"pre","decision":"allow"/;

/** True for a ledger line folding would ignore (see `ALLOWED_PRE`). */
export function foldsToNothing(line: string): boolean {
  return ALLOWED_PRE.test(line);
}

/** A session's records folded, in order, into fresh evidence. */
export function foldLedger(records: readonly LedgerRecord[]): Evidence {
  return records.reduce(foldRecord, emptyEvidence());
}

/**
 * Folds kept per records array. Replay and the agent loop append to one array per session, so the next fold
 * only applies the new records (O(n) per session instead of O(n²)). Arrays must be append-only.
 */
const FOLDS = new WeakMap<readonly LedgerRecord[], { count: number; ev: Evidence }>();

/** Folds a session's records, in order, into the evidence the rules read (memoised per append-only array). */
export function foldEvidence(records: readonly LedgerRecord[]): Evidence {
  const cached = FOLDS.get(records);
  const ev = cached && cached.count <= records.length ? cached.ev : emptyEvidence();
  for (let i = cached && cached.ev === ev ? cached.count : 0; i < records.length; i++) {
    foldRecord(ev, records[i]);
  }
  FOLDS.set(records, { count: records.length, ev });
  return ev;
}

/** True when the value (an id or code) was observed in the prompt or an earlier result, after normalisation. */
export function wasObserved(ev: Evidence, value: string): boolean {
  return ev.seen.has(normalizeId(value));
}

/** Successful calls of a tool (registered name), optionally on one case. */
export function succeeded(ev: Evidence, tool: string, caseKey?: string | null): CallRecord[] {
  return ev.calls.filter((c) =>
    c.ok && c.tool === tool && (caseKey == null || caseKeyOf(c.input, ev.owners) === caseKey ||
      caseFromResult(c.result) === caseKey)
  );
}
