/**
 * The decision-point judge shape: metadata, a pure check over the pending call, the session's evidence and
 * the agent's own recent text, and the judge's own passing and failing examples (tested by tests/judges.ts).
 * A judge differs from a contract rule in what it reads (the agent's recorded findings and words, not the
 * workflow's preconditions) and in how it blocks: it sits on the critic panel, only the critic arm enforces
 * it, and it asks once (a block is a question to answer, not a wall).
 */
import type { Evidence } from "./evidence.ts";
import type { Seat } from "./seat.ts";
import { KEEP_HEX, redactText } from "./secrets.ts";
import type { Vote } from "./record.ts";
import type { Call, ExampleEvidence } from "./rule.ts";

/** A judge name, as ledgers record votes (`Vote.judge`). */
export type JudgeName = Vote["judge"];

/** What a decision-point judge may read besides the evidence: the agent's own words before the call. */
export interface JudgeContext {
  /**
   * The agent's last few text messages before the call, oldest first (the transcript tail live, the
   * trajectory in replay). Best effort: live, the transcript may lag, so a judge must stand without it.
   */
  recentText: readonly string[];
}

/** The empty context: no text is known. */
export const NO_TEXT: JudgeContext = { recentText: [] };

/** Judge metadata: the ID quoted by ledgers, messages and docs, and the verifier checks it protects. */
export interface JudgeMeta {
  /** `CRITIC-01`, `CRITIC-02`…; the two-of-three panel block keeps the plain ID `CRITIC`. */
  id: string;
  /** The kebab-case name it votes under; its underscored form is its file name in lib/guard/engine/judges/. */
  name: JudgeName;
  seat: Seat;
  /** Registered tool names (`namespace.method`) at whose calls the judge votes. */
  triggers: string[];
  /** Verifier check IDs, quoted exactly from the catalog. */
  protects: string[];
  /** Message template with `{key}` slots: the contradicting fact found, then both options. */
  message: string;
  /** The plan principle the judge enforces, if any. */
  principle?: string;
  /**
   * True when the critic arm lets the judge block on its own. False keeps it in shadow: its vote is recorded
   * on every guarded arm and replay counts it, but it never blocks (a judge that fired in a passing trial).
   */
  enforced: boolean;
  /**
   * True for a checkpoint: an answer-blind question at a decision point that finds no fact. Only the critic
   * arm runs it, its block protects no check in the rescue estimate (its effect depends on what the model
   * does next, which no replay shows) and replay reports it as a cost: extra calls, trials touched.
   */
  checkpoint?: boolean;
}

/**
 * A judge example: what the case shows (the tester's title for it), the call, the evidence before it and,
 * optionally, the agent's recent text.
 */
export interface JudgeExample {
  name: string;
  call: Call;
  evidence: ExampleEvidence;
  recentText?: string[];
}

/** A decision-point judge: `check` returns null (no objection) or the message data. No clock, I/O or config. */
export interface Judge<D extends Record<string, string> = Record<string, string>> {
  meta: JudgeMeta;
  check(call: Call, evidence: Evidence, context: JudgeContext): D | null;
  valid: JudgeExample[];
  /** Failing examples: the data the check returns and, for at least one, the whole reason it renders. */
  invalid: (JudgeExample & { data: D; reason?: string })[];
}

/** Blocks per (judge, tool, case) before the call is released: a judge asks once. */
export const JUDGE_BUDGET = 1;

/** Longest quote of the agent's own words a message carries. */
export const QUOTE_MAX = 160;

/**
 * The agent's words as a message may quote them: secrets redacted, whitespace collapsed, double quotes made
 * single (the quote sits inside double quotes), capped at QUOTE_MAX characters starting a little before `at`.
 */
export function quote(text: string, at = 0): string {
  // Start a little before the span, but never so late that the quote comes out short.
  const start = Math.max(0, Math.min(at - 60, text.length - QUOTE_MAX));
  const cut = text.slice(start, start + QUOTE_MAX);
  // Hex ids stay here: the reason this quote lands in is redacted again against the evidence's ids (decide.ts).
  const body = redactText(cut, KEEP_HEX).replace(/\s+/g, " ").replaceAll('"', "'").trim();
  return `${start > 0 ? "…" : ""}${body}${start + cut.length < text.length ? "…" : ""}`;
}

/** How many of the agent's latest text messages a judge reads, and how much of each (its end, nearest the call). */
export const RECENT_TEXT = { messages: 3, chars: 2000 };

/** The agent's recent text as judges read it: the last few messages, each cut to its last characters. */
export function recentText(texts: readonly string[]): string[] {
  return texts.filter((t) => t.trim()).slice(-RECENT_TEXT.messages).map((t) => t.slice(-RECENT_TEXT.chars));
}
