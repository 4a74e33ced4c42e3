/**
 * The dashboard's read model: trial dirs (result, scorecard, trajectory, their guard ledgers), ledger files
 * elsewhere (live ones that grow, tailed from the last byte read), replay ledgers, and records posted to
 * `/ingest`. Ledger records are grouped by their `session` field. A replay ledger (records marked `replay`)
 * is never a trial of its own: its would-be decisions are attached to the original trial. Rows are keyed by
 * an opaque hash id, so a URL can only name a row the store found under its roots, never a path.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import {
  packetName,
  packetOf,
  readScorecard,
  readTrial,
  type TrialRef,
  type TrialSummary,
  walkTrials,
} from "../lib/results/trials.ts";
import type { DuckLoader } from "../lib/results/columnar.ts";
import { findSummaries, loadSummary, type SummaryReplay } from "./summary.ts";
import { findReplayRuns, readVerdicts, type ReplayVerdict, verdictKey } from "./verdicts.ts";
import { readTrajectory, type Trajectory } from "../lib/trajectories/atif.ts";
import { type Prices, type Recipe, trialCost } from "../lib/results/cost.ts";
import type { ToolCount } from "../lib/results/tool_counts.ts";
import {
  type BlockEvent,
  GATE,
  type LedgerStats,
  LedgerTail,
  type NumberedRecord,
  PAGE_LINES,
  SLICE_BYTES,
  SMALL_LEDGER_BYTES,
  StatsFold,
} from "./ledgers.ts";

export { GATE, ledgerStats, LedgerTail, StatsFold } from "./ledgers.ts";
export type { LedgerStats } from "./ledgers.ts";

/** Bytes read per step while pumping a backlog. */
const CHUNK = 256 << 10;

/** Where the dashboard reads from, and how it prices trials. */
export interface Sources {
  /** Trial trees and ledger dirs (`--logs`). */
  logs: string[];
  /** Aggregate and replay results (`--results`). */
  results: string[];
  /** Seconds since its last write for a ledger to count as live. */
  liveWindow?: number;
  /** Cost recipe for per-trial cost (the same the Arms page names); default B. */
  recipe?: Recipe;
  prices?: Prices;
  /** Loads DuckDB for replay summaries (tests inject a failing one); `false` never uses them. */
  duckdb?: DuckLoader | false;
}

/** What a scan has done so far, while it runs. */
export interface ScanProgress {
  /** Trial folders read so far. */
  trials: number;
  /** Ledger files found so far. */
  ledgers: number;
  /** What the scan is doing now, for the page. */
  phase: string;
  /** Epoch ms the scan started. */
  started: number;
}

/** A replay summary folder and what came of loading it. */
interface SummaryState {
  loaded: boolean;
  replays: SummaryReplay[];
  why: string | null;
  pending: Promise<void> | null;
}

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
   * Replay's own verdict (its summary.json, dashboard/verdicts.ts): what every replay figure counts; absent
   * when only the ledgers were found. A not-observable trial has one whose `verdict` is null.
   */
  verdict?: ReplayVerdict;
}

/** A replay arm's verdicts give the mark its block and rules; the ledger keeps its denies and closure. */
function withVerdict(mark: ReplayMark, v: ReplayVerdict): ReplayMark {
  const fired = v.verdict ? [...Object.keys(v.verdict.rules), ...(v.verdict.gate ? [GATE] : [])] : [];
  return { ...mark, blocked: v.verdict?.blocked ?? false, rules: fired.sort(), verdict: v };
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
  started: number | null;
  finished: number | null;
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

const DOMAIN_DIRS = new Set(["pa_provider", "pa_um", "cm", "trials", "logs", "jobs"]);

/** The arm a trial dir belongs to: the first path segment below its root that is not a domain or container. */
export function armOfPath(root: string, dir: string): string {
  const parts = relative(root, dir).split(sep).slice(0, -1).filter((p) =>
    p && !DOMAIN_DIRS.has(p) && !/__(pa_|cm)/.test(p)
  );
  return parts[0] ?? (basename(root) || "trials");
}

function walkJsonl(dir: string, out: string[], skip: Set<string>, depth = 0): void {
  if (depth > 8 || skip.has(dir)) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(".") || name === "node_modules" || name === "sessions") continue;
    const path = join(dir, name);
    if (name.endsWith(".jsonl")) out.push(path);
    else if (!name.includes(".")) {
      try {
        if (statSync(path).isDirectory()) walkJsonl(path, out, skip, depth + 1);
      } catch {
        // vanished while walking
      }
    }
  }
}

