/**
 * One hook event end to end, shared by command mode (guard.ts) and http mode (lib/guard/resident/serve.ts): settings from
 * the profile and environment, parse, fold, decide, and the fail-open answers. No stdin or stdout here.
 */
import { EVENTS, type EventWord, type HookInput, neutralReply, parseHookInput } from "./engine/hook.ts";
import { host } from "./runtime/host.ts";
import { lazy } from "./runtime/lazy.ts";
import { type LedgerRecord } from "./engine/record.ts";
import { decideOn, type EngineConfig, type GuardEvent } from "./engine/decide.ts";
import type { Evidence } from "./engine/evidence.ts";
import { type GuardSettings, resolveSettings } from "./config/guard_settings.ts";
import { RULES } from "../../rules/mod.ts";
import { isJudged } from "./engine/judges/mod.ts";
import { normalizeToolName } from "./engine/names.ts";
import { readRecentText, TRANSCRIPT_WAIT_MS } from "./transcript.ts";
import { redactText } from "./engine/secrets.ts";
import { extractIds } from "./engine/ids.ts";
import { topLevelString } from "./engine/raw_json.ts";

/** The guard event for a parsed hook input. */
export function toGuardEvent(input: HookInput): GuardEvent {
  const session = input.session_id;
  switch (input.hook_event_name) {
    case "PreToolUse":
      return {
        word: "pre",
        session,
        tool: input.tool_name,
        input: input.tool_input,
        toolUseId: input.tool_use_id,
        agentId: input.agent_id,
      };
    case "PostToolUse":
      return {
        word: "post",
        session,
        tool: input.tool_name,
        input: input.tool_input,
        toolUseId: input.tool_use_id,
        response: input.tool_response,
        agentId: input.agent_id,
      };
    case "PostToolUseFailure":
      return {
        word: "post-fail",
        session,
        tool: input.tool_name,
        input: input.tool_input,
        toolUseId: input.tool_use_id,
        error: input.error,
        agentId: input.agent_id,
      };
    case "Stop":
    case "SubagentStop":
      return { word: "stop", session, subagent: input.hook_event_name === "SubagentStop" };
    case "UserPromptSubmit":
      return { word: "prompt", session, prompt: input.prompt };
    case "SessionStart":
      return { word: "session-start", session, source: input.source };
  }
}

/**
 * Settings from `FIABLE_PROFILE` (YAML) and the environment; a bad profile falls back to defaults with a note.
 * An unknown `FIABLE_CC_ARM` runs as shadow and says so in one line to `warn` (stderr: Claude Code's debug log
 * shows a hook's stderr) as well as in the note every record carries.
 * The profile parser (yaml, zod) is loaded only when there is a profile.
 */
export async function loadSettings(
  env: Record<string, string | undefined>,
  warn: (line: string) => void = (line) => host.writeErr(`${line}\n`),
): Promise<{ settings: GuardSettings; note?: string }> {
  let note: string | undefined;
  let profile = {};
  if (env.FIABLE_PROFILE) {
    try {
      const { parseProfile } = await lazy<typeof import("./config/profile.ts")>("profile");
      profile = await parseProfile(host.readText(env.FIABLE_PROFILE), env.FIABLE_PROFILE);
    } catch (err) {
      note = (err as Error).message;
    }
  }
  const settings = resolveSettings(profile, env);
  if (settings.armError) warn(settings.armError);
  return { settings, note: [note, settings.armError].filter(Boolean).join(" ") || undefined };
}

/** The engine config for settings: arm, bounds and the enabled rules minus the disabled ones. */
export function engineConfig(settings: GuardSettings): EngineConfig {
  const ids = settings.rules ?? RULES.map((r) => r.meta.id);
  const rules = settings.disabled.length || settings.rules
    ? ids.filter((id) => !settings.disabled.includes(id))
    : undefined;
  return { arm: settings.arm, bounds: settings.bounds, rules };
}

