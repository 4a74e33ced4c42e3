/**
 * The columnar summary beside replay's and aggregate's outputs: `trials.parquet` (one row per trial, from
 * result.json and the scorecard) and `decisions.parquet` (one row per guard ledger record, without its raw
 * payloads), written and queried with DuckDB. The JSONL ledgers stay the append-only source of truth: the
 * summary is derived from them and can be rebuilt at any time.
 *
 * DuckDB is a native module: it is imported dynamically, only here, and never from the guard path. Where it
 * cannot load (another platform, `FIABLE_NO_DUCKDB=1`), writing returns `{ skipped: why }` and callers carry
 * on with their JSONL/JSON outputs.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import process from "node:process";
import { readScorecard, type TrialRef, type TrialSummary } from "./trials.ts";

/** File names of the summary inside an output dir. */
export const TRIALS_FILE = "trials.parquet";
export const DECISIONS_FILE = "decisions.parquet";
/** A replay's verdicts: one row per trial and replayed arm (lib/trajectories/verdict.ts). */
export const VERDICTS_FILE = "verdicts.parquet";

/** One row of trials.parquet. */
export interface TrialColumns {
  /** The packet folder's name (see packetName). */
  packet: string;
  trial: string;
  task: string;
  /** The arm the trial ran in (aggregate's arm name; null in a replay, which replays every trial per arm). */
  arm: string | null;
  domain: string;
  model: string | null;
  reward: number | null;
  passed: boolean | null;
  /** The harness's own agent_result.cost_usd. */
  cost_usd: number | null;
  /** Cost under `recipe` (aggregate's; null in a replay, which prices nothing). */
  cost: number | null;
  recipe: string | null;
  input_tokens: number | null;
  cache_tokens: number | null;
  output_tokens: number | null;
  tool_calls: number | null;
  failed_checks: string[];
  /** Epoch seconds, from result.json. */
  started: number | null;
  finished: number | null;
  /** The trial folder. */
  dir: string;
}

/** Verifier checks that failed in a trial's scorecard (none when it is missing or unreadable). */
export function failedChecksOf(ref: TrialRef): string[] {
  if (!ref.scorecard) return [];
  try {
    return readScorecard(ref.scorecard).checks.filter((c) => c.passed === false).map((c) => c.id);
  } catch {
    return [];
  }
}

/** A trials.parquet row from a trial's summary; what the caller knows beyond it comes in `extra`. */
export function trialColumns(
  summary: TrialSummary,
  extra: {
    packet: string;
    arm: string | null;
    failedChecks?: string[];
    toolCalls?: number | null;
    cost?: number | null;
    recipe?: string | null;
  },
): TrialColumns {
  const ref = summary.ref;
  return {
    packet: extra.packet,
    trial: ref.name,
    task: summary.task,
    arm: extra.arm,
    domain: summary.domain,
    model: summary.model,
    reward: summary.reward,
    passed: summary.passed,
    cost_usd: summary.costUsd,
    cost: extra.cost ?? null,
    recipe: extra.cost == null ? null : extra.recipe ?? null,
    input_tokens: summary.tokens.input,
    cache_tokens: summary.tokens.cache,
    output_tokens: summary.tokens.output,
    tool_calls: extra.toolCalls ?? null,
    failed_checks: extra.failedChecks ?? failedChecksOf(ref),
    started: summary.trial.start,
    finished: summary.trial.end,
    dir: ref.dir,
  };
}

/** A ledger to summarise, with the trial it belongs to. */
export interface LedgerSource {
  path: string;
  packet: string;
  trial: string;
  /** The arm to record when a record names none. */
  arm: string | null;
  /**
   * The `ledger` column when it is not `path`: a replay without `--ledgers` summarises records it does not
   * keep, and names where `--ledgers` would have kept them (relative to the summary's folder).
   */
  name?: string;
}

