/** The Trials page: the filtered, sorted, paged table (`#trials`) and its filter form. */
import type { Child, FC } from "hono/jsx";
import type { Row } from "../../read/model.ts";
import { COLUMNS, queryString, type TablePage, type TrialQuery } from "./table.ts";
import { attemptLabel, Cost, Name, Outcome, pct } from "../../ui/format.tsx";
import { ON_CHANGE } from "../../ui/layout.tsx";

function replayCell(r: Row): Child {
  if (!r.replays.length) return "—";
  return (
    <>
      {r.replays.map((m) => (
        <div class={m.blocked ? "would" : "muted"}>
          {m.arm}: {m.verdict && !m.verdict.verdict
            ? "not observable"
            : m.blocked
            ? m.rules.join(" ") || "blocked"
            : "no block"}
        </div>
      ))}
    </>
  );
}

/** A row's failed checks, compact: the first two (each a filter link), then how many more, all in the title. */
function checksCell(r: Row): Child {
  if (r.source !== "trial" || r.outcome === "running") return <span class="muted">—</span>;
  if (!r.failedChecks.length) return <span class="muted">none</span>;
  const more = r.failedChecks.length - 2;
  return (
    <span class="failed-ids" title={r.failedChecks.join("\n")}>
      {r.failedChecks.slice(0, 2).map((c, i) => (
        <>
          {i ? " " : ""}
          <a href={`/trials?check=${encodeURIComponent(c)}`}>
            <code>
              <Name text={c} />
            </code>
          </a>
        </>
      ))}
      {more > 0 ? <span class="muted">{` +${more} more`}</span> : null}
    </span>
  );
}

/** The table's rows: `<tbody id="trials-rows">`. */
export const TrialRows: FC<{ rows: readonly Row[] }> = ({ rows }) => (
  <tbody id="trials-rows" data-count={String(rows.length)}>
    {rows.map((r) => (
      <tr>
        <td>
          <a href={`/trials/${r.id}`} class="trial-link" title={r.name}>{attemptLabel(r.name, r.task)}</a>
          {r.guarded && r.source !== "ingest"
            ? (
              <a href={`/trials/${r.id}/ledger`} class="ledger-link muted" title="the guard ledger">
                ledger
              </a>
            )
            : null}
        </td>
        <td class="task">
          <Name text={r.task} />
        </td>
        <td>{r.arm}</td>
        <td>{r.domain}</td>
        <td>
          <Outcome value={r.outcome} />
        </td>
        <td class="checks">{checksCell(r)}</td>
        <td class="num">
          <Cost value={r.cost} model={r.model} known={r.source === "trial" && r.outcome !== "running"} />
        </td>
        <td class="num">{r.toolCalls ?? "—"}</td>
        <td class="num">
          {r.blocks}
          {r.shadows ? ` (+${r.shadows} shadow)` : ""}
          {r.indexing !== null ? <span class="muted">{` indexing ${pct(r.indexing)}`}</span> : null}
        </td>
        <td>{r.rules.join(" ")}</td>
        <td>{replayCell(r)}</td>
      </tr>
    ))}
    {!rows.length
      ? (
        <tr>
          <td colspan={COLUMNS.length} class="muted">No trial matches these filters.</td>
        </tr>
      )
      : null}
  </tbody>
);

export const swap = { "hx-target": "#trials-view", "hx-swap": "outerHTML", "hx-push-url": "true" };