/** Reads a JSON file, or null when it is missing or invalid. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

interface TrialInfo {
  ref: TrialRef;
  arm: string;
  summary: TrialSummary;
  outcome: Outcome;
  cost: number | null;
  failedChecks: string[];
  synthetic: boolean;
  /** The packet folder's name (replay writes a trial's ledgers under it, so same-named trials stay apart). */
  packet: string;
}

const SEAT_DOMAIN: Record<string, string> = { provider: "pa_provider", payer: "pa_um", cm: "cm" };

function merged(stats: LedgerStats[]): Omit<LedgerStats, "session" | "first" | "closure"> {
  const sum = (k: "denies" | "stopBlocks" | "shadows" | "releases" | "errors" | "gaps" | "restarts") =>
    stats.reduce((a, s) => a + s[k], 0);
  const set = (k: "enforced" | "shadowed" | "rules") => [...new Set(stats.flatMap((s) => s[k]))].sort();
  return {
    records: stats.reduce((a, s) => a + s.records, 0),
    toolCalls: stats.reduce((a, s) => a + s.toolCalls, 0),
    denies: sum("denies"),
    stopBlocks: sum("stopBlocks"),
    blocks: sum("denies") + sum("stopBlocks"),
    shadows: sum("shadows"),
    releases: sum("releases"),
    errors: sum("errors"),
    gaps: sum("gaps"),
    restarts: sum("restarts"),
    enforced: set("enforced"),
    shadowed: set("shadowed"),
    rules: set("rules"),
    seat: stats.find((s) => s.seat)?.seat ?? null,
    arm: stats.find((s) => s.arm)?.arm ?? null,
    replay: stats.some((s) => s.replay),
    last: stats.map((s) => s.last).filter((t): t is string => !!t).sort().pop() ?? null,
  };
}

/** Arms that enforce rules: their replays count denies and stop blocks; others count shadow decisions. */
export function enforces(arm: string): boolean {
  return arm === "checklist" || arm === "critic";
}

function markOf(arm: string, s: ReturnType<typeof merged>, closure: string[]): ReplayMark {
  const enforcing = enforces(arm);
  return {
    arm,
    blocked: enforcing ? s.denies + s.stopBlocks > 0 : s.shadows > 0,
    rules: enforcing ? s.enforced : s.shadowed,
    denies: s.denies,
    stopBlocks: s.stopBlocks,
    closure,
  };
}

/**
 * A ledger file and the session a row takes from it (null: every session, a trial's own ledger). With
 * `stats`, the counts came from a replay summary and the file is read only when its records are asked for.
 */
interface LedgerPart {
  tail: LedgerTail;
  session: string | null;
  stats?: LedgerStats;
}

