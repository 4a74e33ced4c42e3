/** The Arms page (`/`, its figures fragment with `?part=figures`) and a saved aggregate's page (`/aggregate/:id`). */
import { Hono } from "hono";
import { raw } from "hono/html";
import { hx, type Page } from "../../context.ts";
import { replayFigures } from "../../read/figures.ts";
import { notFound } from "../../ui/layout.tsx";
import { AggregatePage, ArmsFigures, ArmsPage } from "./view.tsx";

export const page: Page = {
  nav: { href: "/", label: "Arms" },
  routes({ store, refresh, waitFigures }) {
    const app = new Hono();
    // The Arms figures of 60 arms are hundreds of KB of HTML: rendered once per figures and rows version.
    let armsHtml: { key: string; html: string } | null = null;
    app.get("/", async (c) => {
      refresh();
      const state = await waitFigures();
      const stale = !state || state.version !== store.trialsVersion;
      // Keyed on what it shows, not on the rows' version: a live ledger's growth changes neither.
      const replay = replayFigures(store.rows());
      const orphans = store.orphanReplays.length;
      const mixed = store.mixedArms();
      const key = `${state?.version}:${state?.ms}:${stale}:${orphans}:${JSON.stringify([replay, mixed])}`;
      if (armsHtml?.key !== key) {
        const fragment = (
          <ArmsFigures state={state} stale={stale} replay={replay} orphans={orphans} mixed={mixed} />
        );
        armsHtml = { key, html: await fragment.toString() };
      }
      if (hx(c) || c.req.query("part") === "figures") return c.html(armsHtml.html);
      return c.render(<ArmsPage figures={raw(armsHtml.html)} saved={store.aggregates()} />, {
        title: "Arms",
        active: "Arms",
      });
    });
    app.get("/aggregate/:id", (c) => {
      const file = store.aggregates().find((f) => f.id === c.req.param("id"));
      if (!file) {
        return notFound(c, "Cannot show this aggregate: none has that id. Pick one from the Arms page.");
      }
      return c.render(<AggregatePage file={file} />, { title: "Saved aggregate", active: "Arms" });
    });
    return app;
  },
};
