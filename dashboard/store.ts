/**
 * The dashboard's read model: trial dirs (result, scorecard, trajectory), ledgers — live ones that grow,
 * tailed from the last byte read — replay ledgers, and records posted to `/ingest`. Rows are keyed by an
 * opaque hash id, so a URL can only name a row the store found under its configured roots, never a path.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { type LedgerRecord, parseLedger } from "../lib/ledger.ts";
import { findTrials, readScorecard, readTrial, type TrialRef } from "../lib/trials.ts";
import { countToolCalls, readTrajectory, type Trajectory } from "../lib/atif.ts";
import {
  type Estimate,
  maxAttempts,
  pairedBootstrap,
  type PairedDiff,
  passAt1,
  passHatKMean,
  type TaskOutcome,
} from "../lib/stats.ts";

/** Where the dashboard reads from. */
export interface Sources {
  /** Trial trees and ledger dirs (`--logs`). */
  logs: string[];
  /** Aggregate and replay results (`--results`). */
  results: string[];
  /** Seconds since its last write for a ledger to count as live. */
  liveWindow?: number;
}

/** Where a row's guard data came from. */
export type RowSource = "trial" | "live" | "replay" | "ingest";
/** A row's outcome; `running` while a ledger has no verified trial behind it. */
export type Outcome = "passed" | "failed" | "unscored" | "running";

/** One trial as the dashboard lists it: a trial dir, a ledger, or both. */
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
  cost: number | null;
  toolCalls: number | null;
  blocks: number;
  shadows: number;
  releases: number;
  errors: number;
  rules: string[];
  failedChecks: string[];
  trialDir: string | null;
  trajectory: string | null;
  scorecard: string | null;
  ledger: string | null;
  session: string | null;
  /** Epoch ms of the last ledger write (0 without a ledger). */
  updated: number;
}

/** Ledger counts folded from records. */
export interface LedgerStats {
  toolCalls: number;
  blocks: number;
  shadows: number;
  releases: number;
  errors: number;
  rules: string[];
  seat: string | null;
  arm: string | null;
  session: string | null;
}

/** The closure gate's pseudo rule ID in rule statistics. */
export const GATE = "STOP-GATE";

/** An incremental fold of ledger records into counts and search text, so no record stays in memory. */
export class StatsFold {
  private rules = new Set<string>();
  private text = new Set<string>();
  private textSize = 0;
  private pre = 0;
  private post = 0;
  private blocks = 0;
  private shadows = 0;
  private releases = 0;
  private errors = 0;
  private seat: string | null = null;
  private arm: string | null = null;
  private session: string | null = null;

  /** Folds one record in. */
  add(r: LedgerRecord): void {
    this.arm ??= typeof r.arm === "string" ? r.arm : null;
    this.session ??= typeof r.session === "string" ? r.session : null;
    if (typeof r.seat === "string") this.seat = r.seat;
    if (r.event === "pre") this.pre++;
    if (r.event === "post" || r.event === "post-fail") this.post++;
    if (r.decision === "deny" || r.decision === "block") this.blocks++;
    if (r.decision === "shadow") this.shadows++;
    if (r.decision === "release") this.releases++;
    if (r.decision === "error") this.errors++;
    const hits = Array.isArray(r.rules) ? r.rules : [];
    if (
      r.decision === "deny" || r.decision === "shadow" || r.decision === "release" || r.decision === "block"
    ) {
      for (const h of hits) if (h && typeof h.id === "string") this.rules.add(h.id);
      if (r.event === "stop" && r.decision !== "release") this.rules.add(GATE);
    }
    for (
      const piece of [
        r.tool,
        r.case,
        r.reason,
        ...(r.obligations ?? []),
        ...hits.map((h) => h?.message),
      ]
    ) {
      if (typeof piece !== "string" || !piece || this.textSize > 4000 || this.text.has(piece)) continue;
      this.text.add(piece.slice(0, 500));
      this.textSize += Math.min(piece.length, 500);
    }
  }

  /** The counts so far. */
  stats(): LedgerStats {
    return {
      toolCalls: this.pre || this.post,
      blocks: this.blocks,
      shadows: this.shadows,
      releases: this.releases,
      errors: this.errors,
      rules: [...this.rules].sort(),
      seat: this.seat,
      arm: this.arm,
      session: this.session,
    };
  }

