/** What every page loads: htmx (from its npm package, never a CDN) and the stylesheet. */
import { Hono } from "hono";
import type { Page } from "../../context.ts";
import { CSS } from "../../ui/css.ts";
import { htmxSource } from "./htmx.ts";

export const page: Page = {
  routes() {
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
    return app;
  },
};