/** An error record for the ledger: the guard failed open on this event. */
export function errorRecord(
  session: string,
  word: EventWord,
  arm: GuardSettings["arm"],
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
  arm: GuardSettings["arm"],
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
 * Largest hook input parsed, in bytes: a larger one is allowed unparsed and recorded from its head and tail.
 * Parsing, folding and serialising cannot be interrupted by the time budget, and a 3 MB object of 200,000 keys
 * took over 1.5 s on a loaded machine; real inputs are far smaller (Claude Code caps an MCP result at 25,000
 * tokens, about 100 KB, and a model's arguments are bounded by its output tokens).
 */
export const MAX_INPUT = 1024 * 1024;
/** Bytes of an oversized input's end kept beside its head (tool_use_id comes last in a hook's JSON). */
const KEEP_TAIL = 64 * 1024;

/** Raw hook input collected under a bound: its text (head, and tail when oversized) and its full size. */
export interface BoundedInput {
  text: string;
  size: number;
}

/** Byte chunks joined into one array. */
function joinBytes(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

/** Byte chunks decoded as one UTF-8 text (a character split across chunks is kept whole). */
function decodeJoined(chunks: Uint8Array[]): string {
  return new TextDecoder().decode(joinBytes(chunks));
}

/**
 * Collects hook input chunks keeping at most `MAX_INPUT + 1` bytes of head and the last 64 KB, so a 100 MB
 * input costs a drain, not a 100 MB string. `done()` joins head and tail with a newline when oversized.
 */
export function inputCollector(limit = MAX_INPUT): { push(chunk: Uint8Array): void; done(): BoundedInput } {
  const head: Uint8Array[] = [];
  const tail: Uint8Array[] = [];
  let headSize = 0;
  let tailSize = 0;
  let size = 0;
  return {
    push(chunk) {
      size += chunk.length;
      let rest = chunk;
      if (headSize <= limit) {
        const take = rest.subarray(0, limit + 1 - headSize);
        head.push(take);
        headSize += take.length;
        rest = rest.subarray(take.length);
      }
      if (!rest.length) return;
      tail.push(rest);
      tailSize += rest.length;
      while (tail.length > 1 && tailSize - tail[0].length >= KEEP_TAIL) tailSize -= tail.shift()!.length;
    },
    done() {
      const text = decodeJoined(head);
      if (!tail.length) return { text, size };
      const end = joinBytes(tail);
      return {
        text: `${text}\n${new TextDecoder().decode(end.subarray(Math.max(0, end.length - KEEP_TAIL)))}`,
        size,
      };
    },
  };
}

/**
 * The session id in raw hook text, read without parsing it (for records about input that did not parse, and
 * to route an http body before it is parsed): the top-level `session_id`, whatever its length or escapes.
 */
export function sessionOf(text: string): string {
  return topLevelString(text, "session_id") || "unknown-session";
}

/**
 * Where the engine gets a session's evidence, already folded: the running evidence (serve mode:
 * lib/guard/resident/sessions.ts), or the checkpoint and the ledger after it (command mode, which gives null for an
 * event that reads none).
 */
export type EvidenceSource = (session: string) => Evidence | null;

/**
 * The settings for one event: the plan events (prompt, session-start) come once per session and may open the
 * handbook index, so they get `FIABLE_CONTEXT_MS` (default 5000, within Claude Code's 10 s hook timeout).
 */
export function eventSettings(
  word: EventWord,
  settings: GuardSettings,
  env: Record<string, string | undefined>,
): GuardSettings {
  if (word !== "prompt" && word !== "session-start") return settings;
  const contextMs = Number(env.FIABLE_CONTEXT_MS ?? 5000);
  return Number.isFinite(contextMs) && contextMs > settings.decisionMs
    ? { ...settings, decisionMs: contextMs }
    : settings;
}

/**
 * Handles one hook event end to end (parse, fold, decide) under the event's settings (see `eventSettings`);
 * never throws. The caller saves the record.
 */
export async function handle(
  word: EventWord,
  text: string,
  settings: GuardSettings,
  options: { evidence: EvidenceSource; note?: string; size?: number },
): Promise<{ reply: Record<string, unknown>; record: LedgerRecord | null }> {
  const started = performance.now();
  const size = options.size ?? text.length;
  // Parsing, redacting and folding cannot be interrupted by the time budget: bound them before they start.
  const parsed: ReturnType<typeof parseHookInput> = size > MAX_INPUT
    ? {
      ok: false,
      reason: `Cannot read the hook input: it is ${size} bytes, over the ${MAX_INPUT}-byte limit the guard ` +
        `parses within its time budget; allowed unparsed.`,
    }
    : parseHookInput(text, word);
  if (!parsed.ok) {
    const record = settings.arm === "stock" ? null : failedRecord(word, text, settings.arm, parsed.reason);
    return { reply: neutralReply(word), record };
  }
  if (settings.arm === "stock") return decideOn(toGuardEvent(parsed.input), null, engineConfig(settings), "");
  try {
    await maybeFault(word, settings.decisionMs);
    const event = toGuardEvent(parsed.input);
    let note = options.note;
    if (event.word === "pre" && parsed.input.transcript_path && isJudged(normalizeToolName(event.tool))) {
      // The critic's judges also read the agent's own words before the call: a bounded, best-effort tail.
      const read = await readRecentText(parsed.input.transcript_path, {
        toolUseId: event.toolUseId,
        waitMs: Math.min(TRANSCRIPT_WAIT_MS, settings.decisionMs / 3),
      });
      if (read.texts.length) event.recentText = read.texts;
      note = [note, read.note].filter(Boolean).join(" ") || undefined;
    }
    const config = engineConfig(settings);
    if (event.word === "prompt" || event.word === "session-start") {
      // Loaded only for the plan events, so tool-call hooks never pay for the search index.
      const { guardHandbook } = await lazy<typeof import("./handbook.ts")>("handbook");
      config.handbook = guardHandbook(
        host.env,
        settings.ledgerDir,
        settings.decisionMs - (performance.now() - started),
      );
    }
    const now = new Date().toISOString();
    const outcome = decideOn(event, options.evidence(event.session), config, now);
    const elapsed = performance.now() - started;
    if (elapsed > settings.decisionMs) {
      const note = `time budget of ${settings.decisionMs} ms overrun (${Math.round(elapsed)} ms); allowed`;
      return {
        reply: neutralReply(word),
        record: failedRecord(word, text, settings.arm, note, event.session),
      };
    }
    if (outcome.record) {
      outcome.record.latency_ms = Math.round(elapsed * 100) / 100;
      if (note) outcome.record.note = [outcome.record.note, note].filter(Boolean).join(" ");
    }
    return outcome;
  } catch (err) {
    const message = `internal error, allowed: ${(err as Error).stack ?? err}`.slice(0, 4000);
    return {
      reply: neutralReply(word),
      record: failedRecord(word, text, settings.arm, message, parsed.input.session_id),
    };
  }
}

/**
 * Test-only fault switch: `FIABLE_FAULT=crash|hang|slow` (optionally only on `FIABLE_FAULT_EVENT`), so the
 * fail-open paths can be exercised end to end. `hang` never answers; `slow` answers after the budget.
 */
async function maybeFault(word: EventWord, budgetMs: number): Promise<void> {
  const fault = host.env.FIABLE_FAULT;
  const on = host.env.FIABLE_FAULT_EVENT;
  if (!fault || (on && on !== word)) return;
  if (fault === "crash") throw new Error("fault injected: crash");
  if (fault === "hang") {
    host.writeErr("fiable-guard: fault injected: hang\n");
    await new Promise(() => {});
  }
  if (fault === "slow") await new Promise((resolve) => setTimeout(resolve, budgetMs + 500));
}
