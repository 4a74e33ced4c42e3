/**
 * The records of events the guard failed open on (bad or oversized input, an internal error, a time overrun),
 * read from the raw hook text without parsing it.
 */
import { EVENTS, type EventWord } from "./hook.ts";
import type { Arm, LedgerRecord } from "./record.ts";
import { normalizeToolName } from "./names.ts";
import { KEEP_HEX, redactText } from "./secrets.ts";
import { extractIds } from "./ids.ts";
import { topLevelString } from "./raw_json.ts";

/** An error record for the ledger: the guard failed open on this event. */
export function errorRecord(
  session: string,
  word: EventWord,
  arm: Arm,
  note: string,
): LedgerRecord {
  return { v: 1, t: new Date().toISOString(), session, event: word, arm, decision: "error", note };
}

/** Events whose record is evidence the rules fold: losing one degrades the session's evidence. */
const EVIDENCE_EVENTS: readonly EventWord[] = ["post", "post-fail", "prompt"];
/** How much of the raw text's head (and tail) a failed-open record reads its ids from. */
const FAILED_SCAN = { head: 256 * 1024, tail: 64 * 1024 };

/** A string field in raw hook text, found without parsing: the first `"name": "value"` with a plain value. */
function rawField(text: string, name: string): string | undefined {
  return new RegExp(`"${name}"\\s*:\\s*"([^"\\\\]{1,200})"`).exec(text)?.[1];
}

/**
 * The record for an event the guard failed open on (bad or oversized input, internal error, time overrun).
 * For an evidence event (post, post-fail, prompt) it keeps what the raw text still tells, read from the
 * *redacted* first 256 KB and last 64 KB without parsing: the tool, tool_use_id, case id, ids and outcome;
 * and it is `degraded`, so rules that reason from absence do not block on what was lost.
 */
export function failedRecord(
  word: EventWord,
  text: string,
  arm: Arm,
  note: string,
  session = sessionOf(text),
): LedgerRecord {
  const record = errorRecord(session, word, arm, note);
  const named = rawField(text.slice(0, FAILED_SCAN.head), "hook_event_name");
  const foreign = named !== undefined && named !== EVENTS[word] &&
    !(word === "stop" && named === "SubagentStop");
  if (!EVIDENCE_EVENTS.includes(word) || foreign || !text.trim()) return record;
  const scanned = redactText(
    text.length <= FAILED_SCAN.head + FAILED_SCAN.tail
      ? text
      : `${text.slice(0, FAILED_SCAN.head)}\n${text.slice(-FAILED_SCAN.tail)}`,
    KEEP_HEX, // a result's or a prompt's text: its ids are evidence
  );
  record.degraded = true;
  record.ids = extractIds(scanned);
  if (word === "prompt") return record;
  const raw = rawField(scanned, "tool_name");
  const caseId = rawField(scanned, "case_id");
  if (raw) record.tool = normalizeToolName(raw) ?? raw;
  record.tool_use_id = rawField(scanned, "tool_use_id") ?? "";
  record.case = caseId ?? null;
  record.input = caseId ? { case_id: caseId } : {};
  if (word === "post-fail") record.error = "(the tool failed; its error was not kept)";
  return record;
}

/**
 * The session id in raw hook text, read without parsing it (for records about input that did not parse, and
 * to route an http body before it is parsed): the top-level `session_id`, whatever its length or escapes.
 */
export function sessionOf(text: string): string {
  return topLevelString(text, "session_id") || "unknown-session";
}
