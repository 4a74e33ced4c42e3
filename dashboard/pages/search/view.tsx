/** The search page (its results are the header's fragment, `SearchResults` in layout.tsx). */
import type { FC } from "hono/jsx";
import type { Hit, RuleMatch } from "../../read/search.ts";
import { SearchResults } from "../../ui/layout.tsx";

/** The search page for a plain (non-htmx) request: its own search box, the query and its hits. */
export const SearchPage: FC<
  { hits: Hit[]; query: string; rules: RuleMatch[]; checks: string[] }
> = ({ hits, query, rules, checks }) => (
  <>
    <h1>Search{query ? `: ${query}` : ""}</h1>
    <form action="/search" method="get" role="search" id="search-page">
      <input
        type="search"
        name="q"
        value={query}
        placeholder="a task name, a trial suffix, a rule id or name, part of a check id…"
        aria-label="Search trials, tasks, rules and checks"
        size={60}
        autofocus
        hx-get="/search"
        hx-trigger="input changed delay:300ms, search"
        hx-target="#search-hits"
        hx-swap="outerHTML"
        hx-vals='{"hits":"page"}'
        autocomplete="off"
      />
    </form>
    {query ? null : (
      <p class="muted">
        Finds trials by part of a task name (<code>afib</code>), a trial suffix, a rule id or name (
        <code>GLOBAL-01</code>,{" "}
        <code>case-lock</code>), part of a check id (<code>signed_off</code>), an arm or an outcome, and by
        what their guard ledger holds (tools, cases, block reasons).
      </p>
    )}
    <div class="hits">
      <SearchResults hits={hits} query={query} rules={rules} checks={checks} id="search-hits" />
    </div>
  </>
);
