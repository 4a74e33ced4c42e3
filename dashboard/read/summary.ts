/**
 * Replay results through their Parquet summary (lib/results/columnar.ts): one GROUP BY over
 * `decisions.parquet` gives each replayed session's counts per arm, the same StatsFold folds from the JSONL,
 * so the dashboard need not read every replay ledger at start. A trial's timeline still reads its own JSONL
 * (`ledger`, relative to the summary's folder) on demand. Without DuckDB the caller falls back to the ledgers.
 */
import { join, resolve } from "node:path";
import { connect, DECISIONS_FILE, type DuckLoader, sqlString } from "../../lib/results/columnar.ts";
import { type WalkCache, walkTree } from "../../lib/walk.ts";
import { GATE, type LedgerStats } from "./ledgers.ts";

/** One replayed session of one arm, as the summary folds it. */
export interface SummaryReplay {
  session: string;
  arm: string;
  /** The packet folder's name the ledger was written under. */
  packet: string;
  /** The ledger file (absolute), read on demand for the timeline. */
  ledger: string;
  stats: LedgerStats;
}

/** Folders holding `file`: the roots themselves and up to three levels below them (not below a find). */
export function foldersWith(roots: readonly string[], file: string, cache?: WalkCache): string[] {
  return [
    ...walkTree(roots, {
      depth: 3,
      skip: (name) => name.includes(".") || name === "node_modules",
      folder: (_dir, names) => names.includes(file),
    }, cache),
  ];
}

/** Folders holding a decisions.parquet, the roots themselves and up to three levels below them. */
export function findSummaries(roots: readonly string[]): string[] {
  return foldersWith(roots, DECISIONS_FILE);
}

const ENFORCED = "('deny', 'block', 'release')";

/** The per-session fold of StatsFold (read/ledgers.ts) in SQL, over replay records only. */
function foldSql(file: string): string {
  return `
    SELECT session, arm, packet, ledger,
      count(*) AS records,
      count(*) FILTER (event = 'pre') AS pre,
      count(*) FILTER (event IN ('post', 'post-fail')) AS post,
      count(*) FILTER (decision = 'deny') AS denies,
      count(*) FILTER (decision = 'block') AS stop_blocks,
      count(*) FILTER (decision = 'shadow') AS shadows,
      count(*) FILTER (decision = 'release') AS releases,
      count(*) FILTER (decision = 'error') AS errors,
      count(*) FILTER (event = 'guard' AND decision = 'gap') AS gaps,
      count(*) FILTER (event = 'guard' AND decision = 'restart') AS restarts,
      coalesce(list_sort(list_distinct(flatten(list(rules) FILTER (decision IN ${ENFORCED})))), []) AS enforced,
      coalesce(list_sort(list_distinct(flatten(list(rules) FILTER (decision = 'shadow')))), []) AS shadowed,
      bool_or(event = 'stop' AND decision IN ${ENFORCED}) AS gate_enforced,
      bool_or(event = 'stop' AND decision = 'shadow') AS gate_shadowed,
      arg_max(obligations, record) FILTER (event = 'stop' AND (decision IN ${ENFORCED} OR decision = 'shadow'))
        AS closure,
      strftime(min(ts) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS first,
      strftime(max(ts) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS last
    FROM read_parquet(${sqlString(file)})
    WHERE replay AND session IS NOT NULL
    GROUP BY session, arm, packet, ledger`;
}

interface FoldRow {
  session: string;
  arm: string | null;
  packet: string;
  ledger: string;
  records: bigint;
  pre: bigint;
  post: bigint;
  denies: bigint;
  stop_blocks: bigint;
  shadows: bigint;
  releases: bigint;
  errors: bigint;
  gaps: bigint;
  restarts: bigint;
  enforced: string[];
  shadowed: string[];
  gate_enforced: boolean;
  gate_shadowed: boolean;
  closure: string[] | null;
  first: string | null;
  last: string | null;
}

function statsOf(r: FoldRow): LedgerStats {
  const enforced = [...new Set([...r.enforced, ...(r.gate_enforced ? [GATE] : [])])].sort();
  const shadowed = [...new Set([...r.shadowed, ...(r.gate_shadowed ? [GATE] : [])])].sort();
  const n = (v: bigint) => Number(v);
  return {
    records: n(r.records),
    toolCalls: n(r.pre) || n(r.post),
    denies: n(r.denies),
    stopBlocks: n(r.stop_blocks),
    blocks: n(r.denies) + n(r.stop_blocks),
    shadows: n(r.shadows),
    releases: n(r.releases),
    errors: n(r.errors),
    gaps: n(r.gaps),
    restarts: n(r.restarts),
    enforced,
    shadowed,
    rules: [...new Set([...enforced, ...shadowed])].sort(),
    seat: null,
    arm: r.arm,
    session: r.session,
    replay: true,
    closure: r.closure ?? [],
    first: r.first,
    last: r.last,
  };
}

/** Every replayed session in a folder's decisions.parquet, or why it cannot be read (then read the JSONL). */
export async function loadSummary(
  dir: string,
  load?: DuckLoader,
): Promise<SummaryReplay[] | { why: string }> {
  const duck = await connect(load);
  if ("why" in duck) return duck;
  try {
    const rows = await duck.all<FoldRow>(foldSql(join(dir, DECISIONS_FILE)));
    return rows.map((r) => ({
      session: r.session,
      arm: r.arm ?? "replay",
      packet: r.packet,
      ledger: resolve(dir, r.ledger),
      stats: statsOf(r),
    }));
  } catch (err) {
    return {
      why: `Cannot read ${join(dir, DECISIONS_FILE)}: ${String((err as Error).message).split("\n")[0]}`,
    };
  } finally {
    duck.close();
  }
}
