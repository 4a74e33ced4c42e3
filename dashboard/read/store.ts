/**
 * The dashboard's store: reads the sources (sources/: trial folders, ledger files, replay summaries and
 * verdicts, records posted to `/ingest`, saved aggregates) in budgets, rebuilds the read model (model.ts,
 * built by rows.ts) when they changed, and answers the pages' queries from that one model.
 */
import { existsSync } from "node:fs";
import { dirname, sep } from "node:path";
import type { LedgerRecord } from "../../lib/guard/engine/record.ts";
import { trialRef, type TrialSummary, walkTrialDirs } from "../../lib/results/trials.ts";
import { WalkCache } from "../../lib/walk.ts";
import type { DuckLoader } from "../../lib/results/columnar.ts";
import { readTrajectory, toolEvents, type Trajectory } from "../../lib/trajectories/atif.ts";
import type { Prices, Recipe } from "../../lib/results/cost.ts";
import type { ToolCount } from "../../lib/results/tool_counts.ts";
import {
  type BlockEvent,
  type NumberedRecord,
  PAGE_LINES,
  SLICE_BYTES,
  SMALL_LEDGER_BYTES,
} from "./ledgers.ts";
import { emptyModel, type Model, type Row } from "./model.ts";
import { buildModel } from "./rows.ts";
import { readTrialInfo, type TrialInfo } from "./sources/trials.ts";
import { type ArmNames, armNames } from "./arms.ts";
import { LedgerFiles } from "./sources/ledger_files.ts";
import { ReplaySources } from "./sources/replays.ts";
import { INGEST_CAPS, IngestedLedgers } from "./sources/ingest.ts";
import { buildTranscript, type Item, ledgerTranscript } from "./transcript.ts";
import { type AggregateFile, SavedAggregates } from "./sources/aggregates.ts";

/** Where the dashboard reads from, and how it prices trials. */
export interface Sources {
  /** Trial trees and ledger dirs (`--logs`). */
  logs: string[];
  /** A name for every trial below a log root (`--logs NAME=DIR`), by root. */
  names?: Record<string, string>;
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

/** True when a trial read again says what it said before (so the rows need no rebuilding). */
function sameTrial(a: TrialInfo, b: TrialInfo): boolean {
  return a.outcome === b.outcome && a.touched === b.touched && a.cost === b.cost &&
    a.ref.ledgers.join() === b.ref.ledgers.join() && a.ref.trajectory === b.ref.trajectory &&
    a.ref.scorecard === b.ref.scorecard && a.failedChecks.join() === b.failedChecks.join();
}

/** The store: call `refresh()` (throttled) before reading `rows()`. */
export class Store {
  #trials = new Map<string, TrialInfo>();
  #files = new LedgerFiles();
  #replays = new ReplaySources();
  #ingest = new IngestedLedgers();
  #model: Model = emptyModel();
  #saved = new SavedAggregates();
  #arms: ArmNames = { names: new Map(), mixed: [] };
  /** What the scans saw of the trial trees: a rescan reads only the folders that changed since. */
  #walked = { trials: new WalkCache(), ledgers: new WalkCache(), replays: new WalkCache() };
  private lastScan = -Infinity;
  private lastTail = -Infinity;
  private dirty = true;
  private scanning: ScanProgress | null = null;
  private lastBuild = -Infinity;
  private buildMs = 0;
  private ingestedSinceBuild = false;
  /** Tool-call counts by trajectory path (filled by the figures worker). */
  toolCounts = new Map<string, ToolCount>();
  /** Bumped on every rebuild, so derived indexes know when to rebuild. */
  version = 0;
  /** Bumped when the set or state of trial dirs changed (the figures depend on nothing else). */
  trialsVersion = 0;
  /** Scans finished. */
  scans = 0;

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
      this.#files.tail(opts.budget ?? 4 * SLICE_BYTES, now, opts.timeMs ?? Infinity, this.liveWindowMs());
      if (this.#files.changed()) this.dirty = true;
      this.lastTail = now;
    }
    this.maybeBuild();
  }

  /** How recently a ledger or trial folder must have been written for its trial to count as live, in ms. */
  liveWindowMs(): number {
    return (this.sources.liveWindow ?? 600) * 1000;
  }

