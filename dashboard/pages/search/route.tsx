/** Search (`/search?q=`): trials by name, task, rule, check or ledger text; rules and checks the query names. */
import { Hono } from "hono";
import { hx, type Page } from "../../context.ts";
import { matchChecks, matchRules } from "../../read/search.ts";
import { SearchResults } from "../../ui/layout.tsx";
import { SearchPage } from "./view.tsx";

export const page: Page = {
  routes({ store, search, refresh }) {
    const app = new Hono();
    app.get("/search", (c) => {
      refresh();
      const query = (c.req.query("q") ?? "").slice(0, 200);
      // The background indexes the rest; a request spends at most 25 ms catching up, then searches what is in.
      search.syncSlice(store.version, store.rows(), (r) => store.searchText(r), 25);
      const hits = search.search(query);
      const rules = query.trim() ? matchRules(query) : [];
      const checks = query.trim() ? matchChecks(query, store.rows()) : [];
      if (hx(c)) {
        // The header's box swaps its dropdown, the page's own box its list of hits.
        const id = c.req.query("hits") === "page" ? "search-hits" : undefined;
        return c.html(<SearchResults hits={hits} query={query} rules={rules} checks={checks} id={id} />);
      }
      return c.render(<SearchPage hits={hits} query={query} rules={rules} checks={checks} />, {
        title: "Search",
      });
    });
    return app;
  },
};
