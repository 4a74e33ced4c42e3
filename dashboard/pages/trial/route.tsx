/** The Trial page (`/trials/:id`): the transcript beside the scorecard; with HX-Request, the transcript alone. */
import { Hono } from "hono";
import { RULES } from "../../../rules/mod.ts";
import { CHECKS } from "../../../rules/catalog/checks.ts";
import { hx, type Page } from "../../context.ts";
import { checkLinks } from "../../read/transcript.ts";
import { checkExplanations } from "../../read/sources/explanations.ts";
import { notFound } from "../../ui/layout.tsx";
import { CompareWith } from "../../ui/compare_with.tsx";
import { overlayOf } from "../../ui/links.ts";
import { ReplayNotKept, Scorecard, Timeline, TrialPage } from "./view.tsx";

export const page: Page = {
  routes({ store, refresh, recipe }) {
    const app = new Hono();
    app.get("/trials/:id", (c) => {
      refresh();
      const row = store.row(c.req.param("id"));
      if (!row) {
        return notFound(c, "Cannot show this trial: no trial has that id. Pick one from the Trials page.");
      }
      const q = c.req.query();
      const overlays = store.replayArms(row);
      const overlay = overlayOf(q.replay, overlays);
      const small = store.small(row);
      const trajectory = store.trajectory(row);
      const items = store.transcript(row, overlay, trajectory);
      const pages = Math.max(1, Math.ceil(items.length / 250));
      const page = Math.min(pages, Math.max(1, Number.parseInt(q.page ?? "1", 10) || 1));
      const live = row.outcome === "running" && store.live().some((r) => r.id === row.id);
      const timeline = (
        <Timeline row={row} items={items} page={page} overlay={overlay} live={live && small} />
      );
      if (hx(c)) {
        return c.html(timeline);
      }
      const big = small ? null : (
        <p class="notice" id="big-ledger">
          This trial's guard ledger is {(row.ledgerBytes / 2 ** 20).toFixed(1)} MB ({store.ledgerLines(row)}
          {" "}
          lines
          {row.indexing !== null ? " read so far" : ""}): too big to merge into the transcript, so {trajectory
            ? "the transcript shows the trajectory alone"
            : "only its first 500 lines are shown here"}.{" "}
          <a href={`/trials/${row.id}/ledger`}>Read the ledger page by page</a>.
        </p>
      );
      const banner = (
        <>
          {big}
          {overlay && !store.replayKept(row, overlay) ? <ReplayNotKept arm={overlay} /> : null}
        </>
      );
      const rules = RULES.map((r) =>
        r.meta
      );
      const scorecard = (
        <Scorecard
          row={row}
          book={{ rules, checks: CHECKS }}
          links={checkLinks(items, row.failedChecks, rules)}
          explanations={checkExplanations(row.scorecard, row.failedChecks)}
          stepItems={new Map(items.flatMap((it, i) =>
            it.kind === "agent" ? [[it.step, i]] : []
          ))}
          overlay={overlay}
          recipe={`recipe ${recipe}`}
        />
      );
      return c.render(
        <TrialPage
          row={row}
          timeline={timeline}
          scorecard={scorecard}
          total={items.length}
          page={page}
          overlay={overlay}
          overlays={overlays}
          banner={banner}
          compare={<CompareWith row={row} peers={store.peers(row)} />}
        />,
        { title: row.name, active: "Trials" },
      );
    });
    return app;
  },
};
