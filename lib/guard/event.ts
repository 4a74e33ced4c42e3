/**
 * One hook event's lifecycle, the same for both transports (stdin in command mode, lib/guard/command.ts; an
 * http body in the resident guard, lib/guard/resident/serve.ts): input → parse → decide → record → reply,
 * under one time budget, failing open. The transports supply the input, the evidence and the way to answer.
 */
import { type EventWord, neutralReply, parseHookInput } from "./engine/hook.ts";
import { env, now as clock, timer, writeErr } from "./io.ts";
import type { LedgerRecord } from "./engine/record.ts";
import { decideOn, toGuardEvent } from "./engine/decide.ts";
import type { Evidence } from "./engine/evidence.ts";
import { failedRecord } from "./engine/failed.ts";
import { engineConfig, type GuardSettings } from "./config/guard_settings.ts";
import { isJudged } from "./engine/judges/mod.ts";
import { normalizeToolName } from "./engine/names.ts";
import { type Appended, saveRecord } from "./ledger/ledger.ts";
import type { LockResult } from "./ledger/lock.ts";
import { SpoiledCheckpoint } from "./ledger/checkpoint_format.ts";
import { type BoundedInput, MAX_INPUT } from "./input.ts";
import { readRecentText, TRANSCRIPT_WAIT_MS } from "./transcript.ts";
import { readSavedOutput } from "./saved_output.ts";

/**
 * Where the engine gets a session's evidence, already folded: the running evidence (serve mode:
 * lib/guard/resident/sessions.ts), or the checkpoint and the ledger after it (command mode, which gives null for an
 * event that reads none).
 */
export type EvidenceSource = (session: string) => Evidence | null;

/** What an event comes to: the reply for Claude Code and the record for the ledger (none for stock). */
export interface EventOutcome {
  reply: Record<string, unknown>;
  record: LedgerRecord | null;
}

/**
 * Parses, folds and decides one event under the event's settings (see `eventSettings`); never throws. The
 * decision cannot be interrupted, so its time is checked after it against the budget that began at
 * `options.started` (default: now). The caller saves the record.
 */
