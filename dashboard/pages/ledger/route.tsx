/** A trial's guard ledger (`/trials/:id/ledger`), paged, filtered by decision. */
import { Hono } from "hono";
import type { Page } from "../../context.ts";
import { notFound } from "../../ui/layout.tsx";
import { LedgerPage } from "./view.tsx";

export const page: Page = {
  routes({ store, refresh }) {
    const app = new Hono();
    app.get("/trials/:id/ledger", (c) => {
      refresh();
      const row = store.row(c.req.param("id"));
      if (!row) {
        return notFound(c, "Cannot show this ledger: no trial has that id. Pick one from the Trials page.");
      }
      const page = Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1);
      const decisions = store.ledgerDecisions(row);
      const asked = c.req.query("decision");
      const decision = decisions.find(([d]) => d === asked)?.[0] ?? null;
      return c.render(
        <LedgerPage
          row={row}
          records={decision
            ? store.ledgerPageWhere(row, decision, page - 1)
            : store.ledgerPage(row, page - 1)}
          page={page}
          lines={decision ? decisions.find(([d]) => d === decision)![1] : store.ledgerLines(row)}
          decisions={decisions}
          decision={decision}
          unknown={asked && !decision ? asked : null}
          indexing={row.indexing}
        />,
        { title: `${row.name} ledger`, active: "Trials" },
      );
    });
    return app;
  },
};
