/** The Handbook page: search over the handbook index the plan arm uses, and its results fragment. */
import type { FC } from "hono/jsx";
import type { HandbookHit } from "../../../lib/guard/handbook.ts";

/** Handbook hits: `<ol id="handbook-results">`, or why there are none. */
export const HandbookResults: FC<{ hits: readonly HandbookHit[]; query: string; note?: string }> = (
  { hits, query, note },
) => (
  <ol id="handbook-results" class="hits">
    {note ? <li class="muted">{note}</li> : null}
    {!note && query && !hits.length ? <li class="muted">No handbook page matches “{query}”.</li> : null}
    {hits.map((h) => (
      <li>
        <strong>{h.title}</strong> <code>{h.path}</code>{" "}
        <span class="muted">· {h.why} · score {h.score}</span>
      </li>
    ))}
  </ol>
);

/** The Handbook page: the same MiniSearch index the plan arm uses, searched as you type. */
export const HandbookPage: FC<
  { hits: readonly HandbookHit[]; query: string; note?: string; dir?: string }
> = ({ hits, query, note, dir }) => (
  <>
    <h1>Handbook</h1>
    <p class="muted" id="handbook-source">
      The Managed-Care Operations Handbook every χ-Bench trial has at{" "}
      <code>/workspace/skills/managed-care-operations-handbook</code>: 1,279 markdown pages, the gated Hugging
      Face dataset{" "}
      <code>actava/managed-care-operations-handbook</code>, which chi-bench's README downloads into{" "}
      <code>data/skills/managed-care-operations-handbook</code>. Pages rank as the plan arm's guard ranks them
      (the same index, lib/guard/handbook.ts). {dir
        ? (
          <>
            Read from <code>{dir}</code>.
          </>
        )
        : "No handbook configured: start the dashboard with --handbook <chi-bench>/data/skills/managed-care-operations-handbook."}
    </p>
    <form action="/handbook" method="get" role="search">
      <input
        type="search"
        name="q"
        value={query}
        placeholder="Search handbook pages…"
        aria-label="Search the handbook"
        hx-get="/handbook"
        hx-trigger="input changed delay:300ms, search"
        hx-target="#handbook-results"
        hx-swap="outerHTML"
        autocomplete="off"
      />
    </form>
    <HandbookResults hits={hits} query={query} note={note} />
  </>
);
