/**
 * One hook event end to end, shared by command mode (guard.ts) and http mode (lib/guard/serve.ts): settings from
 * the profile and environment, parse, fold, decide, and the fail-open answers. No stdin or stdout here.
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { type EventWord, type HookInput, neutralReply, parseHookInput } from "./hook.ts";
import { appendRecord, type LedgerRecord } from "./ledger.ts";
import { decide, type EngineConfig, type GuardEvent } from "./decide.ts";
import { type GuardSettings, parseProfile, resolveSettings } from "./profile.ts";
import { RULES } from "../../rules/mod.ts";
import { isJudged } from "./judges/mod.ts";
import { normalizeToolName } from "./names.ts";
import { readRecentText, TRANSCRIPT_WAIT_MS } from "./transcript.ts";

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
 */
export async function loadSettings(
  env: Record<string, string | undefined>,
  warn: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Promise<{ settings: GuardSettings; note?: string }> {
  let note: string | undefined;
  let profile = {};
  if (env.FIABLE_PROFILE) {
    try {
      profile = await parseProfile(readFileSync(env.FIABLE_PROFILE, "utf8"), env.FIABLE_PROFILE);
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

/** Writes a record to the ledger, or to stderr when the ledger cannot be written. */
export function saveRecord(dir: string, record: LedgerRecord): void {
  try {
    appendRecord(dir, record);
  } catch (err) {
    process.stderr.write(`fiable-guard: cannot write the ledger in ${dir}: ${(err as Error).message}\n`);
    process.stderr.write(JSON.stringify(record) + "\n");
  }
}

/** The session id in raw hook text, found without parsing (for records about input that did not parse). */
export function sessionOf(text: string): string {
  return /"session_id"\s*:\s*"([^"]{1,200})"/.exec(text.slice(0, 4096))?.[1] ?? "unknown-session";
}

/** Where the engine gets a session's records: the ledger file (command mode) or memory (serve mode). */
export type RecordSource = (session: string) => readonly LedgerRecord[];

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
  options: { records: RecordSource; note?: string },
): Promise<{ reply: Record<string, unknown>; record: LedgerRecord | null }> {
  const started = performance.now();
  const parsed = parseHookInput(text, word);
  if (!parsed.ok) {
    const record = settings.arm === "stock"
      ? null
      : errorRecord(sessionOf(text), word, settings.arm, parsed.reason);
    return { reply: neutralReply(word), record };
  }
  if (settings.arm === "stock") return decide(toGuardEvent(parsed.input), [], engineConfig(settings), "");
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
      const { guardHandbook } = await import("./handbook.ts");
      config.handbook = guardHandbook(
        process.env,
        settings.ledgerDir,
        settings.decisionMs - (performance.now() - started),
      );
    }
    const outcome = decide(
      event,
      options.records(event.session),
      config,
      new Date().toISOString(),
    );
    const elapsed = performance.now() - started;
    if (elapsed > settings.decisionMs) {
      const note = `time budget of ${settings.decisionMs} ms overrun (${Math.round(elapsed)} ms); allowed`;
      return { reply: neutralReply(word), record: errorRecord(event.session, word, settings.arm, note) };
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
      record: errorRecord(parsed.input.session_id, word, settings.arm, message),
    };
  }
}

/**
 * Test-only fault switch: `FIABLE_FAULT=crash|hang|slow` (optionally only on `FIABLE_FAULT_EVENT`), so the
 * fail-open paths can be exercised end to end. `hang` never answers; `slow` answers after the budget.
 */
async function maybeFault(word: EventWord, budgetMs: number): Promise<void> {
  const fault = process.env.FIABLE_FAULT;
  const on = process.env.FIABLE_FAULT_EVENT;
  if (!fault || (on && on !== word)) return;
  if (fault === "crash") throw new Error("fault injected: crash");
  if (fault === "hang") {
    process.stderr.write("fiable-guard: fault injected: hang\n");
    await new Promise(() => {});
  }
  if (fault === "slow") await new Promise((resolve) => setTimeout(resolve, budgetMs + 500));
}
