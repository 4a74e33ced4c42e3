/** The Handbook page: the plan arm's handbook index, searched as you type. */
import { Hono } from "hono";
import { hx, type Page } from "../../context.ts";
import { type OpenedHandbook, openHandbook, searchHandbook } from "../../../lib/guard/handbook.ts";
import { HandbookPage, HandbookResults } from "./view.tsx";

export const page: Page = {
  nav: { href: "/handbook", label: "Handbook" },
  routes({ options }) {
    const app = new Hono();
    let handbook: OpenedHandbook | undefined;
    app.get("/handbook", (c) => {
      const query = (c.req.query("q") ?? "").slice(0, 200);
      const dir = options.handbook;
      if (dir && !handbook) handbook = openHandbook({ dir, budgetMs: 60_000 });
      const note = !dir ? undefined : handbook?.index ? undefined : handbook?.note;
      const hits = query && handbook?.index ? searchHandbook(handbook.index, query, { limit: 20 }) : [];
      if (hx(c)) return c.html(<HandbookResults hits={hits} query={query} note={note} />);
      return c.render(<HandbookPage hits={hits} query={query} note={note} dir={dir} />, {
        title: "Handbook",
        active: "Handbook",
      });
    });
    return app;
  },
};
