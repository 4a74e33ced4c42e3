/** What every page loads: htmx (from its npm package, never a CDN), the stylesheet, and the scan status line. */
import { Hono } from "hono";
import type { Page } from "../../context.ts";
import { CSS } from "../../ui/css.ts";
import { ScanStatus } from "../../ui/layout.tsx";
import { htmxSource } from "./htmx.ts";

export const page: Page = {
  routes({ store }) {
    const app = new Hono();
    let htmx: string | null = null;
    app.get("/static/htmx.min.js", (c) => {
      htmx ??= htmxSource();
      c.header("Content-Type", "text/javascript; charset=utf-8");
      return c.body(htmx);
    });
    app.get("/static/app.css", (c) => {
      c.header("Content-Type", "text/css; charset=utf-8");
      return c.body(CSS);
    });
    app.get("/favicon.ico", (c) => c.body(null, 204));
    app.get("/scan", (c) => c.html(<ScanStatus progress={store.progress()} rows={store.rows().length} />));
    return app;
  },
};
