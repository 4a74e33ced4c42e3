/** The contract-rule shape: metadata, a pure check, and the rule's own passing and failing examples. */
import { type CallRecord, type Evidence, foldEvidence } from "./evidence.ts";
import { extractIds } from "./ids.ts";
import { CAPS, capValue, type LedgerRecord } from "./record.ts";
import { normalizeToolName } from "./names.ts";
import type { Seat } from "./seat.ts";

/** A pending tool call: registered tool name and the model's arguments. */
export interface Call {
  tool: string;
  input: Record<string, unknown>;
}

/** Rule metadata: the ID quoted by ledgers, messages and docs, and the verifier checks it protects. */
export interface RuleMeta {
  /** `GLOBAL-01`, `PP-01`, `UM-09`, `CM-02`… */
  id: string;
  /** kebab-case name; its underscored form is the rule's file name. */
  name: string;
  /** Seat the rule applies to, or `all`. */
  seat: Seat | "all";
  /** Registered tool names (`namespace.method`) that trigger the rule. */
  triggers: string[];
  /** Verifier check IDs, quoted exactly from the catalog. */
  protects: string[];
  /** Message template with `{key}` slots filled from the check's data: what is wrong, then the exact fix. */
  message: string;
  /** The plan principle the rule enforces, if any. */
  principle?: string;
  /**
   * Set when the rule can fire because something was *not* observed (an id never seen, a step never taken,
   * a later success missing): when the session's evidence is degraded (`Evidence.degraded`) its would-be
   * blocks are recorded as shadow, never enforced, since the missing thing may be in what was lost.
   */
  fromAbsence?: true;
}

/** Partial evidence for an example; `evidenceOf` fills the rest. */
export interface ExampleEvidence {
  prompt?: string;
  calls?: CallRecord[];
  seat?: Seat;
  /** Earlier blocks in the session: the rule that denied, on which tool and case (after the calls). */
  denied?: { rule: string; tool: string; case?: string | null }[];
}

/** A rule example: what the case shows (the tester's title for it), a call and the evidence it is made against. */
export interface Example {
  name: string;
  call: Call;
  evidence: ExampleEvidence;
}

/** A contract rule: `check` returns null (pass) or the message data (fires). No clock, I/O or config. */
export interface Rule<D extends Record<string, string> = Record<string, string>> {
  meta: RuleMeta;
  check(call: Call, evidence: Evidence): D | null;
  valid: Example[];
  /** Failing examples: the data the check returns and, for at least one, the whole reason it renders. */
  invalid: (Example & { data: D; reason?: string })[];
}

/** A completed, successful call for examples: `toolCall("auth_submit_authorization", {case_id})`. */
export function toolCall(
  name: string,
  input: Record<string, unknown>,
  outcome: { result?: unknown; ok?: boolean; error?: string } = {},
): CallRecord & Call {
  const tool = normalizeToolName(name);
  if (!tool) throw new Error(`Cannot make an example call: "${name}" is not a healthverse tool.`);
  const ok = outcome.ok ?? outcome.error === undefined;
  const text = outcome.error ?? (outcome.result === undefined ? "" : JSON.stringify(outcome.result));
  return { id: "", tool, input, ok, result: outcome.result, text, error: outcome.error };
}

/** Ledger records for an example's partial evidence: the prompt, then each call's outcome. */
export function recordsOf(partial: ExampleEvidence, session = "example"): LedgerRecord[] {
  const base = { v: 1 as const, t: "", session, arm: "checklist" as const };
  const records: LedgerRecord[] = [];
  if (partial.prompt) {
    records.push({
      ...base,
      event: "prompt",
      decision: "record",
      prompt: partial.prompt,
      ids: extractIds(partial.prompt),
    });
  }
  for (const c of partial.calls ?? []) {
    records.push({
      ...base,
      event: c.ok ? "post" : "post-fail",
      decision: "record",
      tool: c.tool,
      tool_use_id: c.id,
      input: c.input,
      result: c.ok ? capValue(c.result ?? c.text, CAPS.result) : undefined,
      error: c.ok ? undefined : c.error ?? c.text,
      ids: c.ok ? extractIds(c.text) : [],
    });
  }
  for (const d of partial.denied ?? []) {
    records.push({
      ...base,
      event: "pre",
      decision: "deny",
      tool: normalizeToolName(d.tool) ?? d.tool,
      case: d.case ?? null,
      rules: [{ id: d.rule, checks: [], message: "" }],
    });
  }
  return records;
}

/** Full evidence from an example's partial evidence, folded exactly as a live ledger is. */
export function evidenceOf(partial: ExampleEvidence): Evidence {
  const ev = foldEvidence(recordsOf(partial));
  if (partial.seat) ev.seat = partial.seat;
  return ev;
}

/** The message with every `{key}` replaced by its data value. */
export function renderMessage(template: string, data: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key) => (key in data ? data[key] : whole));
}

/** A string argument, trimmed; empty when absent or not a string. */
export function arg(call: Call, name: string): string {
  const value = call.input[name];
  return typeof value === "string" ? value.trim() : "";
}