/** The sortable, paginated table: `<div id="trials-view">`, fetched again when the rows change. */
export const TrialsView: FC<{ page: TablePage; query: TrialQuery; recipe: string; oob?: boolean }> = (
  { page, query, recipe, oob },
) => {
  const link = (over: Partial<TrialQuery>) => `/trials${queryString(query, over)}`;
  const Pager = () => (
    <nav class="pager" aria-label="pages">
      <span>
        rows {page.total ? page.first + 1 : 0}–{page.first + page.rows.length} of {page.total}
      </span>{" "}
      {page.page > 1
        ? (
          <>
            <a href={link({ page: 1 })} hx-get={link({ page: 1 })} {...swap}>« first</a>{" "}
            <a
              href={link({ page: page.page - 1 })}
              hx-get={link({ page: page.page - 1 })}
              {...swap}
              rel="prev"
            >
              ‹ prev
            </a>
          </>
        )
        : null} <span class="page">page {page.page} of {page.pages}</span> {page.page < page.pages
        ? (
          <>
            <a
              href={link({ page: page.page + 1 })}
              hx-get={link({ page: page.page + 1 })}
              {...swap}
              rel="next"
            >
              next ›
            </a>{" "}
            <a href={link({ page: page.pages })} hx-get={link({ page: page.pages })} {...swap}>last »</a>
          </>
        )
        : null}
    </nav>
  );
  return (
    <div
      id="trials-view"
      data-total={String(page.total)}
      data-page={String(page.page)}
      hx-get={link({})}
      hx-trigger={ON_CHANGE}
      hx-swap="outerHTML"
    >
      <Pager />
      <table id="trials">
        <thead>
          <tr>
            {COLUMNS.map(([key, label]) => {
              const active = query.sort === key;
              const dir = active && query.dir === "asc" ? "desc" : "asc";
              const href = link({ sort: key, dir, page: 1 });
              return (
                <th
                  data-sort={key}
                  aria-sort={active ? (query.dir === "asc" ? "ascending" : "descending") : "none"}
                >
                  <a href={href} hx-get={href} {...swap} class="sort">
                    {key === "cost" ? `cost (${recipe})` : label}
                    {active ? (query.dir === "asc" ? " ▲" : " ▼") : ""}
                  </a>
                </th>
              );
            })}
          </tr>
        </thead>
        <TrialRows rows={page.rows} />
      </table>
      <Pager />
      {oob
        ? (
          <>
            <input type="hidden" id="f-sort" name="sort" value={query.sort} hx-swap-oob="true" />
            <input type="hidden" id="f-dir" name="dir" value={query.dir} hx-swap-oob="true" />
          </>
        )
        : null}
    </div>
  );
};

const Select: FC<{ name: string; label?: string; values: string[]; value?: string }> = (
  { name, label, values, value },
) => (
  <label>
    {label ?? name}{" "}
    <select name={name}>
      <option value="">all</option>
      {values.map((v) => <option key={v} value={v} selected={v === value}>{v}</option>)}
    </select>
  </label>
);

/** The Trials page: filters, then the table. */
export const TrialsPage: FC<
  { view: Child; query: TrialQuery; options: Record<string, string[]> }
> = ({ view, query, options }) => (
  <>
    <h1>Trials</h1>
    <form
      id="filters"
      action="/trials"
      method="get"
      hx-get="/trials"
      hx-trigger="change, input changed delay:300ms from:#f-q, input changed delay:300ms from:#f-check"
      hx-target="#trials-view"
      hx-swap="outerHTML"
      hx-push-url="true"
    >
      <label>
        trial or task{" "}
        <input id="f-q" type="search" name="q" value={query.q ?? ""} placeholder="afib, a trial suffix…" />
      </label>
      <Select name="arm" values={options.arm} value={query.arm} />
      <Select name="domain" values={options.domain} value={query.domain} />
      <Select name="outcome" values={options.outcome} value={query.outcome} />
      <Select name="rule" label="rule fired" values={options.rule} value={query.rule} />
      {query.by
        ? (
          <label class="chip">
            fired in <input type="text" name="by" value={query.by} readonly />{" "}
            <a href={`/trials${queryString(query, { by: undefined, page: 1 })}`}>any</a>
          </label>
        )
        : null}
      <label>
        failed check{" "}
        <input
          id="f-check"
          type="search"
          name="check"
          list="check-ids"
          value={query.check ?? ""}
          placeholder="md. or md.signed_off"
          size={18}
        />
        <datalist id="check-ids">
          {(options.check ?? []).map((c) => <option key={c} value={c} />)}
        </datalist>
      </label>
      {options.via?.length
        ? (
          <>
            <label title="of the failed check above, or of any failed check">
              a replayed block for the failed check came{" "}
              <select name="timing">
                <option value="">any way</option>
                <option value="in-time" selected={query.timing === "in-time"}>in time</option>
                <option value="too-late" selected={query.timing === "too-late"}>only too late</option>
                <option value="none" selected={query.timing === "none"}>never</option>
              </select>
            </label>
            <Select name="via" label="replayed as" values={options.via} value={query.via} />
          </>
        )
        : null}
      <label>
        a replay would have blocked it{" "}
        <select name="replay">
          <option value="">either way</option>
          <option value="yes" selected={query.replay === "yes"}>yes</option>
          <option value="no" selected={query.replay === "no"}>no (replayed, no block)</option>
        </select>
      </label>
      {query.task
        ? (
          <label class="chip">
            task <input type="text" name="task" value={query.task} readonly /> <a href="/trials">clear</a>
          </label>
        )
        : null}
      <input type="hidden" id="f-sort" name="sort" value={query.sort} />
      <input type="hidden" id="f-dir" name="dir" value={query.dir} />
      <noscript>
        <button type="submit">Filter</button>
      </noscript>
    </form>
    {view}
  </>
);

// ---------- Trial ----------