/** The SQL types of trials.parquet, in column order (docs/parquet.md documents them). */
export const TRIAL_COLUMNS: Record<keyof TrialColumns, string> = {
  packet: "VARCHAR",
  trial: "VARCHAR",
  task: "VARCHAR",
  arm: "VARCHAR",
  domain: "VARCHAR",
  model: "VARCHAR",
  reward: "DOUBLE",
  passed: "BOOLEAN",
  cost_usd: "DOUBLE",
  cost: "DOUBLE",
  recipe: "VARCHAR",
  input_tokens: "BIGINT",
  cache_tokens: "BIGINT",
  output_tokens: "BIGINT",
  tool_calls: "INTEGER",
  failed_checks: "VARCHAR[]",
  started: "DOUBLE",
  finished: "DOUBLE",
  dir: "VARCHAR",
};

/** One row of verdicts.parquet: what one replayed arm would have done in one trial, as replay counts it. */
export interface VerdictColumns {
  packet: string;
  trial: string;
  arm: string;
  passed: boolean;
  /** False when the agent reached the simulator outside MCP: the row counts in no figure. */
  observable: boolean;
  blocked: boolean | null;
  /** Time-aware: `strict`, `upper` or null. */
  rescue: string | null;
  rescue_ignoring_time: string | null;
  /** Each rule, judge or `closure gate` that fired: a check it protects failed, and whether it came in time. */
  fires: { id: string; protected: boolean; timing: string | null }[];
}

/** The SQL types of verdicts.parquet, in column order (docs/parquet.md documents them). */
export const VERDICT_COLUMNS: Record<keyof VerdictColumns, string> = {
  packet: "VARCHAR",
  trial: "VARCHAR",
  arm: "VARCHAR",
  passed: "BOOLEAN",
  observable: "BOOLEAN",
  blocked: "BOOLEAN",
  rescue: "VARCHAR",
  rescue_ignoring_time: "VARCHAR",
  fires: "STRUCT(id VARCHAR, protected BOOLEAN, timing VARCHAR)[]",
};

/** The ledger fields read (everything else in a record, raw payloads included, is skipped). */
const LEDGER_COLUMNS: Record<string, string> = {
  t: "VARCHAR",
  session: "VARCHAR",
  arm: "VARCHAR",
  event: "VARCHAR",
  decision: "VARCHAR",
  tool: "VARCHAR",
  rules: "STRUCT(id VARCHAR, checks VARCHAR[])[]",
  obligations: "VARCHAR[]",
  step: "INTEGER",
  replay: "BOOLEAN",
};

/** A ledger record cut to the fields decisions.parquet reads (what a replay without `--ledgers` writes). */
export function decisionFields(record: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(LEDGER_COLUMNS)) {
    const value = (record as Record<string, unknown>)[key];
    if (value === undefined) continue;
    out[key] = key === "rules" && Array.isArray(value)
      ? value.map((r: { id?: unknown; checks?: unknown }) => ({ id: r?.id, checks: r?.checks }))
      : value;
  }
  return out;
}

/** The columns of decisions.parquet: SQL over one ledger record `r` and its source `l`. */
const DECISION_SELECT = `
  l.packet AS packet, l.trial AS trial, r.session AS session, coalesce(r.arm, l.arm) AS arm,
  r.event AS event, r.decision AS decision, r.tool AS tool,
  list_filter(list_transform(coalesce(r.rules, []), x -> x.id), x -> x IS NOT NULL) AS rules,
  list_sort(list_distinct(flatten(list_transform(coalesce(r.rules, []), x -> coalesce(x.checks, []))))) AS checks,
  coalesce(r.obligations, []) AS obligations, r.step AS step, try_cast(r.t AS TIMESTAMPTZ) AS ts,
  coalesce(r.replay, false) AS replay, l.ledger AS ledger,
  row_number() OVER (PARTITION BY l.path ORDER BY r.seq) - 1 AS record`;

/** The subset of @duckdb/node-api this module uses. */
export interface DuckModule {
  DuckDBInstance: {
    create(path?: string, options?: Record<string, string>): Promise<DuckInstance>;
  };
}
interface DuckInstance {
  connect(): Promise<DuckConnection>;
  closeSync(): void;
}
/** A DuckDB connection (the part of it used here). */
export interface DuckConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
  closeSync(): void;
}