function inside(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** What the live ledgers of `/ingest` may hold: record JSON in all, per session, and sessions. */
export interface IngestCaps {
  held: number;
  session: number;
  sessions: number;
}

/**
 * 64 MiB of record JSON in all, 8 MiB per session (≈ 500 records at the guard's 16 KB record cap, more than a
 * trial's main session writes), 2,000 sessions.
 */
export const INGEST_CAPS: IngestCaps = { held: 64 * 2 ** 20, session: 8 * 2 ** 20, sessions: 2000 };

/** The store: call `refresh()` (throttled) before reading `rows()`. */
export class Store {
  private trials = new Map<string, TrialInfo>();
  private tails = new Map<string, LedgerTail>();
  private owner = new Map<string, string>();
  private ingested = new Map<string, LedgerRecord[]>();
  private ingestTimes = new Map<string, number>();
  private ingestFolds = new Map<string, StatsFold>();
  private ingestBytes = new Map<string, number>();
  private ingestHeld = 0;
  private byId = new Map<string, Row>();
  private parts = new Map<string, LedgerPart[]>();
  private replayParts = new Map<string, Map<string, LedgerPart[]>>();
  private ingestKeys = new Map<string, string[]>();
  private list: Row[] = [];
  private lastScan = -Infinity;
  private lastTail = -Infinity;
  private dirty = true;
  private tailVersions = new Map<string, number>();
  private summaries = new Map<string, SummaryState>();
  /** Replay runs below --results (their summary.json): the verdicts by trial key, read again when it changes. */
  private runs = new Map<string, { mtime: number; verdicts: Map<string, ReplayVerdict[]> | null }>();
  private lazyTails = new Map<string, LedgerTail>();
  private scanning: ScanProgress | null = null;
  private lastBuild = -Infinity;
  private buildMs = 0;
  private ingestedSinceBuild = false;
  /** Replay sessions whose trial is not under --logs. */
  orphanReplays: string[] = [];
  /** Tool-call counts by trajectory path (filled by the figures worker). */
  toolCounts = new Map<string, ToolCount>();
  /** Bumped on every rebuild, so derived indexes know when to rebuild. */
  version = 0;
  /** Bumped when the set or state of trial dirs changed (the figures depend on nothing else). */
  trialsVersion = 0;
  /** Scans finished. */
  scans = 0;
  private saved: AggregateFile[] = [];

  constructor(readonly sources: Sources) {}

  /**
   * Rescans roots at most every `scanMs`, reads grown ledgers at most every `tailMs` (about `budget` bytes
   * and `timeMs` milliseconds this call; `pump()` reads the rest), rebuilds rows when anything changed.
   */
  refresh(
    opts: { scanMs?: number; tailMs?: number; now?: number; budget?: number; timeMs?: number } = {},
  ): void {
    const now = opts.now ?? Date.now();
    if (!this.scanning && now - this.lastScan >= (opts.scanMs ?? 3000)) {
      this.scan();
      this.lastScan = now;
      this.lastTail = -Infinity;
    }
    if (now - this.lastTail >= (opts.tailMs ?? 200)) {
      this.tail(opts.budget ?? 4 * SLICE_BYTES, now, opts.timeMs ?? Infinity);
      this.lastTail = now;
    }
    this.maybeBuild();
  }

  /**
   * Rebuilds the rows when anything changed; while a background scan runs or ledgers are still behind, at
   * most every 500 ms (or four times as long as the last build took), so a page shows what is read so far
   * without the reading being spent on rebuilding.
   */
  private maybeBuild(): void {
    if (!this.dirty) return;
    const soon = performance.now() - this.lastBuild < Math.max(500, 4 * this.buildMs);
    if (soon && !this.ingestedSinceBuild && (this.scanning || this.behind())) return;
    this.build();
  }

  private behind(): boolean {
    for (const tail of this.tails.values()) if (tail.behind) return true;
    return false;
  }

  /**
   * Reads more of the ledgers still behind, in small chunks, until `budget` bytes or `ms` milliseconds are
   * spent (so a request waiting behind it waits little); true while some remain.
   */
  pump(budget = SLICE_BYTES, ms = 15): boolean {
    const t0 = performance.now();
    let left = budget;
    let more = false;
    for (const tail of this.tails.values()) {
      while (tail.behind && left > 0 && performance.now() - t0 < ms) {
        left -= tail.refresh(Math.min(left, CHUNK));
      }
      if (tail.behind) more = true;
      if (left <= 0 || performance.now() - t0 >= ms) break;
    }
    this.markChanged();
    this.maybeBuild();
    return more || [...this.tails.values()].some((t) => t.behind);
  }

  private tail(budget: number, now: number, timeMs: number): void {
    const window = (this.sources.liveWindow ?? 600) * 1000;
    const t0 = performance.now();
    let left = budget;
    for (const tail of this.tails.values()) {
      const active = tail.behind || tail.mtime === 0 || now - tail.mtime <= window;
      if (!active) continue;
      if (performance.now() - t0 > timeMs) break;
      // Every active ledger gets a little, so a small live append is never starved by a big backlog.
      left -= tail.refresh(Math.max(64 << 10, left));
    }
    this.markChanged();
  }

  private markChanged(): void {
    for (const [path, tail] of this.tails) {
      if (this.tailVersions.get(path) !== tail.version) {
        this.tailVersions.set(path, tail.version);
        this.dirty = true;
      }
    }
  }

  private rootOf(dir: string): string {
    return this.sources.logs.find((r) => dir === r || dir.startsWith(r.endsWith(sep) ? r : r + sep)) ??
      dirname(dir);
  }

  private scan(): void {
    for (const _ of this.scanSteps()) {
      // synchronous: a pending replay summary is not waited for (its ledgers are read meanwhile)
    }
    this.scans++;
  }

  /** The scan in progress (trials and ledgers found so far), or null when none runs. */
  progress(): ScanProgress | null {
    return this.scanning ? { ...this.scanning } : null;
  }

  /** The aggregate.ts results below --results as of the last scan. */
  aggregates(): readonly AggregateFile[] {
    return this.saved;
  }

  /** The replay summaries in use (their decisions.parquet read instead of their ledgers), with their sessions. */
  replaySummaries(): { dir: string; sessions: number }[] {
    return [...this.summaries].filter(([, s]) => s.loaded).map(([dir, s]) => ({
      dir,
      sessions: s.replays.length,
    }));
  }

  /** Why a replay summary could not be used (its ledgers are read instead), one line each. */
  summaryNotes(): string[] {
    return [...this.summaries.values()].map((s) => s.why).filter((w): w is string => !!w);
  }

  /**
   * Scans in slices of about `sliceMs`, yielding to the event loop between them, so a server answers while
   * it reads thousands of trial folders; replay summaries are loaded (and waited for) before their ledgers
   * would be walked. Pages show what is read so far (`progress()`); rows are final when this resolves.
   */
  async scanInBackground(sliceMs = 20): Promise<void> {
    if (this.scanning) return;
    this.scanning = { trials: 0, ledgers: 0, phase: "reading trial folders", started: Date.now() };
    try {
      // The caller (a server that just started listening) gets the event loop first.
      await new Promise((r) => setTimeout(r, 0));
      const steps = this.scanSteps();
      let t0 = performance.now();
      for (let step = steps.next(); !step.done; step = steps.next()) {
        if (step.value) {
          await step.value;
          t0 = performance.now();
        } else if (performance.now() - t0 >= sliceMs) {
          await new Promise((r) => setTimeout(r, 0));
          t0 = performance.now();
        }
      }
      this.lastScan = Date.now();
      this.lastTail = -Infinity;
      this.scans++;
    } finally {
      this.scanning = null;
    }
    if (this.dirty) this.build();
  }

  /** The scan, one trial or file per step; a step may hand back a promise worth waiting for. */
  private *scanSteps(): Generator<Promise<void> | undefined> {
    const progress = (phase: string) => {
      if (this.scanning) this.scanning.phase = phase;
    };
    for (const ref of walkTrials(this.sources.logs)) {
      if (this.scanning) this.scanning.trials++;
      const known = this.trials.get(ref.dir);
      if (known && known.outcome !== "running") {
        yield;
        continue;
      }
      const info = this.readTrialInfo(ref, armOfPath(this.rootOf(ref.dir), ref.dir));
      if (!known || known.outcome !== info.outcome || known.ref.ledgers.join() !== ref.ledgers.join()) {
        this.trialsVersion++;
      }
      this.trials.set(ref.dir, info);
      for (const l of ref.ledgers) {
        if (!this.tails.has(l)) this.tails.set(l, new LedgerTail(l));
        this.owner.set(l, ref.dir);
      }
      this.dirty = true;
      yield;
    }
    progress("reading replay summaries");
    if (this.sources.duckdb !== false) {
      for (const dir of findSummaries(this.sources.results)) {
        let state = this.summaries.get(dir);
        if (!state) {
          state = { loaded: false, replays: [], why: null, pending: null };
          const s = state;
          s.pending = loadSummary(dir, this.sources.duckdb || undefined).then((got) => {
            if ("why" in got) s.why = `${got.why}. Reading its ledgers instead.`;
            else {
              s.loaded = true;
              s.replays = got;
              for (const path of [...this.tails.keys()]) {
                if (inside(path, dir) && !this.owner.has(path)) this.tails.delete(path);
              }
            }
            s.pending = null;
            this.dirty = true;
          });
          this.summaries.set(dir, state);
        }
        if (state.pending) yield state.pending;
      }
    }
    progress("reading replay verdicts");
    for (const dir of findReplayRuns([...this.sources.results, ...this.sources.logs])) {
      let mtime = 0;
      try {
        mtime = statSync(join(dir, "summary.json")).mtimeMs;
      } catch {
        continue;
      }
      if (this.runs.get(dir)?.mtime === mtime) continue;
      const got = readVerdicts(dir);
      this.runs.set(dir, { mtime, verdicts: "why" in got ? null : got });
      this.dirty = true;
      yield;
    }
    progress("finding ledgers");
    const jsonl: string[] = [];
    const skip = new Set(this.trials.keys());
    for (const [dir, state] of this.summaries) if (state.loaded) skip.add(dir);
    for (const root of [...this.sources.results, ...this.sources.logs]) walkJsonl(root, jsonl, skip);
    for (const path of jsonl) {
      if (!this.tails.has(path)) {
        this.tails.set(path, new LedgerTail(path));
        this.dirty = true;
      }
    }
    progress("finding saved aggregates");
    this.saved = findAggregates(this.sources.results);
    yield;
    progress("reading ledger sizes");
    for (const tail of this.tails.values()) {
      tail.refresh(0);
      if (this.scanning) this.scanning.ledgers++;
      yield;
    }
  }

  private readTrialInfo(ref: TrialRef, arm: string): TrialInfo {
    const summary = readTrial(ref);
    let failedChecks: string[] = [];
    if (ref.scorecard) {
      try {
        failedChecks = readScorecard(ref.scorecard).checks.filter((c) => c.passed === false).map((c) => c.id);
      } catch {
        failedChecks = [];
      }
    }
    const outcome: Outcome = !summary.readable
      ? "running"
      : summary.passed === null
      ? "unscored"
      : summary.passed
      ? "passed"
      : "failed";
    const raw = summary.readable ? readJsonFile(ref.result) as Record<string, unknown> | null : null;
    return {
      ref,
      arm,
      summary,
      outcome,
      cost: summary.readable
        ? trialCost(summary, this.sources.recipe ?? "B", this.sources.prices ?? {})
        : null,
      failedChecks,
      synthetic: raw?.source === "fiable-samples",
      packet: packetName(packetOf(ref.dir)),
    };
  }

  /**
   * Appends one posted record to its session's in-memory live ledger; false (nothing held) when the record
   * would take its session past `INGEST_SESSION_BYTES`. The live ledgers together hold at most
   * `INGEST_HELD_BYTES` of record JSON: the sessions posted to longest ago go first.
   */
  ingest(record: LedgerRecord, now = Date.now(), caps = INGEST_CAPS): boolean {
    const session = String(record.session);
    const bytes = JSON.stringify(record).length;
    const held = this.ingestBytes.get(session) ?? 0;
    if (held + bytes > caps.session) return false;
    let list = this.ingested.get(session);
    if (!list) {
      list = [];
      this.ingested.set(session, list);
      this.ingestFolds.set(session, new StatsFold());
    }
    list.push(record);
    this.ingestFolds.get(session)!.add(record);
    this.ingestBytes.set(session, held + bytes);
    this.ingestHeld += bytes;
    // Map order is insertion order: re-inserting keeps the least recently posted session first.
    this.ingestTimes.delete(session);
    this.ingestTimes.set(session, now);
    for (const oldest of this.ingestTimes.keys()) {
      if (this.ingestHeld <= caps.held && this.ingested.size <= caps.sessions) break;
      if (oldest === session) continue;
      this.ingestHeld -= this.ingestBytes.get(oldest) ?? 0;
      for (const map of [this.ingested, this.ingestTimes, this.ingestFolds, this.ingestBytes]) {
        map.delete(oldest);
      }
    }
    this.dirty = true;
    // A live record shows at the next request even while a scan throttles rebuilding.
    this.ingestedSinceBuild = true;
    return true;
  }

  /** The bytes of record JSON the live ledgers hold. */
  ingestedBytes(): number {
    return this.ingestHeld;
  }

  /** Every trial dir found, with its summary (for the figures). */
  trialInfos(): { dir: string; arm: string; summary: TrialSummary; trajectory: string | null }[] {
    return [...this.trials.values()].map((t) => ({
      dir: t.ref.dir,
      arm: t.arm,
      summary: t.summary,
      trajectory: t.ref.trajectory,
    }));
  }

  private build(): void {
    const t0 = performance.now();
    const rows: Row[] = [];
    const bySession = new Map<string, LedgerPart[]>();
    const replays = new Map<string, Map<string, LedgerPart[]>>();
    for (const tail of this.tails.values()) {
      if (this.owner.has(tail.path)) continue;
      for (const [session, fold] of tail.sessions) {
        const part = { tail, session };
        if (tail.replay) {
          const arm = fold.stats().arm ?? basename(dirname(tail.path));
          const arms = replays.get(session) ?? new Map<string, LedgerPart[]>();
          arms.set(arm, [...(arms.get(arm) ?? []), part]);
          replays.set(session, arms);
        } else bySession.set(session, [...(bySession.get(session) ?? []), part]);
      }
    }
    for (const state of this.summaries.values()) {
      if (!state.loaded) continue;
      for (const r of state.replays) {
        let tail = this.lazyTails.get(r.ledger);
        if (!tail) this.lazyTails.set(r.ledger, tail = new LedgerTail(r.ledger));
        const arms = replays.get(r.session) ?? new Map<string, LedgerPart[]>();
        arms.set(r.arm, [...(arms.get(r.arm) ?? []), { tail, session: r.session, stats: r.stats }]);
        replays.set(r.session, arms);
      }
    }
    this.parts = new Map();
    this.replayParts = new Map();
    this.ingestKeys = new Map();
    const usedSessions = new Set<string>();
    const usedReplays = new Set<string>();
    const verdicts = new Map<string, ReplayVerdict[]>();
    const byName = new Map<string, string[]>();
    for (const run of this.runs.values()) {
      for (const [key, list] of run.verdicts ?? []) {
        verdicts.set(key, list);
        const name = key.slice(key.indexOf("/") + 1);
        byName.set(name, [...(byName.get(name) ?? []), key]);
      }
    }
    /** A trial's verdicts: by packet and name, else by a name only one replayed trial has. */
    const verdictsOf = (packet: string, name: string) => {
      const keys = byName.get(name) ?? [];
      return verdicts.get(verdictKey(packet, name)) ??
        (keys.length === 1 ? verdicts.get(keys[0]) : undefined);
    };
    const statsOf = (parts: LedgerPart[]) =>
      parts.flatMap((p) =>
        p.stats
          ? [p.stats]
          : p.session === null
          ? [...p.tail.sessions.values()].map((f) => f.stats())
          : [p.tail.sessions.get(p.session)?.stats()].filter((s): s is LedgerStats => !!s)
      );
    for (const info of this.trials.values()) {
      const own: LedgerPart[] = info.ref.ledgers.map((l) => this.tails.get(l)).filter((t): t is LedgerTail =>
        !!t
      ).map((tail) => ({ tail, session: null }));
      const ownSessions = own.flatMap((p) => [...p.tail.sessions.keys()]);
      const keys = [info.ref.name, ...ownSessions];
      const parts = [...own];
      for (const key of keys) {
        const extra = bySession.get(key);
        if (extra && !usedSessions.has(key)) {
          parts.push(...extra);
          usedSessions.add(key);
        }
      }
      const stats = statsOf(parts);
      const ingestKeys = keys.filter((k) => this.ingested.has(k));
      for (const k of ingestKeys) {
        stats.push(this.ingestFolds.get(k)!.stats());
        usedSessions.add(`ingest:${k}`);
      }
      const m = merged(stats);
      const replayArms = new Map<string, LedgerPart[]>();
      for (const key of keys) {
        for (const [arm, list] of replays.get(key) ?? []) {
          // Two packets can hold a trial of the same name: keep the replay written under this trial's packet.
          const mine = list.filter((p) => basename(dirname(p.tail.path)) === info.packet);
          replayArms.set(arm, [...(replayArms.get(arm) ?? []), ...(mine.length ? mine : list)]);
          usedReplays.add(key);
        }
      }
      const replayed = verdictsOf(info.packet, info.ref.name) ?? [];
      for (const v of replayed) if (!replayArms.has(v.arm)) replayArms.set(v.arm, []);
      const marks = [...replayArms].sort(([a], [b]) => a.localeCompare(b)).map(([arm, list]) => {
        const all = statsOf(list);
        const mark = markOf(arm, merged(all), all.find((x) => x.closure.length)?.closure ?? []);
        const v = replayed.find((x) => x.arm === arm);
        return v ? withVerdict(mark, v) : mark;
      });
      const s = info.summary;
      const id = rowId(`trial:${info.ref.dir}`);
      const bytes = parts.reduce((a, p) => a + p.tail.size, 0);
      const behind = parts.some((p) => p.tail.behind);
      const count = info.ref.trajectory ? this.toolCounts.get(info.ref.trajectory) : undefined;
      const ingestTime = Math.max(0, ...ingestKeys.map((k) => this.ingestTimes.get(k) ?? 0));
      rows.push({
        id,
        arm: info.arm,
        source: "trial",
        name: info.ref.name,
        task: s.task,
        domain: s.domain,
        seat: m.seat,
        outcome: info.outcome,
        reward: s.reward,
        cost: info.cost,
        reportedCost: s.costUsd,
        model: s.model,
        toolCalls: count && "all" in count ? count.all : null,
        guardedCalls: m.toolCalls,
        blocks: m.blocks,
        shadows: m.shadows,
        releases: m.releases,
        errors: m.errors,
        gaps: m.gaps,
        restarts: m.restarts,
        rules: m.rules,
        failedChecks: info.failedChecks,
        trialDir: info.ref.dir,
        trajectory: info.ref.trajectory,
        scorecard: info.ref.scorecard,
        guarded: parts.length > 0 || ingestKeys.length > 0,
        ledgerBytes: bytes,
        indexing: behind ? Math.min(...parts.map((p) => p.tail.progress)) : null,
        sessions: [
          ...new Set([...ownSessions, ...parts.map((p) => p.session).filter((x): x is string => !!x)]),
        ],
        replays: marks,
        synthetic: info.synthetic,
        updated: Math.max(ingestTime, ...parts.map((p) => p.tail.mtime), 0),
        started: s.trial.start !== null ? s.trial.start * 1000 : null,
        finished: s.trial.end !== null ? s.trial.end * 1000 : null,
      });
      this.parts.set(id, parts);
      this.replayParts.set(id, replayArms);
      this.ingestKeys.set(id, ingestKeys);
    }
    const blank = (name: string, stats: ReturnType<typeof merged>, source: RowSource): Row => ({
      id: "",
      arm: stats.arm ?? "live",
      source,
      name,
      task: name,
      domain: (stats.seat && SEAT_DOMAIN[stats.seat]) ?? "unknown",
      seat: stats.seat,
      outcome: "running",
      reward: null,
      cost: null,
      reportedCost: null,
      model: null,
      toolCalls: null,
      guardedCalls: stats.toolCalls,
      blocks: stats.blocks,
      shadows: stats.shadows,
      releases: stats.releases,
      errors: stats.errors,
      gaps: stats.gaps,
      restarts: stats.restarts,
      rules: stats.rules,
      failedChecks: [],
      trialDir: null,
      trajectory: null,
      scorecard: null,
      guarded: true,
      ledgerBytes: 0,
      indexing: null,
      sessions: [name],
      replays: [],
      synthetic: false,
      updated: 0,
      started: null,
      finished: null,
    });
    for (const [session, parts] of bySession) {
      if (usedSessions.has(session)) continue;
      const row = blank(session, merged(statsOf(parts)), "live");
      row.id = rowId(`session:${session}`);
      row.ledgerBytes = parts.reduce((a, p) => a + p.tail.size, 0);
      row.indexing = parts.some((p) => p.tail.behind) ? Math.min(...parts.map((p) => p.tail.progress)) : null;
      row.updated = Math.max(...parts.map((p) => p.tail.mtime));
      rows.push(row);
      this.parts.set(row.id, parts);
    }
    for (const [session, fold] of this.ingestFolds) {
      if (usedSessions.has(`ingest:${session}`)) continue;
      const row = blank(session, merged([fold.stats()]), "ingest");
      row.id = rowId(`ingest:${session}`);
      row.updated = this.ingestTimes.get(session) ?? 0;
      rows.push(row);
      this.parts.set(row.id, []);
    }
    this.orphanReplays = [...replays.keys()].filter((k) => !usedReplays.has(k)).sort();
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    rows.sort((a, b) => cmp(a.arm, b.arm) || cmp(a.domain, b.domain) || cmp(a.name, b.name));
    this.list = rows;
    this.byId = new Map(rows.map((r) => [r.id, r]));
    this.dirty = false;
    this.version++;
    this.lastBuild = performance.now();
    this.buildMs = this.lastBuild - t0;
    this.ingestedSinceBuild = false;
  }

  /** Marks the rows for rebuilding (after tool counts arrived). */
  touch(): void {
    this.dirty = true;
  }

  /** Every row, sorted by arm, domain and name. */
  rows(): readonly Row[] {
    return this.list;
  }

  /** The row for an id, or undefined: ids are opaque hashes, never paths. */
  row(id: string): Row | undefined {
    return this.byId.get(id);
  }

  private ingestedOf(row: Row): LedgerRecord[] {
    return (this.ingestKeys.get(row.id) ?? []).flatMap((s) => this.ingested.get(s) ?? []);
  }

  /** True when the row's ledger is small enough to read whole and merge into the transcript. */
  small(row: Row): boolean {
    return row.ledgerBytes <= SMALL_LEDGER_BYTES;
  }

  /** The ledger records of a row (all its files and ingested records), in time order. Small ledgers only. */
  records(row: Row): LedgerRecord[] {
    if (row.source === "ingest") return [...(this.ingested.get(row.name) ?? [])];
    if (!this.small(row)) return [];
    const out: LedgerRecord[] = [];
    for (const p of this.parts.get(row.id) ?? []) {
      for (const r of p.tail.records()) {
        if (p.session === null || String(r.session) === p.session) out.push(r);
      }
    }
    out.push(...this.ingestedOf(row));
    const timed = out.map((r, i) => ({ r, i, t: typeof r.t === "string" ? r.t : "" }));
    timed.sort((a, b) => (a.t && b.t && a.t !== b.t ? (a.t < b.t ? -1 : 1) : a.i - b.i));
    return timed.map((x) => x.r);
  }

  /** Lines in the row's ledger files (for paging a big ledger). */
  ledgerLines(row: Row): number {
    return (this.parts.get(row.id) ?? []).reduce((a, p) => a + p.tail.lines, 0);
  }

  /** One page of a row's ledger (PAGE_LINES lines), read from disk across its files, whatever the size. */
  ledgerPage(row: Row, page: number): NumberedRecord[] {
    let from = page * PAGE_LINES;
    const out: NumberedRecord[] = [];
    let base = 0;
    for (const p of this.parts.get(row.id) ?? []) {
      if (out.length >= PAGE_LINES) break;
      if (from < base + p.tail.lines) {
        const got = p.tail.page(from - base, PAGE_LINES - out.length);
        for (const n of got) {
          if (p.session === null || String(n.record.session) === p.session) {
            out.push({ line: n.line + base, record: n.record });
          }
        }
        from = base + p.tail.lines;
      }
      base += p.tail.lines;
    }
    return out;
  }

  /** The replay arms recorded for a row's trial. */
  replayArms(row: Row): string[] {
    return [...(this.replayParts.get(row.id)?.keys() ?? [])].sort();
  }

  /** The replay records of one arm for a row's trial. */
  replayRecords(row: Row, arm: string): LedgerRecord[] {
    const out: LedgerRecord[] = [];
    for (const p of this.replayParts.get(row.id)?.get(arm) ?? []) {
      // A summary's ledger is read when its records are first asked for (a replay ledger never grows).
      if (p.stats) { while (p.tail.refresh(SLICE_BYTES) > 0); }
      for (const r of p.tail.records()) {
        if (p.session === null || String(r.session) === p.session) out.push(r);
      }
    }
    return out;
  }

  /** The text a row is found by in search: its ledger's tools, cases, reasons and obligations. */
  searchText(row: Row): string {
    if (row.source === "ingest") return this.ingestFolds.get(row.name)?.searchText() ?? "";
    return (this.parts.get(row.id) ?? []).map((p) =>
      p.session === null
        ? [...p.tail.sessions.values()].map((f) => f.searchText()).join(" ")
        : p.tail.sessions.get(p.session)?.searchText() ?? ""
    ).join(" ");
  }

  /** Rows whose ledger was written within the live window, newest first. */
  live(now = Date.now()): Row[] {
    const window = (this.sources.liveWindow ?? 600) * 1000;
    return this.list.filter((r) => r.guarded && r.updated > 0 && now - r.updated <= window)
      .sort((a, b) => b.updated - a.updated);
  }

  /** The latest enforced decisions (deny, stop block, release) in live ledgers, newest first. */
  latestBlocks(now = Date.now(), limit = 20): (BlockEvent & { row: Row | undefined })[] {
    const window = (this.sources.liveWindow ?? 600) * 1000;
    const bySession = new Map<string, Row>();
    for (const r of this.list) for (const s of [...r.sessions, r.name]) bySession.set(s, r);
    const events: BlockEvent[] = [];
    for (const tail of this.tails.values()) {
      if (tail.replay || now - tail.mtime > window) continue;
      for (const fold of tail.sessions.values()) events.push(...fold.blocks());
    }
    for (const [session, fold] of this.ingestFolds) {
      if (now - (this.ingestTimes.get(session) ?? 0) <= window) events.push(...fold.blocks());
    }
    return events.sort((a, b) => (a.t < b.t ? 1 : a.t > b.t ? -1 : 0)).slice(0, limit)
      .map((e) => ({ ...e, row: bySession.get(e.session) }));
  }

  /** The trajectory of a row's trial, or null. */
  trajectory(row: Row): Trajectory | null {
    if (!row.trajectory) return null;
    try {
      return readTrajectory(row.trajectory);
    } catch {
      return null;
    }
  }
}

/** One aggregate.ts result found under a results root. */
export interface AggregateFile {
  id: string;
  path: string;
  data: Record<string, unknown>;
}

/** Every `aggregate.json` (aggregate.ts output) up to three levels below the results roots. */
export function findAggregates(roots: readonly string[]): AggregateFile[] {
  const found: AggregateFile[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (name === "aggregate.json") {
        const data = readJsonFile(path) as Record<string, unknown> | null;
        if (data && Array.isArray(data.rows)) {
          found.push({ id: rowId(`aggregate:${resolve(path)}`), path, data });
        }
      } else if (depth < 3 && !name.includes(".")) walk(path, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return found;
}
