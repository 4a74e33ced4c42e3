/** The Live page: what is being written now, progress against the experiment configs, the latest blocks. */
import { Hono } from "hono";
import { hx, type Page } from "../../context.ts";
import { readExperiments } from "./experiments.ts";
import { ablationProgress } from "./progress.ts";
import { LiveNow, LivePage } from "./view.tsx";

export const page: Page = {
  nav: { href: "/live", label: "Live" },
  routes({ store, refresh, options, recipe }) {
    const app = new Hono();
    app.get("/live", (c) => {
      refresh();
      const now = Date.now();
      const experiments = readExperiments(options.experiments ?? []);
      const fragment = (
        <LiveNow
          progress={ablationProgress(store.rows(), experiments.slices, now, store.liveWindowMs())}
          configured={experiments.slices.length > 0}
          problems={experiments.problems}
          blocks={store.latestBlocks(now)}
          rows={store.live(now)}
          now={now}
          recipe={`recipe ${recipe}`}
        />
      );
      if (hx(c)) return c.html(fragment);
      return c.render(<LivePage now={fragment} />, { title: "Live", active: "Live" });
    });
    return app;
  },
};