/** Loads DuckDB; tests inject another to simulate a platform without it. */
export type DuckLoader = () => Promise<DuckModule>;

/** The env flag that makes DuckDB count as unavailable (to try the fallback). */
export const NO_DUCKDB_ENV = "FIABLE_NO_DUCKDB";

/**
 * DuckDB's package, imported by a computed name: `deno run` fetches every literal `import()` target's npm
 * package before any code runs, so a literal would make every program that could write a summary fetch the
 * native module (≈ 140 MB), used or not — the demo, which never does, among them.
 */
const DUCKDB_PACKAGE = "@duckdb/node-api";

/** The default loader: a dynamic import, so nothing pulls the native module in unless a summary is used. */
export const loadDuckDB: DuckLoader = async () => {
  if (process.env[NO_DUCKDB_ENV]) throw new Error(`${NO_DUCKDB_ENV} is set`);
  return await import(DUCKDB_PACKAGE) as unknown as DuckModule;
};

/** A DuckDB connection in memory, or why there is none (one line). */
export async function connect(load: DuckLoader = loadDuckDB): Promise<DuckSession | { why: string }> {
  try {
    const duck = await load();
    const db = await duck.DuckDBInstance.create(":memory:", { threads: "2" });
    const conn = await db.connect();
    return new DuckSession(db, conn);
  } catch (err) {
    const message = String((err as Error)?.message ?? err).split("\n")[0].slice(0, 300);
    return { why: `DuckDB cannot load here (${message})` };
  }
}

/** An open DuckDB connection; `close()` when done. */
export class DuckSession {
  constructor(private db: DuckInstance, readonly conn: DuckConnection) {}

  /** Runs a query and returns its rows as plain JS values (BIGINT as bigint). */
  async all<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    return (await this.conn.runAndReadAll(sql)).getRowObjectsJS() as T[];
  }

  close(): void {
    try {
      this.conn.closeSync();
      this.db.closeSync();
    } catch {
      // already closed
    }
  }
}

/** A SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function columnsSpec(columns: Record<string, string>): string {
  return `{${Object.entries(columns).map(([k, v]) => `${sqlString(k)}: ${sqlString(v)}`).join(", ")}}`;
}

/** Copies newline-delimited JSON rows into a Parquet file with the given columns. */
async function copyRows(duck: DuckSession, json: string, columns: Record<string, string>, out: string) {
  await duck.conn.run(
    `COPY (SELECT ${Object.keys(columns).join(", ")} FROM read_json(${sqlString(json)}, ` +
      `format = 'newline_delimited', columns = ${columnsSpec(columns)})) ` +
      `TO ${sqlString(out)} (FORMAT parquet, COMPRESSION zstd)`,
  );
}

/** What writing the summary did: the files and row counts, or why it was skipped. */
export type ColumnarOutcome =
  | { files: string[]; trials: number; decisions: number; ms: number }
  | { skipped: string };

/** The one line a command prints about the summary. */
export function columnarLine(outcome: ColumnarOutcome): string {
  return "skipped" in outcome
    ? `Parquet summary skipped: ${outcome.skipped}; the JSONL and JSON outputs are complete.`
    : `Parquet summary: ${
      outcome.files.join(", ")
    } (${outcome.trials} trials, ${outcome.decisions} decisions)`;
}

/**
 * Writes `trials.parquet` and `decisions.parquet` into `dir`: the trials as given, and one row per record of
 * the ledgers (read by DuckDB straight from the JSONL, corrupt lines skipped); with `verdicts` (a replay),
 * `verdicts.parquet` too. Each file is written beside and renamed into place, so a reader never sees half a
 * file. Never throws: a failure is `{ skipped }`.
 */
