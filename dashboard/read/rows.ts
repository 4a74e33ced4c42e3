/**
 * Builds the read model (model.ts) from the sources: each trial folder with its own ledgers, the live ledger
 * sessions that name it, its posted records and its replays (ledgers, summaries, verdicts); what names no trial
 * becomes a row of its own (a live session, posted records).
 */
import { basename, dirname } from "node:path";
import type { ToolCount } from "../../lib/results/tool_counts.ts";
import { GATE, type LedgerStats, type LedgerTail } from "./ledgers.ts";
import {
  emptyModel,
  type LedgerPart,
  type Model,
  type ReplayMark,
  type Row,
  rowId,
  type RowSource,
} from "./model.ts";
import type { ReplayVerdict } from "./verdicts.ts";
import type { TrialInfo } from "./sources/trials.ts";
import type { LedgerFiles } from "./sources/ledger_files.ts";
import type { ReplaySources } from "./sources/replays.ts";
import type { IngestedLedgers } from "./sources/ingest.ts";

/** What the rows are built from. */
export interface RowSources {
  trials: Iterable<TrialInfo>;
  files: LedgerFiles;
  replays: ReplaySources;
  ingest: IngestedLedgers;
  /** Tool-call counts by trajectory path (filled by the figures worker). */
  toolCounts: ReadonlyMap<string, ToolCount>;
}

/** A replay arm's verdicts give the mark its block and rules; the ledger keeps its denies and closure. */
function withVerdict(mark: ReplayMark, v: ReplayVerdict): ReplayMark {
  const fired = v.verdict ? [...Object.keys(v.verdict.rules), ...(v.verdict.gate ? [GATE] : [])] : [];
  return { ...mark, blocked: v.verdict?.blocked ?? false, rules: fired.sort(), verdict: v };
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
    ending: stats.map((s) => s.ending).filter((e) => !!e).sort((a, b) => a!.t < b!.t ? -1 : 1).pop(),
  };
}

/** A row's guard figures, from its ledgers' merged stats. */
function guardFigures(
  m: ReturnType<typeof merged>,
): Pick<Row, "guardedCalls" | "blocks" | "shadows" | "releases" | "errors" | "gaps" | "restarts" | "rules"> {
  return {
    guardedCalls: m.toolCalls,
    blocks: m.blocks,
    shadows: m.shadows,
    releases: m.releases,
    errors: m.errors,
    gaps: m.gaps,
    restarts: m.restarts,
    rules: m.rules,
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

/** The read model from the sources as they are now. */
export function buildModel(src: RowSources): Model {
  const rows: Row[] = [];
  const bySession = new Map<string, LedgerPart[]>();
  const replays = new Map<string, Map<string, LedgerPart[]>>();
  for (const tail of src.files.tails.values()) {
    if (src.files.owner.has(tail.path)) continue;
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
  for (const { session, arm, part } of src.replays.summaryParts()) {
    const arms = replays.get(session) ?? new Map<string, LedgerPart[]>();
    arms.set(arm, [...(arms.get(arm) ?? []), part]);
    replays.set(session, arms);
  }
  const model = emptyModel();
  const usedSessions = new Set<string>();
  const usedReplays = new Set<string>();
  const verdictsOf = src.replays.verdicts();
  const statsOf = (parts: LedgerPart[]) =>
    parts.flatMap((p) =>
      p.stats
        ? [p.stats]
        : p.session === null
        ? [...p.tail.sessions.values()].map((f) => f.stats())
        : [p.tail.sessions.get(p.session)?.stats()].filter((s): s is LedgerStats => !!s)
    );
  for (const info of src.trials) {
    const own: LedgerPart[] = info.ref.ledgers.map((l) => src.files.tails.get(l)).filter((
      t,
    ): t is LedgerTail => !!t).map((tail) => ({ tail, session: null }));
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
    const ingestKeys = keys.filter((k) => src.ingest.has(k));
    for (const k of ingestKeys) {
      stats.push(src.ingest.fold(k)!.stats());
      usedSessions.add(`ingest:${k}`);
    }
    const m = merged(stats);
    const replayArms = new Map<string, LedgerPart[]>();
    for (const key of keys) {
      for (const [arm, list] of replays.get(key) ?? []) {
        // Two packets can hold a trial of the same name: keep the replay its summary.json says is this trial's.
        const mine = list.filter((p) => src.replays.ledgerOwner(p.tail.path) === info.key);
        replayArms.set(arm, [...(replayArms.get(arm) ?? []), ...(mine.length ? mine : list)]);
        usedReplays.add(key);
      }
    }
    const replayed = verdictsOf.get(info.key) ?? [];
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
    const count = info.ref.trajectory ? src.toolCounts.get(info.ref.trajectory) : undefined;
    const ingestTime = Math.max(0, ...ingestKeys.map((k) => src.ingest.time(k)));
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
      ...guardFigures(m),
      failedChecks: info.failedChecks,
      trialDir: info.ref.dir,
      exception: s.exception,
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
      touched: info.touched,
      started: s.trial.start !== null ? s.trial.start * 1000 : null,
      finished: s.trial.end !== null ? s.trial.end * 1000 : null,
      ending: m.ending?.kind ?? (info.facts && info.facts.ending !== "none" ? info.facts.ending : null),
      facts: info.facts,
    });
    model.parts.set(id, parts);
    model.replayParts.set(id, replayArms);
    model.ingestKeys.set(id, ingestKeys);
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
    ...guardFigures(stats),
    failedChecks: [],
    trialDir: null,
    exception: null,
    trajectory: null,
    scorecard: null,
    guarded: true,
    ledgerBytes: 0,
    indexing: null,
    sessions: [name],
    replays: [],
    synthetic: false,
    updated: 0,
    touched: 0,
    started: null,
    finished: null,
    ending: stats.ending?.kind ?? null,
    facts: null,
  });
  for (const [session, parts] of bySession) {
    if (usedSessions.has(session)) continue;
    const row = blank(session, merged(statsOf(parts)), "live");
    row.id = rowId(`session:${session}`);
    row.ledgerBytes = parts.reduce((a, p) => a + p.tail.size, 0);
    row.indexing = parts.some((p) => p.tail.behind) ? Math.min(...parts.map((p) => p.tail.progress)) : null;
    row.updated = Math.max(...parts.map((p) => p.tail.mtime));
    rows.push(row);
    model.parts.set(row.id, parts);
  }
  for (const [session, fold] of src.ingest.folds()) {
    if (usedSessions.has(`ingest:${session}`)) continue;
    const row = blank(session, merged([fold.stats()]), "ingest");
    row.id = rowId(`ingest:${session}`);
    row.updated = src.ingest.time(session);
    rows.push(row);
    model.parts.set(row.id, []);
  }
  model.orphanReplays = [...replays.keys()].filter((k) => !usedReplays.has(k)).sort();
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  rows.sort((a, b) => cmp(a.arm, b.arm) || cmp(a.domain, b.domain) || cmp(a.name, b.name));
  model.rows = rows;
  model.byId = new Map(rows.map((r) => [r.id, r]));
  return model;
}
