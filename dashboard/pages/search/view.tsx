/** The search page (its results are the header's fragment, `SearchResults` in layout.tsx). */
import type { FC } from "hono/jsx";
import type { Hit, RuleMatch } from "../../read/search.ts";
import { SearchResults } from "../../ui/layout.tsx";

/** The search page for a plain (non-htmx) request: the query and its hits. */
export const SearchPage: FC<
  { hits: Hit[]; query: string; rules: RuleMatch[]; checks: string[] }
> = ({ hits, query, rules, checks }) => (
  <>
    <h1>Search: {query}</h1>
    <div class="hits">
      <SearchResults hits={hits} query={query} rules={rules} checks={checks} id="search-hits" />
    </div>
  </>
);

// ---------- Arms ----------