export async function writeColumnar(
  dir: string,
  trials: readonly TrialColumns[],
  ledgers: readonly LedgerSource[],
  opts: { load?: DuckLoader; verdicts?: readonly VerdictColumns[] } = {},
): Promise<ColumnarOutcome> {
  const t0 = performance.now();
  const duck = await connect(opts.load);
  if ("why" in duck) return { skipped: duck.why };
  mkdirSync(dir, { recursive: true });
  const scratch = join(dir, `.columnar-${process.pid}`);
  try {
    mkdirSync(scratch, { recursive: true });
    const trialsJson = join(scratch, "trials.ndjson");
    writeFileSync(trialsJson, trials.map((t) => JSON.stringify(t)).join("\n") + "\n");
    const trialsOut = join(scratch, TRIALS_FILE);
    await copyRows(duck, trialsJson, TRIAL_COLUMNS, trialsOut);
    let verdictsOut: string | null = null;
    if (opts.verdicts) {
      const verdictsJson = join(scratch, "verdicts.ndjson");
      writeFileSync(verdictsJson, opts.verdicts.map((v) => JSON.stringify(v)).join("\n") + "\n");
      verdictsOut = join(scratch, VERDICTS_FILE);
      await copyRows(duck, verdictsJson, VERDICT_COLUMNS, verdictsOut);
    }
    const base = resolve(dir);
    const sources = ledgers.map((l) => {
      const full = resolve(l.path);
      const ledger = l.name ?? (full.startsWith(base + sep) ? relative(base, full) : full);
      return { path: full, packet: l.packet, trial: l.trial, arm: l.arm, ledger };
    });
    const ledgersJson = join(scratch, "ledgers.ndjson");
    writeFileSync(ledgersJson, sources.map((s) => JSON.stringify(s)).join("\n") + "\n");
    const sourceSql = `read_json(${sqlString(ledgersJson)}, format = 'newline_delimited', columns = ` +
      `${
        columnsSpec({
          path: "VARCHAR",
          packet: "VARCHAR",
          trial: "VARCHAR",
          arm: "VARCHAR",
          ledger: "VARCHAR",
        })
      })`;
    const records = sources.length
      ? `(SELECT *, row_number() OVER () AS seq FROM read_json([${
        sources.map((s) => sqlString(s.path)).join(", ")
      }], format = 'newline_delimited', ` +
        `columns = ${columnsSpec(LEDGER_COLUMNS)}, filename = true, ignore_errors = true, ` +
        `maximum_object_size = 67108864))`
      : `(SELECT ${
        Object.entries(LEDGER_COLUMNS).map(([k, v]) => `NULL::${v} AS ${k}`).join(", ")
      }, NULL::VARCHAR AS filename, 0 AS seq WHERE false)`;
    const decisionsOut = join(scratch, DECISIONS_FILE);
    await duck.conn.run(
      `COPY (SELECT ${DECISION_SELECT} FROM ${records} r JOIN ${sourceSql} l ON r.filename = l.path ` +
        `WHERE r.event IS NOT NULL ORDER BY r.seq) ` +
        `TO ${sqlString(decisionsOut)} (FORMAT parquet, COMPRESSION zstd)`,
    );
    const [counts] = await duck.all<{ trials: bigint; decisions: bigint }>(
      `SELECT (SELECT count(*) FROM read_parquet(${sqlString(trialsOut)})) AS trials, ` +
        `(SELECT count(*) FROM read_parquet(${sqlString(decisionsOut)})) AS decisions`,
    );
    const files = [join(dir, TRIALS_FILE), join(dir, DECISIONS_FILE)];
    renameSync(trialsOut, files[0]);
    renameSync(decisionsOut, files[1]);
    if (verdictsOut) {
      files.push(join(dir, VERDICTS_FILE));
      renameSync(verdictsOut, files[2]);
    } else {
      rmSync(join(dir, VERDICTS_FILE), { force: true });
    }
    return {
      files,
      trials: Number(counts.trials),
      decisions: Number(counts.decisions),
      ms: performance.now() - t0,
    };
  } catch (err) {
    return { skipped: `DuckDB could not write it (${String((err as Error).message).split("\n")[0]})` };
  } finally {
    duck.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
