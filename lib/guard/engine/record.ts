/**
 * The guard's record of one hook event (one ledger line) and its parts: what the engine decides and returns,
 * and what the ledger (lib/guard/ledger/) writes and reads back. Types and pure helpers only.
 */
import type { EventWord } from "./hook.ts";

/** Guard arms, each adding to the previous. */
export const ARMS = ["stock", "shadow", "plan", "checklist", "critic"] as const;
/** A guard arm. */
export type Arm = typeof ARMS[number];

/**
 * The one stderr line (and the ledger note) when `FIABLE_CC_ARM` names no arm: the guard runs as shadow.
 * UNKNOWN_ARM finds it again in a record's note, with the word that was set.
 */
export function unknownArmNote(word: string): string {
  return `fiable-guard: unknown FIABLE_CC_ARM ${JSON.stringify(word)}; running as shadow (records, blocks ` +
    `nothing). Use one of: ${ARMS.join(", ")}`;
}
/** Matches unknownArmNote's text; group 1 is the word as JSON. */
export const UNKNOWN_ARM = /unknown FIABLE_CC_ARM ("(?:[^"\\]|\\.)*"); running as shadow/;

/**
 * What the guard did: `allow`/`deny` a call, `block` a stop, `release` a call or stop whose block budget ran
 * out, `shadow` a would-be deny or block it did not enforce, `context` for an injected plan, `record` for
 * evidence, `error` when it failed open.
 */
export type Decision = "allow" | "deny" | "block" | "release" | "shadow" | "context" | "record" | "error";

/**
 * A record about the guard itself (`event: "guard"`): `restart` when a resident guard came (back) up for a
 * ledger that had records, `gap` for hook events missed while no guard answered, `tamper` when a session came
 * back with its ledger or checkpoint changed since the guard released it (lib/guard/resident/sessions.ts).
 */
export type GuardDecision = "restart" | "gap" | "tamper";

/** Hook events missed while no guard answered: ISO times, and the count and tools when countable. */
export interface Gap {
  since: string;
  until: string;
  missed?: number;
  tools?: string[];
}

/** A rule that fired on a call: its ID, the verifier checks it protects and the message it produced. */
export interface RuleHit {
  id: string;
  checks: string[];
  message: string;
}

/** One critic judge's vote: the three panel judges, then the decision-point judges (lib/guard/engine/judges/). */
export interface Vote {
  judge: "contract" | "grounding" | "policy" | "self-consistency" | "p2p-contract" | "disposition-checkpoint";
  object: boolean;
  reason: string;
  /** Decision-point judges only: `decisive` may block alone (critic arm), `shadow` is recorded, never enforced. */
  mode?: "decisive" | "shadow";
}

/**
 * One ledger line. `v` is the ledger format: 2 for a record chained to the one before it (the writer adds `p`
 * and `c` as its last fields: lib/guard/ledger/chain.ts), 1 before the chain (still read).
 */
export interface LedgerRecord {
  v: 1 | 2;
  t: string;
  session: string;
  event: EventWord | "guard";
  arm: Arm;
  decision: Decision | GuardDecision;
  tool?: string;
  tool_use_id?: string;
  case?: string | null;
  input?: unknown;
  result?: unknown;
  /** post-fail: the tool's error text; stop-fail: the API error's kind (`rate_limit`, `server_error`, …). */
  error?: string;
  ids?: string[];
  prompt?: string;
  seat?: string | null;
  phase?: string | null;
  rules?: RuleHit[];
  votes?: Vote[];
  reason?: string;
  obligations?: string[];
  latency_ms?: number;
  /** post / post-fail: how long the call took, as Claude Code measured it (its hook input's `duration_ms`). */
  duration_ms?: number;
  note?: string;
  agent_id?: string;
  first_block?: boolean;
  step?: number;
  /** Written by replay from a recorded trajectory: decisions were computed, never enforced. */
  replay?: boolean;
  /** Handbook lookup for a plan: status, the pages listed and any fail-open note. */
  handbook?: HandbookRecord;
  /** A `gap` record's interval. */
  gap?: Gap;
  /**
   * Set when this record stands for evidence the guard could not keep whole (it failed open on the event, the
   * input was too large or too deep, or the ledger was read in part): rules that reason from absence then
   * record, never enforce (see `RuleMeta.fromAbsence`).
   */
  degraded?: boolean;
}

/** Size caps (characters of JSON) for values kept in a record. */
export const CAPS = { input: 48_000, result: 16_000, prompt: 40_000, text: 4_000 };

/** The value unchanged when its JSON fits `max` characters, else a marked preview of it. */
export function capValue(value: unknown, max: number): unknown {
  if (value === undefined) return undefined;
  if (typeof value === "string") return value.length <= max ? value : value.slice(0, max) + "…[truncated]";
  const json = JSON.stringify(value) ?? "";
  return json.length <= max ? value : { _truncated: json.length, preview: json.slice(0, max) };
}

/** What a handbook lookup did, for the ledger: status, the pages it returned and any fail-open note. */
export interface HandbookRecord {
  /** `ok`: pages found; `none`: index ready, no seat or no match; the rest failed open without pages. */
  status: "ok" | "none" | "absent" | "empty" | "timeout" | "error" | "off";
  pages: string[];
  note?: string;
  ms?: number;
}