  /** Tools, cases, block reasons and obligations seen, for search (capped). */
  searchText(): string {
    return [...this.text].join(" ");
  }
}

/** Counts blocks, shadows, releases, errors and the rules that fired in a ledger. */
export function ledgerStats(records: readonly LedgerRecord[]): LedgerStats {
  const fold = new StatsFold();
  for (const r of records) fold.add(r);
  return fold.stats();
}

/**
 * A ledger file read incrementally: each refresh reads only the bytes appended since the last one and folds
 * them into counts. Records are not kept (600 replay ledgers would not fit the memory budget); `records()`
 * reads the file when a timeline needs it.
 */
export class LedgerTail {
  fold = new StatsFold();
  count = 0;
  corrupt = 0;
  mtime = 0;
  private offset = 0;
  private rest = "";

  constructor(readonly path: string) {}

  /** Reads what was appended; true when new records arrived. A file that shrank is read again from the start. */
  refresh(): boolean {
    let st;
    try {
      st = statSync(this.path);
    } catch {
      return false;
    }
    if (st.size < this.offset) {
      this.fold = new StatsFold();
      this.count = 0;
      this.corrupt = 0;
      this.offset = 0;
      this.rest = "";
    }
    this.mtime = st.mtimeMs;
    if (st.size === this.offset) return false;
    const fd = openSync(this.path, "r");
    try {
      const buf = new Uint8Array(st.size - this.offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, this.offset + got);
        if (n <= 0) break;
        got += n;
      }
      this.offset += got;
      const text = this.rest + new TextDecoder().decode(buf.subarray(0, got));
      const cut = text.lastIndexOf("\n");
      this.rest = cut < 0 ? text : text.slice(cut + 1);
      const parsed = parseLedger(cut < 0 ? "" : text.slice(0, cut));
      for (const r of parsed.records) this.fold.add(r);
      this.count += parsed.records.length;
      this.corrupt += parsed.corrupt;
      return parsed.records.length > 0;
    } finally {
      closeSync(fd);
    }
  }

  /** Every complete record in the file up to the last byte folded. */
  records(): LedgerRecord[] {
    if (!this.offset) return [];
    const fd = openSync(this.path, "r");
    try {
      const buf = new Uint8Array(this.offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, got);
        if (n <= 0) break;
        got += n;
      }
      const text = new TextDecoder().decode(buf.subarray(0, got));
      const cut = text.lastIndexOf("\n");
      return parseLedger(cut < 0 ? "" : text.slice(0, cut)).records;
    } finally {
      closeSync(fd);
    }
  }
}

/** FNV-1a of a string as 10 hex digits: a row's opaque URL id. */
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

function walkJsonl(dir: string, out: string[], depth = 0): void {
  if (depth > 8) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    if (name.endsWith(".jsonl")) out.push(path);
    else if (!name.includes(".")) {
      try {
        if (statSync(path).isDirectory()) walkJsonl(path, out, depth + 1);
      } catch {
        // vanished while walking
      }
    }
  }
}

interface TrialInfo {
  ref: TrialRef;
  arm: string;
  outcome: Outcome;
  reward: number | null;
  cost: number | null;
  failedChecks: string[];
  toolCalls: number | null;
  session: string | null;
}

/** The store: call `refresh()` (throttled) before reading `rows()`. */
export class Store {
  private trials = new Map<string, TrialInfo>();
  private tails = new Map<string, LedgerTail>();
  private ingested = new Map<string, LedgerRecord[]>();
  private ingestTimes = new Map<string, number>();
  private byId = new Map<string, Row>();
  private list: Row[] = [];
  private lastScan = 0;
  private lastTail = 0;
  private dirty = true;
  /** Bumped on every rebuild, so derived indexes know when to rebuild. */
  version = 0;

  constructor(readonly sources: Sources) {}

