/** The Trials page: the filtered, sorted, paged table; with HX-Request, the table alone. */
import { Hono } from "hono";
import { hx, type Page } from "../../context.ts";
import type { Row } from "../../read/model.ts";
import { parseQuery, tablePage } from "./table.ts";
import { TrialsPage, TrialsView } from "./view.tsx";

export const page: Page = {
  nav: { href: "/trials", label: "Trials" },
  routes({ store, refresh, recipe }) {
    const app = new Hono();
    app.get("/trials", (c) => {
      refresh();
      const query = parseQuery(c.req.query());
      const all = store.rows();
      const view = (
        <TrialsView page={tablePage(all, query)} query={query} recipe={`recipe ${recipe}`} oob={hx(c)} />
      );
      if (hx(c)) return c.html(view);
      const uniq = (f: (r: Row) => string[]) => [...new Set(all.flatMap(f))].sort();
      const options = {
        arm: uniq((r) => [r.arm]),
        domain: uniq((r) => [r.domain]),
        outcome: uniq((r) => [r.outcome]),
        rule: uniq((r) => [...r.rules, ...r.replays.flatMap((m) => m.rules)]),
        check: uniq((r) => r.failedChecks),
        via: uniq((r) => r.replays.filter((m) => m.verdict).map((m) => m.arm)),
      };
      return c.render(<TrialsPage view={view} query={query} options={options} />, {
        title: "Trials",
        active: "Trials",
      });
    });
    return app;
  },
};
