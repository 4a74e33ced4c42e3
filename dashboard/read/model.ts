/**
 * The dashboard's read model, what every page queries: one row per trial (or live session) with its guard
 * counts and replay marks, and the ledger parts behind each row. Built from the sources by rows.ts; a row is
 * keyed by an opaque hash id, so a URL can only name a row the store found under its roots, never a path.
 */
import type { LedgerStats, LedgerTail } from "./ledgers.ts";
import type { ReplayVerdict } from "./verdicts.ts";
import type { GuardFacts } from "../../lib/results/guard_facts.ts";

/** Where a row's data came from: a trial dir, a ledger with no trial dir yet, or records posted live. */
export type RowSource = "trial" | "live" | "ingest";
/** A row's outcome; `running` while no verified result exists. */
export type Outcome = "passed" | "failed" | "unscored" | "running";

/** What replaying the trial through one arm would have done. */
export interface ReplayMark {
  arm: string;
  blocked: boolean;
  /** Rules that would have blocked (STOP-GATE for the closure gate). */
  rules: string[];
  denies: number;
  stopBlocks: number;
  closure: string[];
  /**
   * Replay's own verdict (its summary.json, read/verdicts.ts): what every replay figure counts; absent when
   * only the ledgers were found. A not-observable trial has one whose `verdict` is null.
   */
  verdict?: ReplayVerdict;
}

/** One trial as the dashboard lists it. */
export interface Row {
  id: string;
  arm: string;
  source: RowSource;
  name: string;
  task: string;
  domain: string;
  seat: string | null;
  outcome: Outcome;
  reward: number | null;
  /** Cost under the store's recipe (null: unpriced or unknown). */
  cost: number | null;
  /** The harness's own `agent_result.cost_usd`. */
  reportedCost: number | null;
  model: string | null;
  /** Tool calls counted from the trajectory (null until counted, or without one). */
  toolCalls: number | null;
  /** Calls the guard saw (pre records in its ledger). */
  guardedCalls: number;
  blocks: number;
  shadows: number;
  releases: number;
  errors: number;
  gaps: number;
  restarts: number;
  rules: string[];
  failedChecks: string[];
  trialDir: string | null;
  /** Harbor's exception when the trial ended on one (`result.json` exception_info), else null. */
  exception: { type: string; message: string } | null;
  trajectory: string | null;
  scorecard: string | null;
  /** True when a guard ledger was found for the trial. */
  guarded: boolean;
  /** Bytes of guard ledger behind the row. */
  ledgerBytes: number;
  /** Share of the ledger indexed so far, while a big one is still being read. */
  indexing: number | null;
  sessions: string[];
  replays: ReplayMark[];
  /** True for the demo's synthetic sample trials. */
  synthetic: boolean;
  /** Epoch ms of the last ledger write (0 without a ledger). */
  updated: number;
  /**
   * Epoch ms of the last write seen in a trial folder that has no result yet (the folder, trial.log, agent/);
   * 0 once it has one. With `updated`, what tells a trial being written now from one that stopped.
   */
  touched: number;
  started: number | null;
  finished: number | null;
  /** How the run ended, as the guard recorded it: the agent's stop, an API error (StopFailure), or null. */
  ending: "stop" | "api_error" | null;
  /** The guard's facts from result.json (a packet's trial has them in place of its ledgers). */
  facts: GuardFacts | null;
}

/** FNV-1a of a string as 14 hex digits: a row's opaque URL id. */
export function rowId(key: string): string {
  let h1 = 0x811c9dc5, h2 = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return (h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0")).slice(0, 14);
}

/**
 * A ledger file and the session a row takes from it (null: every session, a trial's own ledger). With
 * `stats`, the counts came from a replay summary and the file is read only when its records are asked for.
 */
export interface LedgerPart {
  tail: LedgerTail;
  session: string | null;
  stats?: LedgerStats;
}

/** The rows and what backs each: its ledger parts, its replay parts by arm, its ingested sessions. */
export interface Model {
  rows: Row[];
  byId: Map<string, Row>;
  parts: Map<string, LedgerPart[]>;
  replayParts: Map<string, Map<string, LedgerPart[]>>;
  ingestKeys: Map<string, string[]>;
  /** Replay sessions whose trial is not under --logs. */
  orphanReplays: string[];
}

/** The model before anything was read. */
export function emptyModel(): Model {
  return {
    rows: [],
    byId: new Map(),
    parts: new Map(),
    replayParts: new Map(),
    ingestKeys: new Map(),
    orphanReplays: [],
  };
}
