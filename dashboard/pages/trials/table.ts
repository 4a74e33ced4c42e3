/**
 * The Trials table's query: filter, sort by any column, paginate. Pure; the page renders one page of rows,
 * so a 10,000-row table costs one sort and one slice per request.
 */
import type { Row } from "../../read/model.ts";
import { checkMatches } from "../../../lib/trajectories/doom.ts";
import type { Timing } from "../../../lib/trajectories/verdict.ts";

/** Sortable columns, in table order. */
export const COLUMNS = [
  ["name", "trial"],
  ["task", "task"],
  ["arm", "arm"],
  ["domain", "domain"],
  ["outcome", "outcome"],
  ["checks", "failed checks"],
  ["cost", "cost"],
  ["calls", "tool calls"],
  ["blocks", "blocks"],
  ["rules", "rules fired"],
  ["replay", "would have blocked"],
] as const;
/** A sortable column key. */
export type Column = typeof COLUMNS[number][0];

/** Rows per page unless asked otherwise; the most a page may hold. */
export const PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

/** The Trials query as read from the URL. */
export interface TrialQuery {
  arm?: string;
  domain?: string;
  outcome?: string;
  rule?: string;
  task?: string;
  /** A failed check: its id, a prefix ending in `.` (`md.`), or a pattern with `*` (`md.sign*`). */
  check?: string;
  /** Replay's timing for the failed check (any, without `check`): a block in time, only too late, none. */
  timing?: TimingFilter;
  /** The replay arm `timing` reads (any replayed arm when absent). */
  via?: string;
  /** `yes`: a replay would have blocked it; `no`: replayed and would not have. */
  replay?: string;
  /** Where `rule` fired: `guard` (the trial's own ledger) or a replay arm; anywhere when absent. */
  by?: string;
  /** Text the trial or task name contains (case-insensitive). */
  q?: string;
  sort: Column;
  dir: "asc" | "desc";
  page: number;
  size: number;
}

const KEYS = new Set<string>(COLUMNS.map(([k]) => k));

/** Reads the query string; bad values fall back to the defaults. */
export function parseQuery(q: Record<string, string>): TrialQuery {
  const page = Number(q.page);
  const size = Number(q.size);
  const text = (k: string) => (q[k] ? String(q[k]).slice(0, 200) : undefined);
  return {
    arm: text("arm"),
    domain: text("domain"),
    outcome: text("outcome"),
    rule: text("rule"),
    task: text("task"),
    check: text("check")?.trim() || undefined,
    timing: Object.hasOwn(TIMINGS, q.timing ?? "") ? q.timing as TimingFilter : undefined,
    via: text("via"),
    replay: q.replay === "yes" || q.replay === "no" ? q.replay : undefined,
    by: text("by"),
    q: text("q"),
    sort: KEYS.has(q.sort) ? q.sort as Column : "name",
    dir: q.dir === "desc" ? "desc" : "asc",
    page: Number.isInteger(page) && page > 0 ? page : 1,
    size: Number.isInteger(size) && size > 0 ? Math.min(size, MAX_PAGE_SIZE) : PAGE_SIZE,
  };
}

/** The query as URL parameters (defaults left out), with overrides. */
export function queryString(q: TrialQuery, over: Partial<TrialQuery> = {}): string {
  const all = { ...q, ...over };
  const p = new URLSearchParams();
  for (
    const k of [
      "arm",
      "domain",
      "outcome",
      "rule",
      "task",
      "check",
      "timing",
      "via",
      "replay",
      "by",
      "q",
    ] as const
  ) {
    if (all[k]) p.set(k, all[k]!);
  }
  if (all.sort !== "name") p.set("sort", all.sort);
  if (all.dir !== "asc") p.set("dir", all.dir);
  if (all.page !== 1) p.set("page", String(all.page));
  if (all.size !== PAGE_SIZE) p.set("size", String(all.size));
  const s = p.toString();
  return s ? `?${s}` : "";
}

const OUTCOME_ORDER: Record<string, number> = { failed: 0, passed: 1, unscored: 2, running: 3 };

