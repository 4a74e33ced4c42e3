/** The search page (its results are the header's fragment, `SearchResults` in layout.tsx). */
import type { Child, FC } from "hono/jsx";
import type { Hit, RuleMatch } from "../search.ts";
import { Layout, SearchResults } from "./layout.tsx";

/** The search page for a plain (non-htmx) request: the query and its hits. */
export const SearchPage: FC<
  { hits: Hit[]; query: string; rules: RuleMatch[]; checks: string[]; notice?: Child }
> = ({ hits, query, rules, checks, notice }) => (
  <Layout title="Search" notice={notice}>
    <h1>Search: {query}</h1>
    <div class="hits">
      <SearchResults hits={hits} query={query} rules={rules} checks={checks} id="search-hits" />
    </div>
  </Layout>
);

// ---------- Arms ----------