export async function handle(
  word: EventWord,
  text: string,
  settings: GuardSettings,
  options: {
    evidence: EvidenceSource;
    /** The same evidence from the ledger alone, when its checkpoint turned out spoiled while a rule read it. */
    reread?: EvidenceSource;
    note?: string;
    size?: number;
    started?: number;
  },
): Promise<EventOutcome> {
  const started = clock();
  const budgetStart = options.started ?? started;
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
    if (event.word === "post") {
      // From 2.1.332 on, a result over the MCP limit reaches the hook as a notice naming the saved file.
      const durationMs = "duration_ms" in parsed.input ? parsed.input.duration_ms : undefined;
      const saved = readSavedOutput(event.response, {
        session: event.session,
        transcriptPath: parsed.input.transcript_path,
        tool: "tool_name" in parsed.input ? parsed.input.tool_name : "",
        toolUseId: event.toolUseId,
        startedMs: typeof durationMs === "number" ? Date.now() - durationMs : undefined,
      });
      if (saved && "response" in saved) event.response = saved.response;
      if (saved) note = [note, "note" in saved ? saved.note : saved.ignored].filter(Boolean).join(" ");
    }
    const config = engineConfig(settings);
    if (event.word === "prompt" || event.word === "session-start") {
      // Loaded only for the plan events, so tool-call hooks never pay for the search index.
      const { guardHandbook } = await import("./handbook.ts");
      config.handbook = guardHandbook(
        env,
        settings.ledgerDir,
        settings.decisionMs - (clock() - budgetStart),
      );
    }
    const now = new Date().toISOString();
    let outcome: EventOutcome;
    try {
      outcome = decideOn(event, options.evidence(event.session), config, now);
    } catch (err) {
      // A checkpoint read lazily that does not match its digest: decided again on the ledger itself.
      if (!(err instanceof SpoiledCheckpoint) || !options.reread) throw err;
      outcome = decideOn(event, options.reread(event.session), config, now);
    }
    const spent = clock() - budgetStart;
    if (spent > settings.decisionMs) {
      const note = `time budget of ${settings.decisionMs} ms overrun (${Math.round(spent)} ms); allowed`;
      return {
        reply: neutralReply(word),
        record: failedRecord(word, text, settings.arm, note, event.session),
      };
    }
    if (outcome.record) {
      outcome.record.latency_ms = Math.round((clock() - started) * 100) / 100;
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
 * Test-only fault switch: `FIABLE_FAULT=crash|hang|slow` (optionally only on `FIABLE_FAULT_EVENT`; and
 * `crash-command`, thrown in lib/guard/command.ts before the event starts), so the
 * fail-open paths can be exercised end to end. `hang` never answers; `slow` answers after the budget.
 */
async function maybeFault(word: EventWord, budgetMs: number): Promise<void> {
  const fault = env.FIABLE_FAULT;
  const on = env.FIABLE_FAULT_EVENT;
  if (!fault || (on && on !== word)) return;
  if (fault === "crash") throw new Error("fault injected: crash");
  if (fault === "hang") {
    writeErr("fiable-guard: fault injected: hang\n");
    await new Promise(() => {});
  }
  if (fault === "slow") await new Promise((resolve) => setTimeout(resolve, budgetMs + 500));
}

/**
 * A deny that could not take the session's ledger lock in time: a live hook process of this session held it
 * all along (a lock the agent planted or aged is no holder: lib/guard/ledger/lock.ts). Still enforced, and the
 * record says its budget may be counted once too often: a lock must never turn a deny into an allow (issue
 * 40; it was recorded as shadow and allowed before).
 */
function unlockedDeny(record: LedgerRecord, outcome: EventOutcome): EventOutcome {
  const note =
    "the session's ledger lock stayed busy: the deny was enforced without its budget counted under the lock";
  return { reply: outcome.reply, record: { ...record, note: [record.note, note].filter(Boolean).join(" ") } };
}

/** What a transport gives an event's lifecycle (`runEvent`), and how it answers. */
export interface EventIO {
  /** The event's settings (see `eventSettings`). */
  settings: GuardSettings;
  /** The raw hook input, read under the event's time budget. */
  input(): Promise<BoundedInput>;
  /** A note for the event's record (a profile that did not load). */
  note?: string;
  /** A further note once the input is read (command mode's SessionStart check of the resident guard). */
  check?(text: string): Promise<string | undefined>;
  /** The session's evidence, already folded. */
  evidence: EvidenceSource;
  /** The session's evidence from its ledger alone (after a spoiled checkpoint: `SpoiledCheckpoint`). */
  reread?: EvidenceSource;
  /** Sends the reply; called once, after the record is saved. */
  send(reply: Record<string, unknown>): void;
  /** After the reply: the record (null when none) and what its append did (null when it was not saved). */
  saved?(record: LedgerRecord | null, written: Appended | null, text: string): void;
  /** Resolves with a reason to answer at once (command mode: a termination signal). */
  interrupt?: Promise<string>;
  /**
   * Command mode: the session's ledger lock (lib/guard/ledger/lock.ts). A deny spends the block budget, so it
   * is decided again and saved under the lock: parallel calls with one signature cannot each fold the ledger
   * before the others append. The resident guard needs none (it handles a session's events one at a time).
   */
  lock?(session: string): Promise<LockResult>;
}

/**
 * One event's lifecycle: reads the input, decides (`handle`), saves the record, sends the reply, then `saved`.
 * One time budget from the start: a timer answers allow (and records why) when the event is still waiting
 * when it runs out, and `handle` checks it after the decision, which no timer can interrupt. An interrupt
 * answers the same way. Resolves once `saved` has run, with the live post to the dashboard (`live`) still in
 * flight: command mode waits for it before exiting; the resident guard does not.
 */
export async function runEvent(word: EventWord, io: EventIO): Promise<{ live: Promise<void> | null }> {
  const { settings } = io;
  const started = clock();
  let text = "";
  let cancel = () => {};
  const expired = new Promise<string>((resolve) => {
    cancel = timer(
      settings.decisionMs,
      () => resolve(`time budget of ${settings.decisionMs} ms overrun; allowed`),
    );
  });
  let size = 0;
  let note: string | undefined;
  // Decides from the input read; a deny is decided again under the session's lock.
  const decide = () =>
    handle(word, text, settings, { evidence: io.evidence, reread: io.reread, note, size, started });
  const decided = (async (): Promise<EventOutcome> => {
    try {
      ({ text, size } = await io.input());
    } catch {
      text = "";
    }
    const checked = io.check ? await io.check(text) : undefined;
    note = [io.note, checked].filter(Boolean).join(" ") || undefined;
    return await decide();
  })();
  const first = await Promise.race([decided, expired, ...io.interrupt ? [io.interrupt] : []]);
  cancel();
  let outcome: EventOutcome = typeof first !== "string" ? first : {
    reply: neutralReply(word),
    record: settings.arm === "stock" ? null : failedRecord(word, text, settings.arm, first),
  };
  let unlock: (() => void) | undefined;
  if (outcome.record?.decision === "deny" && io.lock) {
    const held = await io.lock(outcome.record.session);
    if (typeof held === "function") {
      unlock = held;
      outcome = await decide();
    } else if (held === "busy") outcome = unlockedDeny(outcome.record, outcome);
  }
  // Saved before the reply leaves, so a reader that saw the reply also sees the record.
  const written = outcome.record ? saveRecord(settings.ledgerDir, outcome.record) : null;
  unlock?.();
  io.send(outcome.reply);
  io.saved?.(outcome.record, written, text);
  if (!outcome.record || !settings.liveUrl || !settings.liveToken) return { live: null };
  const { postLive } = await import("./ledger/live.ts");
  return { live: postLive(settings.liveUrl, settings.liveToken, outcome.record) };
}
