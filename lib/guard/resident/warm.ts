/**
 * Warming the resident guard's decision path once it listens (issue 20: a session's first event ≤ 20 ms).
 * A fresh process runs the restore and the rules as cold code: the first 10k-record session it restores
 * from a checkpoint took ≈ 27 ms, the same restore after another one ≈ 12 ms. So the guard folds, encodes,
 * restores and decides a session made of every rule's examples, in memory, a few steps per tick so a hook event
 * that arrives meanwhile waits for one step at most. (The checkpoint's digest is node:crypto's SHA-256, native
 * code that needs no warming.)
 *
 * Nothing here touches a file, a ledger or a real session's evidence; it decides on its own evidence and
 * throws the outcomes away. Any error ends the warm-up and is reported to the caller, never to a session.
 */
import { decodeEvidence, encodeEvidence, stateInts } from "../ledger/checkpoint_format.ts";
import { decideOn, type EngineConfig, type GuardEvent } from "../engine/decide.ts";
import { emptyEvidence, type Evidence, foldRecord } from "../engine/evidence.ts";
import type { Arm, LedgerRecord } from "../engine/record.ts";
import { recordsOf } from "../engine/rule.ts";
import { RULES } from "../../../rules/mod.ts";

/** The warm-up session's name: it is never written, so it meets no real session. */
const SESSION = "fiable-warm-up";

/** Every rule example's records and its pending call as a pre record, in rule order (`session` on each). */
export function exampleRecords(session: string, arm: Arm = "critic"): LedgerRecord[] {
  const out: LedgerRecord[] = [];
  for (const rule of RULES) {
    for (const ex of [...rule.valid, ...rule.invalid]) {
      out.push(...recordsOf(ex.evidence, session));
      out.push({
        v: 1,
        t: "",
        session,
        arm,
        event: "pre",
        decision: "allow",
        tool: ex.call.tool,
        input: ex.call.input,
      });
    }
  }
  return out;
}

/** The events the warm-up decides: each example's pending call, then a stop and a prompt. */
function warmEvents(): GuardEvent[] {
  const events: GuardEvent[] = RULES.flatMap((rule) =>
    [...rule.valid, ...rule.invalid].map((ex, i): GuardEvent => ({
      word: "pre",
      session: SESSION,
      tool: ex.call.tool,
      input: ex.call.input,
      toolUseId: `warm-${rule.meta.id}-${i}`,
    }))
  );
  events.push({ word: "stop", session: SESSION, subagent: false });
  events.push({ word: "prompt", session: SESSION, prompt: "continue" });
  return events;
}

/** Records folded, and events decided, per step. */
const FOLD_STEP = 128;
const DECIDE_STEP = 2;

/** What the warm-up did: its steps, the time from start to end and the longest step, or the error that ended it. */
export interface WarmReport {
  steps: number;
  ms: number;
  longestStepMs: number;
  error?: string;
}

/** The warm-up's steps for `config`: fold `repeat` copies of the example session, encode, restore, decide. */
function warmSteps(config: EngineConfig, repeat: number): (() => void)[] {
  const once = exampleRecords(SESSION, config.arm === "stock" ? "critic" : config.arm);
  const records = Array.from({ length: repeat }, () => once).flat();
  const events = warmEvents();
  const now = new Date(0).toISOString();
  const folded = emptyEvidence();
  let encoded: ReturnType<typeof encodeEvidence> | null = null;
  let restored: Evidence | null = null;
  const work: (() => void)[] = [];
  for (let i = 0; i < records.length; i += FOLD_STEP) {
    work.push(() => {
      for (const r of records.slice(i, i + FOLD_STEP)) foldRecord(folded, r);
    });
  }
  work.push(() => (encoded = encodeEvidence(folded)));
  work.push(() => {
    const { json, state, contents } = encoded!;
    const read = (start: number, n: number) => contents.subarray(start, start + n);
    restored = decodeEvidence(json, { state: stateInts(state), read }).ev;
  });
  for (let i = 0; i < events.length; i += DECIDE_STEP) {
    work.push(() => {
      for (const event of events.slice(i, i + DECIDE_STEP)) decideOn(event, restored, config, now);
    });
  }
  return work;
}

/**
 * Warms the decision path for `config` (`repeat` copies of the example session), one step per `tick` (the
 * resident guard passes `setImmediate`). Resolves with the report; never throws or rejects.
 */
export function warmUp(
  config: EngineConfig,
  tick: (step: () => void) => void,
  repeat = 8,
): Promise<WarmReport> {
  const started = performance.now();
  let longest = 0;
  let steps = 0;
  const report = (error?: unknown): WarmReport => ({
    steps,
    ms: performance.now() - started,
    longestStepMs: longest,
    ...(error === undefined ? {} : { error: String((error as Error)?.stack ?? error) }),
  });
  let work: (() => void)[];
  try {
    work = warmSteps(config, repeat);
  } catch (err) {
    return Promise.resolve(report(err));
  }
  return new Promise((resolve) => {
    const next = () => {
      const step = work[steps];
      if (!step) return resolve(report());
      tick(() => {
        const t = performance.now();
        try {
          step();
        } catch (err) {
          return resolve(report(err));
        }
        longest = Math.max(longest, performance.now() - t);
        steps++;
        next();
      });
    };
    next();
  });
}
