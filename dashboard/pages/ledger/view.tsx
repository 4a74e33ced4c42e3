/** The Ledger page: a trial's guard ledger, one record per line, paged, filtered by decision. */
import type { FC } from "hono/jsx";
import type { Row } from "../../read/model.ts";
import type { NumberedRecord } from "../../read/ledgers.ts";
import { pct, time } from "../../ui/format.tsx";
import { GuardRecord } from "../../ui/guard.tsx";

/** The decision filter: every decision the ledger holds with its count, each a link (`<nav id="decisions">`). */
const Decisions: FC<{ row: Row; decisions: [string, number][]; decision: string | null; total: number }> = (
  { row, decisions, decision, total },
) => {
  const href = (d: string | null) =>
    `/trials/${row.id}/ledger${d ? `?decision=${encodeURIComponent(d)}` : ""}`;
  return (
    <nav id="decisions" class="pager" aria-label="decisions">
      decision: <a href={href(null)} class={decision ? "" : "active"}>all {total}</a>
      {decisions.map(([d, n]) => (
        <>
          {" · "}
          <a href={href(d)} class={decision === d ? "active" : ""} data-decision={d}>{d} {n}</a>
        </>
      ))}
    </nav>
  );
};

/** A ledger, one page at a time, all records or those of one decision: `<ol id="ledger">`. */
export const LedgerPage: FC<{
  row: Row;
  records: NumberedRecord[];
  page: number;
  /** Lines in the ledger, or records of the decision when one is asked. */
  lines: number;
  decisions: [string, number][];
  decision: string | null;
  /** A decision asked for that the ledger does not hold. */
  unknown: string | null;
  indexing: number | null;
}> = ({ row, records, page, lines, decisions, decision, unknown, indexing }) => {
  const pages = Math.max(1, Math.ceil(lines / 500));
  const query = decision ? `decision=${encodeURIComponent(decision)}&` : "";
  const href = (p: number) => `/trials/${row.id}/ledger?${query}page=${p}`;
  const total = decisions.reduce((a, [, n]) => a + n, 0);
  return (
    <>
      <h1>
        <a href={`/trials/${row.id}`}>{row.name}</a> · guard ledger
      </h1>
      <p class="muted">
        {decision ? `${lines} ${decision} records of ${total}` : `${lines} lines`}
        {indexing !== null ? ` read so far (${pct(indexing)} of the file indexed)` : ""}, 500 a page; each
        numbered by its line in the ledger.
      </p>
      <Decisions row={row} decisions={decisions} decision={decision} total={total} />
      {unknown
        ? (
          <p class="notice" id="unknown-decision">
            Cannot filter by decision "{unknown.slice(0, 40)}": this ledger has no such record. Showing them
            all; pick one of the decisions above.
          </p>
        )
        : null}
      <nav class="pager">
        {page > 1 ? <a href={href(page - 1)} rel="prev">‹ prev</a> : null} page {page} of {pages}
        {indexing !== null ? "+" : ""} {page < pages ? <a href={href(page + 1)} rel="next">next ›</a> : null}
      </nav>
      <ol id="ledger">
        {records.map((n) => (
          <li id={`line-${n.line}`} value={String(n.line + 1)} class="ev rec">
            <span class="time">{time(n.record.t)}</span>
            <GuardRecord record={n.record} would={false} overlay={null} />
          </li>
        ))}
        {!records.length ? <li class="muted">No records on this page.</li> : null}
      </ol>
    </>
  );
};
