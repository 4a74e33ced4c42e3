/**
 * The Compare page (`/compare?a=<id>&b=<id>`, or `?task=&arm=&with=` from a Matrix cell): two trials of one
 * task, their calls aligned.
 */
import { Hono } from "hono";
import type { Page } from "../../context.ts";
import { PAGE_LINES } from "../../read/ledgers.ts";
import type { Row } from "../../read/model.ts";
import { trialChecks } from "../../read/sources/trials.ts";
import { message } from "../../ui/layout.tsx";
import { overlayOf } from "../../ui/links.ts";
import { align } from "./align.ts";
import {
  checkPairs,
  compareProblem,
  isCaseStep,
  pickPair,
  stepKey,
  stepsOf,
  type TrialStep,
} from "./model.ts";
import { CheckTable, ComparePage } from "./view.tsx";

export const page: Page = {
  routes({ store, refresh }) {
    const app = new Hono();
    app.get("/compare", (c) => {
      refresh();
      const q = c.req.query();
      if (q.task && !q.a && !q.b) {
        const pair = pickPair(store.rows(), q.task, { arm: q.arm ?? "", with: q.with ?? "" });
        if (typeof pair === "string") return message(c, "Cannot compare", pair, 404);
        return c.redirect(`/compare?${new URLSearchParams({ a: pair.a, b: pair.b })}`, 302);
      }
      const ids = { a: q.a ?? "", b: q.b ?? "" };
      const a = store.row(ids.a), b = store.row(ids.b);
      const problem = compareProblem(ids, a, b);
      if (problem) return message(c, "Cannot compare", problem.message, problem.status);
      const overlays = [...new Set([...store.replayArms(a!), ...store.replayArms(b!)])].sort();
      const overlay = overlayOf(q.replay, overlays);
      const local = q.local !== "hide";
      const all = (row: Row) =>
        stepsOf(store.transcript(row, store.replayArms(row).includes(overlay ?? "") ? overlay : null));
      const every = { a: all(a!), b: all(b!) };
      const shown = (s: TrialStep[]) => s.filter((x) => local || isCaseStep(x));
      const calls = (s: TrialStep[]) => s.filter((x) => x.kind === "call").length;
      // A ledger too big to merge leaves its trial's calls without the guard's decisions, as on the Trial page.
      const notes = ([["A", a!], ["B", b!]] as const).filter(([, row]) => !store.small(row)).map((
        [side, row],
      ) =>
        `${side}'s guard ledger is ${(row.ledgerBytes / 2 ** 20).toFixed(1)} MB, too big to merge: ` +
        (row.trajectory
          ? "its calls are shown without the guard's decisions."
          : `only its first ${PAGE_LINES} lines are aligned.`) +
        " Read it on its ledger page."
      );
      const checks = checkPairs(
        trialChecks(a!.scorecard, a!.failedChecks),
        trialChecks(b!.scorecard, b!.failedChecks),
      );
      return c.render(
        <ComparePage
          a={a!}
          b={b!}
          alignment={align(shown(every.a), shown(every.b), stepKey, { counts: isCaseStep })}
          calls={{ a: calls(every.a), b: calls(every.b) }}
          checks={<CheckTable pairs={checks.failed} passedBoth={checks.passedBoth} a={a!} b={b!} />}
          overlay={overlay}
          overlays={overlays}
          local={local}
          notes={notes}
        />,
        { title: `Compare ${a!.task}`, active: "Trials" },
      );
    });
    return app;
  },
};