  /** Rescans roots at most every `scanMs`, re-reads grown ledgers at most every `tailMs`. */
  refresh(opts: { scanMs?: number; tailMs?: number; now?: number } = {}): void {
    const now = opts.now ?? Date.now();
    if (now - this.lastScan >= (opts.scanMs ?? 3000)) {
      this.scan();
      this.lastScan = now;
      this.lastTail = 0;
    }
    if (now - this.lastTail >= (opts.tailMs ?? 200)) {
      for (const tail of this.tails.values()) if (tail.refresh()) this.dirty = true;
      this.lastTail = now;
    }
    if (this.dirty) this.build();
  }

  private scan(): void {
    const refs = findTrials(this.sources.logs);
    for (const ref of refs) {
      const known = this.trials.get(ref.dir);
      if (known && known.outcome !== "running") continue;
      const root = this.sources.logs.find((r) =>
        ref.dir === r || ref.dir.startsWith(r.endsWith(sep) ? r : r + sep)
      ) ??
        dirname(ref.dir);
      this.trials.set(ref.dir, this.readTrialInfo(ref, armOfPath(root, ref.dir)));
      for (const l of ref.ledgers) if (!this.tails.has(l)) this.tails.set(l, new LedgerTail(l));
      this.dirty = true;
    }
    const jsonl: string[] = [];
    for (const root of [...this.sources.results, ...this.sources.logs]) walkJsonl(root, jsonl);
    for (const path of jsonl) {
      if (!this.tails.has(path)) {
        this.tails.set(path, new LedgerTail(path));
        this.dirty = true;
      }
    }
  }

  private readTrialInfo(ref: TrialRef, arm: string): TrialInfo {
    const s = readTrial(ref);
    let failedChecks: string[] = [];
    if (ref.scorecard) {
      try {
        failedChecks = readScorecard(ref.scorecard).checks.filter((c) => c.passed === false).map((c) => c.id);
      } catch {
        failedChecks = [];
      }
    }
    let toolCalls: number | null = null;
    let session: string | null = null;
    if (ref.trajectory && ref.trajectory.endsWith(".json")) {
      try {
        const t = readTrajectory(ref.trajectory);
        toolCalls = countToolCalls(t).all;
        session = t.sessionId || null;
      } catch {
        // unreadable trajectory: shown as unknown
      }
    }
    const outcome: Outcome = !s.readable
      ? "running"
      : s.passed === null
      ? "unscored"
      : s.passed
      ? "passed"
      : "failed";
    return { ref, arm, outcome, reward: s.reward, cost: s.costUsd, failedChecks, toolCalls, session };
  }

  /** Fills tool-call counts from compressed trajectories, a few per call, so startup stays quick. */
  fillToolCalls(budget = 20): number {
    let done = 0;
    for (const info of this.trials.values()) {
      if (done >= budget) break;
      if (info.toolCalls !== null || !info.ref.trajectory) continue;
      try {
        const t = readTrajectory(info.ref.trajectory);
        info.toolCalls = countToolCalls(t).all;
        info.session = t.sessionId || null;
      } catch {
        info.toolCalls = -1;
      }
      done++;
      this.dirty = true;
    }
    return done;
  }

  /** Appends one posted record to its session's in-memory live ledger. */
  ingest(record: LedgerRecord, now = Date.now()): void {
    const session = String(record.session);
    let list = this.ingested.get(session);
    if (!list) {
      if (this.ingested.size >= 2000) {
        const oldest = [...this.ingestTimes.entries()].sort((a, b) => a[1] - b[1])[0]?.[0];
        if (oldest) {
          this.ingested.delete(oldest);
          this.ingestTimes.delete(oldest);
        }
      }
      list = [];
      this.ingested.set(session, list);
    }
    if (list.length < 50_000) list.push(record);
    this.ingestTimes.set(session, now);
    this.dirty = true;
  }