  /**
   * Rebuilds the rows when anything changed; while a background scan runs or ledgers are still behind, at
   * most every 500 ms (or four times as long as the last build took), so a page shows what is read so far
   * without the reading being spent on rebuilding.
   */
  private maybeBuild(): void {
    if (!this.dirty) return;
    const soon = performance.now() - this.lastBuild < Math.max(500, 4 * this.buildMs);
    if (soon && !this.ingestedSinceBuild && (this.scanning || this.#files.behind())) return;
    this.build();
  }

  /**
   * Reads more of the ledgers still behind, in small chunks, until `budget` bytes or `ms` milliseconds are
   * spent (so a request waiting behind it waits little); true while some remain.
   */
  pump(budget = SLICE_BYTES, ms = 15): boolean {
    const more = this.#files.pump(budget, ms);
    if (this.#files.changed()) this.dirty = true;
    this.maybeBuild();
    return more || this.#files.behind();
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

  /**
   * The first scan while it runs (trials and ledgers found so far), or null: later rescans read only what
   * changed, and quietly.
   */
  progress(): ScanProgress | null {
    return this.scanning && this.scans === 0 ? { ...this.scanning } : null;
  }

  /** The aggregate.ts results below --results as of the last scan. */
  aggregates(): readonly AggregateFile[] {
    return this.#saved.files();
  }

  /** The replay summaries in use (their decisions.parquet read instead of their ledgers), with their sessions. */
  replaySummaries(): { dir: string; sessions: number }[] {
    return this.#replays.summaries();
  }

  /** Why a replay summary could not be used (its ledgers are read instead), one line each. */
  summaryNotes(): string[] {
    return this.#replays.notes();
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

  /**
   * The scan, one trial or file per step; a step may hand back a promise worth waiting for. A rescan reads only
   * the folders that changed since the last one (and the trials still running), and marks the rows for
   * rebuilding only when something it read differs.
   */
  private *scanSteps(): Generator<Promise<void> | undefined> {
    const first = this.scans === 0;
    const progress = (phase: string) => {
      if (this.scanning) this.scanning.phase = phase;
    };
    const changed = () => {
      this.dirty = true;
    };
    for (const dir of walkTrialDirs(this.sources.logs, this.#walked.trials)) {
      if (this.scanning) this.scanning.trials++;
      const known = this.#trials.get(dir);
      if (known && known.outcome !== "running") {
        yield;
        continue;
      }
      const ref = trialRef(dir);
      const root = this.rootOf(dir);
      const info = readTrialInfo(ref, { dir: root, name: this.sources.names?.[root] }, this.sources);
      if (!known || known.outcome !== info.outcome || known.ref.ledgers.join() !== ref.ledgers.join()) {
        this.trialsVersion++;
      }
      if (!known || !sameTrial(known, info)) this.dirty = true;
      this.#trials.set(dir, info);
      for (const l of ref.ledgers) this.#files.own(l, dir);
      yield;
    }
    progress("reading replay summaries");
    if (this.sources.duckdb !== false) {
      yield* this.#replays.loadSummaries(this.sources.results, this.sources.duckdb || undefined, {
        loaded: (dir) => this.#files.dropInside(dir),
        changed,
      });
    }
    progress("reading replay verdicts");
    const roots = [...this.sources.results, ...this.sources.logs];
    yield* this.#replays.readRuns(roots, changed, this.#walked.replays);
    progress("finding ledgers");
    const skip = new Set([...this.#trials.keys(), ...this.#replays.loadedDirs()]);
    if (this.#files.find(roots, skip, this.#walked.ledgers)) this.dirty = true;
    progress("finding saved aggregates");
    this.#saved.find(this.sources.results);
    yield;
    progress("reading ledger sizes");
    const running = (path: string) => {
      const owner = this.#files.owner.get(path);
      return owner === undefined || this.#trials.get(owner)?.outcome === "running";
    };
    for (const tail of this.#files.tails.values()) {
      // A finished trial's ledger and a replay's do not grow: a rescan looks only at the others.
      if (!first && tail.mtime && (tail.replay || !running(tail.path))) continue;
      tail.refresh(0);
      if (this.scanning) this.scanning.ledgers++;
      yield;
    }
  }

  /**
   * Appends one posted record to its session's in-memory live ledger; false (nothing held) when the record
   * would take its session past `caps.session`. The live ledgers together hold at most `caps.held` of record
   * JSON: the sessions posted to longest ago go first.
   */
  ingest(record: LedgerRecord, now = Date.now(), caps = INGEST_CAPS): boolean {
    if (!this.#ingest.add(record, now, caps)) return false;
    this.dirty = true;
    // A live record shows at the next request even while a scan throttles rebuilding.
    this.ingestedSinceBuild = true;
    return true;
  }

  /** The bytes of record JSON the live ledgers hold. */
  ingestedBytes(): number {
    return this.#ingest.bytes();
  }

  /** Every trial dir found, with its summary (for the figures). */
  trialInfos(): { dir: string; arm: string; summary: TrialSummary; trajectory: string | null }[] {
    return [...this.#trials.values()].map((t) => ({
      dir: t.ref.dir,
      arm: t.arm,
      summary: t.summary,
      trajectory: t.ref.trajectory,
    }));
  }

  /** The folders whose trials ran as more than one arm (shown as separate arms), as of the last build. */
  mixedArms(): ArmNames["mixed"] {
    return this.#arms.mixed;
  }

  private build(): void {
    const t0 = performance.now();
    this.#arms = armNames(new Map([...this.#trials].map(([dir, t]) => [dir, t.claim])));
    let renamed = false;
    for (const [dir, t] of this.#trials) {
      const arm = this.#arms.names.get(dir)!;
      if (t.arm !== arm) renamed = true;
      t.arm = arm;
    }
    // The figures are per arm: a trial that changed arm (a second run came in, say) changes them.
    if (renamed) this.trialsVersion++;
    this.#model = buildModel({
      trials: this.#trials.values(),
      files: this.#files,
      replays: this.#replays,
      ingest: this.#ingest,
      toolCounts: this.toolCounts,
    });
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
    return this.#model.rows;
  }

  /** The row for an id, or undefined: ids are opaque hashes, never paths. */
  row(id: string): Row | undefined {
    return this.#model.byId.get(id);
  }

  /** Replay sessions whose trial is not under --logs. */
  get orphanReplays(): string[] {
    return this.#model.orphanReplays;
  }

  #ingestedOf(row: Row): LedgerRecord[] {
    return (this.#model.ingestKeys.get(row.id) ?? []).flatMap((s) => this.#ingest.records(s));
  }

  /** True when the row's ledger is small enough to read whole and merge into the transcript. */
  small(row: Row): boolean {
    return row.ledgerBytes <= SMALL_LEDGER_BYTES;
  }

  /** The ledger records of a row (all its files and ingested records), in time order. Small ledgers only. */
  records(row: Row): LedgerRecord[] {
    if (row.source === "ingest") return [...this.#ingest.records(row.name)];
    if (!this.small(row)) return [];
    const out: LedgerRecord[] = [];
    for (const p of this.#model.parts.get(row.id) ?? []) {
      for (const r of p.tail.records()) {
        if (p.session === null || String(r.session) === p.session) out.push(r);
      }
    }
    out.push(...this.#ingestedOf(row));
    const timed = out.map((r, i) => ({ r, i, t: typeof r.t === "string" ? r.t : "" }));
    timed.sort((a, b) => (a.t && b.t && a.t !== b.t ? (a.t < b.t ? -1 : 1) : a.i - b.i));
    return timed.map((x) => x.r);
  }

  /** Lines in the row's ledger files (for paging a big ledger). */
  ledgerLines(row: Row): number {
    return (this.#model.parts.get(row.id) ?? []).reduce((a, p) => a + p.tail.lines, 0);
  }

  /** One page of a row's ledger (PAGE_LINES lines), read from disk across its files, whatever the size. */
  ledgerPage(row: Row, page: number): NumberedRecord[] {
    let from = page * PAGE_LINES;
    const out: NumberedRecord[] = [];
    let base = 0;
    for (const p of this.#model.parts.get(row.id) ?? []) {
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

  /** How many of the row's ledger records carry each decision, as read so far, most first. */
  ledgerDecisions(row: Row): [string, number][] {
    const counts = new Map<string, number>();
    for (const p of this.#model.parts.get(row.id) ?? []) {
      const folds = p.session === null ? [...p.tail.sessions.values()] : [p.tail.sessions.get(p.session)];
      for (const fold of folds) {
        for (const [d, n] of fold?.decisions() ?? []) counts.set(d, (counts.get(d) ?? 0) + n);
      }
    }
    return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }

  /**
   * One page (PAGE_LINES records) of the row's ledger records with one decision, read from disk page by page
   * from the start (a filtered page reads the ledger up to it).
   */
  ledgerPageWhere(row: Row, decision: string, page: number): NumberedRecord[] {
    const skip = page * PAGE_LINES;
    const out: NumberedRecord[] = [];
    let seen = 0;
    const pages = Math.ceil(this.ledgerLines(row) / PAGE_LINES);
    for (let i = 0; i < pages && out.length < PAGE_LINES; i++) {
      for (const n of this.ledgerPage(row, i)) {
        if (String(n.record.decision) !== decision) continue;
        if (seen++ >= skip && out.length < PAGE_LINES) out.push(n);
      }
    }
    return out;
  }

  /** The replay arms recorded for a row's trial. */
  replayArms(row: Row): string[] {
    return [...(this.#model.replayParts.get(row.id)?.keys() ?? [])].sort();
  }

  /** The replay records of one arm for a row's trial. */
  replayRecords(row: Row, arm: string): LedgerRecord[] {
    const out: LedgerRecord[] = [];
    for (const p of this.#model.replayParts.get(row.id)?.get(arm) ?? []) {
      // A summary's ledger is read when its records are first asked for (a replay ledger never grows).
      if (p.stats) { while (p.tail.refresh(SLICE_BYTES) > 0); }
      for (const r of p.tail.records()) {
        if (p.session === null || String(r.session) === p.session) out.push(r);
      }
    }
    return out;
  }

  /**
   * False when no ledger of the arm's replay of this trial is on disk: the replay ran without `--ledgers`
   * (its figures came from summary.json and decisions.parquet), so there are no records to overlay.
   */
  replayKept(row: Row, arm: string): boolean {
    return (this.#model.replayParts.get(row.id)?.get(arm) ?? []).some((p) => existsSync(p.tail.path));
  }

  /** The text a row is found by in search: its ledger's tools, cases, reasons and obligations. */
  searchText(row: Row): string {
    if (row.source === "ingest") return this.#ingest.fold(row.name)?.searchText() ?? "";
    return (this.#model.parts.get(row.id) ?? []).map((p) =>
      p.session === null
        ? [...p.tail.sessions.values()].map((f) => f.searchText()).join(" ")
        : p.tail.sessions.get(p.session)?.searchText() ?? ""
    ).join(" ");
  }

  /**
   * Rows being written: no result yet and a ledger written within the live window, newest first (a finished
   * trial's ledger copied a moment ago is recent on disk, not live).
   */
  live(now = Date.now()): Row[] {
    const window = this.liveWindowMs();
    return this.#model.rows.filter((r) =>
      r.guarded && r.outcome === "running" && r.updated > 0 && now - r.updated <= window
    ).sort((a, b) => b.updated - a.updated);
  }

  /**
   * The latest enforced decisions (deny, stop block, release) in ledgers written within the live window, of
   * trials being written or finished within it, newest first.
   */
  latestBlocks(now = Date.now(), limit = 20): (BlockEvent & { row: Row | undefined })[] {
    const window = this.liveWindowMs();
    const bySession = new Map<string, Row>();
    for (const r of this.#model.rows) for (const s of [...r.sessions, r.name]) bySession.set(s, r);
    const events: BlockEvent[] = [];
    for (const tail of this.#files.tails.values()) {
      if (tail.replay || now - tail.mtime > window) continue;
      for (const fold of tail.sessions.values()) events.push(...fold.blocks());
    }
    for (const [session, fold] of this.#ingest.folds()) {
      if (now - this.#ingest.time(session) <= window) events.push(...fold.blocks());
    }
    // A block is live while its trial is being written or finished within the window, not when its ledger
    // merely reached the disk lately (a copy of last month's logs).
    const recent = (r: Row | undefined) =>
      !r || r.outcome === "running" || (r.finished !== null && now - r.finished <= window);
    return events.map((e) => ({ ...e, row: bySession.get(e.session) })).filter((e) => recent(e.row))
      .sort((a, b) => (a.t < b.t ? 1 : a.t > b.t ? -1 : 0)).slice(0, limit);
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

  /**
   * A trial's transcript with a replay overlay: what the Trial and Compare pages show. A ledger too big to
   * merge is left out (the Trial page says so); without a trajectory either, its first page stands in.
   */
  transcript(row: Row, overlay: string | null, trajectory = this.trajectory(row)): Item[] {
    const small = this.small(row);
    if (!small && !trajectory) return ledgerTranscript(this.ledgerPage(row, 0).map((n) => n.record));
    return buildTranscript({
      trajectory,
      calls: trajectory ? toolEvents(trajectory).calls : [],
      records: small ? this.records(row) : [],
      overlay: overlay ? this.replayRecords(row, overlay) : [],
    });
  }

  /** The other trials of a row's task (other attempts, other arms). */
  peers(row: Row): Row[] {
    return this.#model.rows.filter((r) => r.task === row.task && r.id !== row.id && r.source === "trial");
  }
}