function value(r: Row, c: Column): string | number | null {
  switch (c) {
    case "name":
      return r.name;
    case "task":
      return r.task;
    case "arm":
      return r.arm;
    case "domain":
      return r.domain;
    case "outcome":
      return OUTCOME_ORDER[r.outcome] ?? 9;
    case "checks":
      return r.source === "trial" && r.outcome !== "running" ? r.failedChecks.length : null;
    case "cost":
      return r.cost;
    case "calls":
      return r.toolCalls;
    case "blocks":
      return r.blocks;
    case "rules":
      return r.rules.length ? r.rules.join(" ") : null;
    case "replay":
      return r.replays.length ? r.replays.filter((m) => m.blocked).length : null;
  }
}

/** The `timing` filter's values and the verdict timing each stands for. */
export const TIMINGS: Record<string, Timing | null> = {
  "in-time": "in time",
  "too-late": "too late",
  none: null,
};
/** A `timing` filter value. */
export type TimingFilter = "in-time" | "too-late" | "none";

/** True when a failed check id is what a `check` filter asks: the id, a `stage.` prefix, or a `*` pattern. */
export function checkFilter(query: string, id: string): boolean {
  return id === query || (query.endsWith(".") && id.startsWith(query)) || checkMatches(query, id);
}

/** True when a replay (of `via`, else any) had the asked timing for a failed check the query matches. */
function timed(r: Row, q: TrialQuery): boolean {
  const want = TIMINGS[q.timing!];
  return r.replays.some((m) =>
    (!q.via || m.arm === q.via) &&
    Object.entries(m.verdict?.verdict?.checks ?? {}).some(([id, t]) =>
      t === want && (!q.check || checkFilter(q.check, id))
    )
  );
}

/** True when `rule` fired in the row: in its guard's ledger (`by` "guard"), in one replay arm's, or in any. */
function firedIn(r: Row, rule: string, by?: string): boolean {
  const guard = by === undefined || by === "guard";
  return (guard && r.rules.includes(rule)) ||
    r.replays.some((m) => (!by || m.arm === by) && m.rules.includes(rule));
}

/** Rows matching every filter given. */
export function filterRows(rows: readonly Row[], q: TrialQuery): Row[] {
  const text = q.q?.toLowerCase();
  return rows.filter((r) =>
    (!q.arm || r.arm === q.arm) && (!q.domain || r.domain === q.domain) &&
    (!q.outcome || r.outcome === q.outcome) &&
    (!q.rule || firedIn(r, q.rule, q.by)) &&
    (!q.task || r.task === q.task) && (!q.check || r.failedChecks.some((c) => checkFilter(q.check!, c))) &&
    (!q.timing || timed(r, q)) &&
    (!q.replay ||
      (q.replay === "yes"
        ? r.replays.some((m) => m.blocked)
        : r.replays.length > 0 && !r.replays.some((m) => m.blocked))) &&
    (!text || r.name.toLowerCase().includes(text) || r.task.toLowerCase().includes(text))
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts a copy: unknown values (null) always last, ties by trial name. */
export function sortRows(rows: readonly Row[], sort: Column, dir: "asc" | "desc"): Row[] {
  const sign = dir === "asc" ? 1 : -1;
  const keyed = rows.map((r) => ({ r, v: value(r, sort) }));
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) {
      return a.v === b.v ? cmp(a.r.name, b.r.name) : a.v === null ? 1 : -1;
    }
    const c = typeof a.v === "number" && typeof b.v === "number" ? a.v - b.v : cmp(String(a.v), String(b.v));
    return c !== 0 ? sign * c : cmp(a.r.name, b.r.name);
  });
  return keyed.map((k) => k.r);
}

/** One page of the table. */
export interface TablePage {
  rows: Row[];
  total: number;
  page: number;
  pages: number;
  first: number;
}

/** Filters, sorts and slices out the asked page (clamped to the last one). */
export function tablePage(rows: readonly Row[], q: TrialQuery): TablePage {
  const sorted = sortRows(filterRows(rows, q), q.sort, q.dir);
  const pages = Math.max(1, Math.ceil(sorted.length / q.size));
  const page = Math.min(q.page, pages);
  const first = (page - 1) * q.size;
  return { rows: sorted.slice(first, first + q.size), total: sorted.length, page, pages, first };
}
