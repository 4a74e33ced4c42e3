/**
 * What every page polls: `/scan`, the first scan's progress (once done, the `CHANGED` event, so the page's
 * figures update in place), and `/changes?since=N`, nothing until the rows' version passes N, then a new
 * watcher and the `CHANGED` event. Neither shows anything while nothing changed.
 */
import { Hono } from "hono";
import type { Page } from "../../context.ts";
import { CHANGED, ScanStatus, Watcher } from "../../ui/layout.tsx";

export const page: Page = {
  routes({ store, refresh }) {
    const app = new Hono();
    app.get("/scan", (c) => {
      const progress = store.progress();
      if (!progress) c.header("HX-Trigger", CHANGED);
      return c.html(<ScanStatus progress={progress} rows={store.rows().length} />);
    });
    app.get("/changes", (c) => {
      refresh();
      const since = Number(c.req.query("since"));
      // The first scan's own status line says when it is done.
      if (store.progress() || since === store.version) return c.body(null, 204);
      c.header("HX-Trigger", CHANGED);
      return c.html(<Watcher version={store.version} />);
    });
    return app;
  },
};
