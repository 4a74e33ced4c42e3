/**
 * Full-text search over the dashboard's rows: trial and task names, arms, rules (ids and names), failed
 * checks, tools and block reasons. Names and ids are indexed whole and in their parts (`cm_afib_…__Hx7aB2c`
 * → `afib`, `hx7ab2c`; `GLOBAL-01 case-lock` → `case`, `lock`), and a query must match all its parts, so
 * people find trials by what they type. The index is updated per changed row, not rebuilt, and can be built
 * in slices (`syncSlice`) so a server keeps answering while it indexes thousands of rows.
 */
import MiniSearch from "minisearch";
import { RULES } from "../../rules/mod.ts";
import { CHECKS } from "../../rules/catalog/checks.ts";
import type { Row } from "./model.ts";

/** One search hit: the row and its score. */
export interface Hit {
  row: Row;
  score: number;
}

const WORDS = /[\s,;:()"'[\]{}<>|=]+/;
const PARTS = /[_\-./#@]+/;

/** Index terms: each word whole and its parts. */
export function indexTerms(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(WORDS)) {
    if (!word) continue;
    out.push(word);
    const parts = word.split(PARTS).filter(Boolean);
    if (parts.length > 1) out.push(...parts);
  }
  return out;
}

/** Query terms: the parts only, so `determination_present` matches inside a longer check id. */
export function queryTerms(text: string): string[] {
  return text.split(WORDS).flatMap((w) => w.split(PARTS)).filter(Boolean);
}

const RULE_NAMES = new Map(RULES.map((r) => [r.meta.id, r.meta.name]));

function ruleText(ids: readonly string[]): string {
  return ids.map((id) =>
    `${id} ${RULE_NAMES.get(id) ?? (id === "STOP-GATE" ? "closure-gate stop-gate" : "")}`
  )
    .join(" ");
}

function signature(r: Row): string {
  return [r.outcome, r.arm, r.rules.join(), r.failedChecks.length, r.updated, r.replays.length].join("|");
}

function matchesAll(terms: string[], hay: string[]): boolean {
  return terms.length > 0 && terms.every((t) => hay.some((h) => h.startsWith(t)));
}

/** A rule whose id or name matches the query. */
export interface RuleMatch {
  id: string;
  name: string;
}

/** Rules whose id or name has every query part as a prefix of one of its parts. */
export function matchRules(query: string, limit = 5): RuleMatch[] {
  const terms = queryTerms(query.toLowerCase());
  return RULES.map((r) => r.meta).filter((m) =>
    matchesAll(terms, queryTerms(`${m.id} ${m.name}`.toLowerCase()))
  ).slice(0, limit).map((m) => ({ id: m.id, name: m.name }));
}

/** Verifier check ids (catalog and failed in these rows) matching every query part. */
export function matchChecks(query: string, rows: readonly Row[], limit = 5): string[] {
  const terms = queryTerms(query.toLowerCase());
  if (!terms.length) return [];
  const ids = new Set<string>(CHECKS.map((c) => c.id).filter((id) => !/[<>]/.test(id)));
  for (const r of rows) for (const c of r.failedChecks) ids.add(c);
  return [...ids].filter((id) => matchesAll(terms, queryTerms(id.toLowerCase()))).sort().slice(0, limit);
}

/** A MiniSearch index over rows, kept in step with the store row by row. */
export class RowSearch {
  private index = new MiniSearch({
    fields: ["name", "arm", "domain", "outcome", "rules", "checks", "text"],
    storeFields: [],
    tokenize: indexTerms,
    searchOptions: {
      tokenize: queryTerms,
      combineWith: "AND",
      boost: { name: 3, rules: 2, checks: 2 },
      prefix: true,
      // One typo forgiven in words of six letters or more; two would cost 3× the time over 4,500 rows.
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
      maxFuzzy: 1,
    },
  });
  private version = -1;
  private signatures = new Map<string, string>();
  private rows = new Map<string, Row>();
  private pending: { version: number; rows: readonly Row[]; at: number; seen: Set<string> } | null = null;

  /** Brings the index up to `version`: re-indexes changed rows, drops vanished ones. */
  sync(version: number, rows: readonly Row[], textOf: (row: Row) => string): void {
    this.syncSlice(version, rows, textOf, Infinity);
  }

  /**
   * Works towards `version` for about `ms` milliseconds, resuming where the last call stopped (a newer
   * version starts over; rows already indexed unchanged are skipped cheaply). True once the index is at it.
   */
  syncSlice(version: number, rows: readonly Row[], textOf: (row: Row) => string, ms: number): boolean {
    if (version === this.version) return true;
    if (this.pending?.version !== version) this.pending = { version, rows, at: 0, seen: new Set() };
    const job = this.pending;
    const t0 = performance.now();
    while (job.at < job.rows.length) {
      const r = job.rows[job.at++];
      job.seen.add(r.id);
      this.rows.set(r.id, r);
      const sig = signature(r);
      if (this.signatures.get(r.id) === sig) continue;
      const doc = {
        id: r.id,
        name: `${r.name} ${r.task}`,
        arm: r.arm,
        domain: r.domain,
        outcome: r.outcome,
        rules: ruleText([...new Set([...r.rules, ...r.replays.flatMap((m) => m.rules)])]),
        checks: r.failedChecks.join(" "),
        text: textOf(r),
      };
      if (this.signatures.has(r.id)) this.index.replace(doc);
      else this.index.add(doc);
      this.signatures.set(r.id, sig);
      if (performance.now() - t0 >= ms) return false;
    }
    for (const id of [...this.signatures.keys()]) {
      if (job.seen.has(id)) continue;
      this.index.discard(id);
      this.signatures.delete(id);
      this.rows.delete(id);
    }
    this.version = version;
    this.pending = null;
    return true;
  }

  /** Rows in the index now (while a slice is behind, fewer than the store holds). */
  get size(): number {
    return this.signatures.size;
  }

  /** The best `limit` rows for a query; empty for a blank query. */
  search(query: string, limit = 20): Hit[] {
    if (!query.trim()) return [];
    return this.index.search(query.slice(0, 200)).slice(0, limit)
      .map((h) => ({ row: this.rows.get(String(h.id))!, score: h.score })).filter((h) => h.row);
  }
}
