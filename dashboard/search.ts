/** Full-text search over the dashboard's rows: names, arms, rules, failed checks, tools and block reasons. */
import MiniSearch from "minisearch";
import type { Row } from "./store.ts";

/** One search hit: the row and its score. */
export interface Hit {
  row: Row;
  score: number;
}

/** A MiniSearch index over rows, rebuilt when the store's version changes. */
export class RowSearch {
  private index: MiniSearch | null = null;
  private version = -1;
  private rows = new Map<string, Row>();

  /** Rebuilds the index when `version` moved on. */
  sync(version: number, rows: readonly Row[], textOf: (row: Row) => string): void {
    if (version === this.version && this.index) return;
    const index = new MiniSearch({
      fields: ["name", "arm", "domain", "outcome", "rules", "checks", "text"],
      storeFields: [],
      searchOptions: { boost: { name: 3, rules: 2, checks: 2 }, prefix: true, fuzzy: 0.15 },
      tokenize: (text) => text.split(/[\s,;:()"'[\]{}]+/).filter(Boolean),
    });
    index.addAll(rows.map((r) => ({
      id: r.id,
      name: `${r.name} ${r.task}`,
      arm: r.arm,
      domain: r.domain,
      outcome: r.outcome,
      rules: r.rules.join(" "),
      checks: r.failedChecks.join(" "),
      text: textOf(r),
    })));
    this.index = index;
    this.rows = new Map(rows.map((r) => [r.id, r]));
    this.version = version;
  }

  /** The best `limit` rows for a query; empty for a blank query. */
  search(query: string, limit = 20): Hit[] {
    if (!this.index || !query.trim()) return [];
    return this.index.search(query.slice(0, 200)).slice(0, limit)
      .map((h) => ({ row: this.rows.get(String(h.id))!, score: h.score })).filter((h) => h.row);
  }
}
