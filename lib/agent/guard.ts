/**
 * The guard engine in-process: every event goes through lib/guard/engine/decide.ts exactly as the hooks' do; records are
 * kept in memory and appended to the ledger (like lib/guard/resident/serve.ts). Fail-open: an exception allows and is recorded.
 */
import { decide, type EngineConfig, type GuardEvent } from "../guard/engine/decide.ts";
import { appendRecord } from "../guard/ledger/ledger.ts";
import { type LedgerRecord } from "../guard/engine/record.ts";
import { foldEvidence } from "../guard/engine/evidence.ts";
import { openObligations } from "../guard/engine/closure.ts";
import type { EventWord } from "../guard/engine/hook.ts";
import { errorRecord } from "../guard/engine/failed.ts";
import { normalizeToolName } from "../guard/engine/names.ts";

/**
 * What an error record keeps of an evidence event the engine failed on: the call's tool, id and outcome,
 * marked degraded so rules that reason from absence do not block on the lost record (see `failedRecord`).
 */
function lostEvidence(event: GuardEvent): Partial<LedgerRecord> {
  if (event.word === "prompt") return { degraded: true };
  if (event.word !== "post" && event.word !== "post-fail") return {};
  return {
    degraded: true,
    tool: normalizeToolName(event.tool) ?? event.tool,
    tool_use_id: event.toolUseId,
    input: {},
  };
}

/** What the loop needs to know from a pre-call decision. */
export type PreVerdict = { allow: true } | { allow: false; reason: string };

/** The in-process guard of one session. */
export interface InlineGuard {
  readonly records: LedgerRecord[];
  /** The task prompt; returns the role plan to put in the system prompt ("" when the arm adds none). */
  prompt(text: string): string;
  pre(tool: string, input: Record<string, unknown>, toolUseId: string): PreVerdict;
  post(tool: string, input: Record<string, unknown>, toolUseId: string, response: unknown): void;
  postFail(tool: string, input: Record<string, unknown>, toolUseId: string, error: string): void;
  /** The model ended its turn; a reason means the stop gate holds the loop. */
  stop(): { block: false } | { block: true; reason: string };
  /** Records why the loop stopped on its own (a limit or an API failure), with the obligations left open. */
  halt(note: string): void;
}

/** Options: session id, engine config, ledger folder (null: memory only), clock. */
export interface InlineGuardOptions {
  session: string;
  config: EngineConfig;
  ledgerDir: string | null;
  now?: () => string;
  /** Where ledger write failures are reported (stderr by default). */
  warn?: (line: string) => void;
  /** Test hook: runs before each decision (throw to exercise fail-open). */
  fault?: (word: EventWord) => void;
}

/** Creates the guard of one agent session. */
export function inlineGuard(options: InlineGuardOptions): InlineGuard {
  const records: LedgerRecord[] = [];
  const now = options.now ?? (() => new Date().toISOString());
  const warn = options.warn ?? ((line: string) => console.error(line));
  const save = (record: LedgerRecord) => {
    records.push(record);
    if (!options.ledgerDir) return;
    try {
      appendRecord(options.ledgerDir, record);
    } catch (err) {
      warn(`fiable-agent: cannot write the ledger in ${options.ledgerDir}: ${(err as Error).message}`);
    }
  };
  const run = (event: GuardEvent) => {
    const started = performance.now();
    try {
      options.fault?.(event.word);
      const outcome = decide(event, records, options.config, now());
      if (outcome.record) {
        outcome.record.latency_ms = Math.round((performance.now() - started) * 100) / 100;
        save(outcome.record);
      }
      return outcome.reply as Record<string, unknown>;
    } catch (err) {
      if (options.config.arm !== "stock") {
        const note = `internal error, allowed: ${String((err as Error)?.stack ?? err).slice(0, 4000)}`;
        save({
          ...errorRecord(options.session, event.word, options.config.arm, note),
          ...lostEvidence(event),
          t: now(),
        });
      }
      return {};
    }
  };
  const session = options.session;
  return {
    records,
    prompt(text) {
      run({ word: "prompt", session, prompt: text });
      const last = records.at(-1);
      return last?.event === "prompt" && last.decision === "context" ? last.reason ?? "" : "";
    },
    pre(tool, input, toolUseId) {
      const reply = run({ word: "pre", session, tool, input, toolUseId });
      const out = reply.hookSpecificOutput as {
        permissionDecision?: string;
        permissionDecisionReason?: string;
      };
      return out?.permissionDecision === "deny"
        ? { allow: false, reason: out.permissionDecisionReason ?? "fiable-guard blocked this call." }
        : { allow: true };
    },
    post(tool, input, toolUseId, response) {
      run({ word: "post", session, tool, input, toolUseId, response });
    },
    postFail(tool, input, toolUseId, error) {
      run({ word: "post-fail", session, tool, input, toolUseId, error });
    },
    stop() {
      const reply = run({ word: "stop", session, subagent: false });
      return reply.decision === "block" && typeof reply.reason === "string"
        ? { block: true, reason: reply.reason }
        : { block: false };
    },
    halt(note) {
      if (options.config.arm === "stock") return;
      let obligations: string[] = [];
      try {
        obligations = openObligations(foldEvidence(records)).map((o) => `${o.id}: ${o.text}`);
      } catch {
        obligations = [];
      }
      save({
        v: 1,
        t: now(),
        session,
        event: "stop",
        arm: options.config.arm,
        decision: "record",
        note,
        ...(obligations.length ? { obligations } : {}),
      });
    },
  };
}