  private build(): void {
    const rows: Row[] = [];
    const byName = new Map<string, TrialInfo>();
    const bySession = new Map<string, TrialInfo>();
    const owned = new Set<string>();
    for (const info of this.trials.values()) {
      byName.set(info.ref.name, info);
      if (info.session) bySession.set(info.session, info);
      for (const l of info.ref.ledgers) owned.add(l);
    }
    const trialRow = (info: TrialInfo, extra: Partial<Row> = {}): Row => ({
      id: "",
      arm: info.arm,
      source: "trial",
      name: info.ref.name,
      task: info.ref.task,
      domain: info.ref.domain,
      seat: null,
      outcome: info.outcome,
      reward: info.reward,
      cost: info.cost,
      toolCalls: info.toolCalls !== null && info.toolCalls >= 0 ? info.toolCalls : null,
      blocks: 0,
      shadows: 0,
      releases: 0,
      errors: 0,
      rules: [],
      failedChecks: info.failedChecks,
      trialDir: info.ref.dir,
      trajectory: info.ref.trajectory,
      scorecard: info.ref.scorecard,
      ledger: null,
      session: info.session,
      updated: 0,
      ...extra,
    });
    const fromLedger = (stats: LedgerStats) => ({
      seat: stats.seat,
      toolCalls: stats.toolCalls,
      blocks: stats.blocks,
      shadows: stats.shadows,
      releases: stats.releases,
      errors: stats.errors,
      rules: stats.rules,
    });
    for (const info of this.trials.values()) {
      const own = info.ref.ledgers.map((l) => this.tails.get(l)).filter((t): t is LedgerTail => !!t);
      if (!own.length) {
        rows.push({ ...trialRow(info), id: rowId(`trial:${info.ref.dir}`) });
        continue;
      }
      for (const tail of own) {
        const stats = tail.fold.stats();
        rows.push({
          ...trialRow(info, fromLedger(stats)),
          id: rowId(`live:${tail.path}`),
          arm: stats.arm ?? info.arm,
          source: "live",
          ledger: tail.path,
          session: stats.session ?? info.session,
          updated: tail.mtime,
        });
      }
    }
    for (const tail of this.tails.values()) {
      if (owned.has(tail.path)) continue;
      const stats = tail.fold.stats();
      const stem = basename(tail.path, ".jsonl");
      const info = byName.get(stem) ??
        (stats.session ? bySession.get(stats.session) ?? byName.get(stats.session) : undefined);
      const arm = stats.arm ?? basename(dirname(tail.path));
      const inResults = this.sources.results.some((r) => tail.path.startsWith(r));
      const source: RowSource = inResults ? "replay" : "live";
      const base = info ? trialRow(info) : {
        ...trialRow({
          ref: {
            dir: "",
            name: stem,
            domain: stats.seat === "cm"
              ? "cm"
              : stats.seat === "payer"
              ? "pa_um"
              : stats.seat === "provider"
              ? "pa_provider"
              : "unknown",
            task: stem,
            result: "",
            scorecard: null,
            reward: null,
            trajectory: null,
            ledgers: [],
          },
          arm,
          outcome: "running",
          reward: null,
          cost: null,
          failedChecks: [],
          toolCalls: null,
          session: stats.session,
        }),
        trialDir: null,
      };
      rows.push({
        ...base,
        ...fromLedger(stats),
        id: rowId(`ledger:${tail.path}`),
        arm: source === "replay" ? `${arm} (replay)` : arm,
        source,
        ledger: tail.path,
        session: stats.session,
        updated: tail.mtime,
      });
    }
    for (const [session, records] of this.ingested) {
      const stats = ledgerStats(records);
      const info = bySession.get(session) ?? byName.get(session);
      const base = info ? trialRow(info) : {
        ...trialRow({
          ref: {
            dir: "",
            name: session,
            domain: "unknown",
            task: session,
            result: "",
            scorecard: null,
            reward: null,
            trajectory: null,
            ledgers: [],
          },
          arm: stats.arm ?? "live",
          outcome: "running",
          reward: null,
          cost: null,
          failedChecks: [],
          toolCalls: null,
          session,
        }),
        trialDir: null,
      };
      rows.push({
        ...base,
        ...fromLedger(stats),
        id: rowId(`ingest:${session}`),
        arm: stats.arm ?? base.arm,
        source: "ingest",
        ledger: null,
        session,
        updated: this.ingestTimes.get(session) ?? 0,
      });
    }
    rows.sort((a, b) =>
      a.arm.localeCompare(b.arm) || a.domain.localeCompare(b.domain) || a.name.localeCompare(b.name)
    );
    this.list = rows;
    this.byId = new Map(rows.map((r) => [r.id, r]));
    this.dirty = false;
    this.version++;
  }

