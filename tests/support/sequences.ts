/**
 * Ledgers for the fold's property tests (tests/evidence.ts, tests/checkpoint.ts): the sample trials' ledgers
 * and random sessions spliced from every rule example, with the events to decide after each prefix.
 */
import type { GuardEvent } from "../../lib/guard/engine/decide.ts";
import type { LedgerRecord } from "../../lib/guard/engine/record.ts";
import { exampleRecords } from "../../lib/guard/resident/warm.ts";
import { sampleTrials } from "../../lib/samples/trials.ts";
import { prng as rngOf } from "../../lib/results/stats.ts";

/** The events to decide after a prefix: the pre the ledger recorded next (if any), a stop, a prompt. */
export function probes(records: readonly LedgerRecord[], i: number): GuardEvent[] {
  const session = records[0]?.session ?? "s";
  const next = records[i];
  const out: GuardEvent[] = [{ word: "stop", session, subagent: false }, {
    word: "prompt",
    session,
    prompt: "continue",
  }];
  if (next?.event === "pre" && next.tool) {
    const input = (next.input && typeof next.input === "object" ? next.input : {}) as Record<string, unknown>;
    out.push({ word: "pre", session, tool: next.tool, input, toolUseId: next.tool_use_id ?? "t" });
  }
  return out;
}

/** Random sessions spliced from every rule example's records, pre records (the pending calls) included. */
export function splicedLedgers(count: number, length: number): LedgerRecord[][] {
  const pool = exampleRecords("spliced");
  const rng = rngOf(7);
  return Array.from(
    { length: count },
    () => Array.from({ length }, () => pool[Math.floor(rng() * pool.length)]),
  );
}

/** The sample trials' ledgers (two arms, two attempts). */
export function sampleLedgers(): LedgerRecord[][] {
  return sampleTrials({ arms: ["checklist", "critic"], attempts: 2 }).map((t) => t.ledger);
}

/** Every sequence the fold is checked on, named: the sample ledgers and 12 spliced ones of 80 records. */
export function foldSequences(): [string, LedgerRecord[]][] {
  return [
    ...sampleLedgers().map((l, i) =>
      [`sample ledger ${i} (${l.length} records)`, l] as [string, LedgerRecord[]]
    ),
    ...splicedLedgers(12, 80).map((l, i) =>
      [`spliced ledger ${i} (${l.length} records)`, l] as [string, LedgerRecord[]]
    ),
  ];
}
