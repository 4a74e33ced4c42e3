/** The Checks page: each failed verifier check, its failures per arm, what protects it, replay's timing. */
import { Hono } from "hono";
import { hx, type Page } from "../../context.ts";
import { replayCheckCounts } from "../../read/figures.ts";
import { checkRows } from "./model.ts";
import { ChecksPage, ChecksView } from "./view.tsx";

export const page: Page = {
  nav: { href: "/checks", label: "Checks" },
  routes({ store, refresh }) {
    const app = new Hono();
    app.get("/checks", (c) => {
      refresh();
      const rows = store.rows();
      const arms = [...new Set(rows.filter((r) => r.source === "trial").map((r) => r.arm))].sort();
      const replayArms = [
        ...new Set(rows.flatMap((r) => r.replays.filter((m) => m.verdict).map((m) => m.arm))),
      ].sort();
      const replay = Object.fromEntries(replayArms.map((a) => [a, replayCheckCounts(rows, a)]));
      const props = { checks: checkRows(rows, replay), arms, replayArms };
      if (hx(c)) return c.html(<ChecksView {...props} />);
      return c.render(<ChecksPage {...props} />, { title: "Checks", active: "Checks" });
    });
    return app;
  },
};
