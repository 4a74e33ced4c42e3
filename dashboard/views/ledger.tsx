/** The Ledger page: a trial's guard ledger, one record per line, paged. */
import type { Child, FC } from "hono/jsx";
import type { Row } from "../model.ts";
import type { NumberedRecord } from "../ledgers.ts";
import { pct, time } from "./format.tsx";
import { Layout } from "./layout.tsx";
import { GuardRecord } from "./trial.tsx";

/** A big ledger, one page at a time: `<ol id="ledger">`. */
export const LedgerPage: FC<{
  row: Row;
  records: NumberedRecord[];
  page: number;
  lines: number;
  indexing: number | null;
  notice?: Child;
}> = ({ row, records, page, lines, indexing, notice }) => {
  const pages = Math.max(1, Math.ceil(lines / 500));
  const href = (p: number) => `/trials/${row.id}/ledger?page=${p}`;
  return (
    <Layout title={`${row.name} ledger`} active="Trials" notice={notice}>
      <h1>
        <a href={`/trials/${row.id}`}>{row.name}</a> · guard ledger
      </h1>
      <p class="muted">
        {lines}{" "}
        lines{indexing !== null ? ` read so far (${pct(indexing)} of the file indexed)` : ""}, 500 a page.
      </p>
      <nav class="pager">
        {page > 1 ? <a href={href(page - 1)} rel="prev">‹ prev</a> : null} page {page} of {pages}
        {indexing !== null ? "+" : ""} {page < pages ? <a href={href(page + 1)} rel="next">next ›</a> : null}
      </nav>
      <ol id="ledger" start={(page - 1) * 500 + 1}>
        {records.map((n) => (
          <li id={`line-${n.line}`} class="ev rec">
            <span class="time">{time(n.record.t)}</span>
            <GuardRecord record={n.record} would={false} overlay={null} />
          </li>
        ))}
        {!records.length ? <li class="muted">No records on this page.</li> : null}
      </ol>
    </Layout>
  );
};

// ---------- Rules ----------