  /** Every row, sorted by arm, domain and name. */
  rows(): readonly Row[] {
    return this.list;
  }

  /** The row for an id, or undefined: ids are opaque hashes, never paths. */
  row(id: string): Row | undefined {
    return this.byId.get(id);
  }

  /** The ledger records of a row (tailed file or ingested session). */
  records(row: Row): readonly LedgerRecord[] {
    if (row.source === "ingest" && row.session) return this.ingested.get(row.session) ?? [];
    return row.ledger ? this.tails.get(row.ledger)?.records() ?? [] : [];
  }

  /** The text a row is found by in search: its ledger's tools, cases, reasons and obligations. */
  searchText(row: Row): string {
    if (row.source === "ingest" && row.session) {
      const fold = new StatsFold();
      for (const r of this.ingested.get(row.session) ?? []) fold.add(r);
      return fold.searchText();
    }
    return row.ledger ? this.tails.get(row.ledger)?.fold.searchText() ?? "" : "";
  }

  /** Rows whose ledger was written within the live window. */
  live(now = Date.now()): Row[] {
    const window = (this.sources.liveWindow ?? 600) * 1000;
    return this.list.filter((r) =>
      (r.source === "live" || r.source === "ingest") && now - r.updated <= window
    )
      .sort((a, b) => b.updated - a.updated);
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
  path: string;
  control: string | null;
  rows: Record<string, unknown>[];
  comparisons: Record<string, unknown>[];
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
          found.push({
            path,
            control: typeof data.control === "string" ? data.control : null,
            rows: data.rows as Record<string, unknown>[],
            comparisons: Array.isArray(data.comparisons) ? data.comparisons as Record<string, unknown>[] : [],
          });
        }
      } else if (depth < 3 && !name.includes(".")) walk(path, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return found;
}

/** Reads a JSON file, or null when it is missing or invalid. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** One arm's figures: pass@1 and pass^k with CIs, mean cost, tool calls and blocks, paired diff vs control. */
export interface ArmSummary {
  arm: string;
  trials: number;
  tasks: number;
  passed: number;
  pass1: Estimate;
  passK: { k: number; est: Estimate }[];
  cost: number | null;
  toolCalls: number | null;
  blocks: number;
  diff: PairedDiff | null;
  control: boolean;
}

function meanOf(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** Per-arm figures over scored trial rows (replays excluded: they replay another arm's outcomes). */
export function armSummaries(rows: readonly Row[], control?: string): ArmSummary[] {
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    if ((r.source !== "trial" && r.source !== "live") || (r.outcome !== "passed" && r.outcome !== "failed")) {
      continue;
    }
    const list = groups.get(r.arm) ?? [];
    list.push(r);
    groups.set(r.arm, list);
  }
  const outcomes = (list: Row[]): TaskOutcome[] => {
    const byTask = new Map<string, TaskOutcome>();
    for (const r of list) {
      const t = byTask.get(r.task) ?? { task: r.task, n: 0, c: 0 };
      t.n++;
      if (r.outcome === "passed") t.c++;
      byTask.set(r.task, t);
    }
    return [...byTask.values()];
  };
  const arms = [...groups.keys()].sort();
  const ctl = control && groups.has(control) ? control : groups.has("stock") ? "stock" : arms[0];
  const ctlOutcomes = ctl ? outcomes(groups.get(ctl)!) : [];
  return arms.map((arm) => {
    const list = groups.get(arm)!;
    const tasks = outcomes(list);
    const kMax = Math.min(maxAttempts(tasks), 5);
    const passK = [];
    for (let k = 2; k <= kMax; k++) passK.push({ k, est: passHatKMean(tasks, k) });
    return {
      arm,
      trials: list.length,
      tasks: tasks.length,
      passed: list.filter((r) => r.outcome === "passed").length,
      pass1: passAt1(tasks),
      passK,
      cost: meanOf(list.map((r) => r.cost)),
      toolCalls: meanOf(list.map((r) => r.toolCalls)),
      blocks: list.reduce((a, r) => a + r.blocks, 0),
      diff: arm === ctl ? null : pairedBootstrap(tasks, ctlOutcomes),
      control: arm === ctl,
    };
  });
}
