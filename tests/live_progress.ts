/**
 * The Live page's honesty (dashboard/pages/live/progress.ts and /live): what is live (trials with no result.json written
 * within the live window, a rate over that window only) kept apart from the finished runs read from disk, so
 * the numbers on the page never contradict each other. Table rows on the pure progress, then the page through
 * `app.request` over finished runs from a month ago with one live run, a stalled run, and configs whose trials
 * dirs hold none of the logs.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ablationProgress } from "../dashboard/pages/live/progress.ts";
import type { Row } from "../dashboard/read/model.ts";
import type { Slice } from "../dashboard/pages/live/experiments.ts";
import { createApp } from "../dashboard/app.tsx";
import { type Ablation, writeAblation } from "./support/dashboard_fixture.ts";
import { findTrials } from "../lib/results/trials.ts";

const NOW = Date.parse("2026-07-20T12:00:00Z");
const MIN = 60_000;
const WINDOW = 10 * MIN;

/** A trial row of `arm`: `done` minutes ago with `outcome`, or running and last written `written` minutes ago. */
function trial(arm: string, n: number, at: { outcome: Row["outcome"]; ago: number; cost?: number }): Row {
  const running = at.outcome === "running";
  return {
    id: `${arm}${n}`,
    arm,
    source: "trial",
    name: `t${n}`,
    task: `t${n}`,
    domain: "cm",
    seat: null,
    outcome: at.outcome,
    reward: at.outcome === "passed" ? 1 : at.outcome === "failed" ? 0 : null,
    cost: at.cost ?? null,
    reportedCost: null,
    model: null,
    toolCalls: null,
    guardedCalls: 0,
    blocks: 0,
    shadows: 0,
    releases: 0,
    errors: 0,
    gaps: 0,
    restarts: 0,
    rules: [],
    failedChecks: [],
    trialDir: `/c/logs/${arm}/cm/t${n}`,
    exception: null,
    trajectory: null,
    scorecard: null,
    guarded: false,
    ledgerBytes: 0,
    indexing: null,
    sessions: [],
    replays: [],
    synthetic: false,
    updated: 0,
    touched: running ? NOW - at.ago * MIN : 0,
    started: NOW - (at.ago + 20) * MIN,
    finished: running ? null : NOW - at.ago * MIN,
    ending: null,
    facts: null,
  };
}

function slice(arm: string, expected: number, trialsDir = `/c/logs/${arm}/cm`): Slice {
  return {
    file: `${arm}.yaml`,
    arm,
    domain: "cm",
    trialsDir,
    attempts: 1,
    tasks: expected,
    tasksFrom: "n_tasks",
    expected,
  };
}

const p = suite("live progress");

p("finished runs from disk only: all done, nothing live, no rate and no ETA", () => {
  const rows = [1, 2, 3].map((n) => trial("stock", n, { outcome: "passed", ago: 30 * 24 * 60 }));
  const got = ablationProgress(rows, [slice("stock", 6)], NOW, WINDOW);
  assert.equal([got.done, got.live, got.recent, got.rate, got.eta], [3, 0, 0, null, null]);
});

p("a live run, a stalled run and finished ones: each counted once, the rate over the window only", () => {
  const rows = [
    trial("stock", 1, { outcome: "passed", ago: 600, cost: 1 }),
    trial("stock", 2, { outcome: "failed", ago: 4, cost: 2 }),
    trial("stock", 3, { outcome: "passed", ago: 8 }),
    trial("stock", 4, { outcome: "running", ago: 1 }),
    trial("stock", 5, { outcome: "running", ago: 45 }),
  ];
  const got = ablationProgress(rows, [slice("stock", 10)], NOW, WINDOW);
  const arm = got.arms[0];
  assert.equal([arm.done, arm.scored, arm.passed, arm.live, arm.stalled], [3, 3, 2, 1, 1]);
  assert.equal([got.recent, got.rate, got.eta], [2, 12, (10 - 3) / 12 * 3600]);
  assert.equal([arm.passAt1, arm.costSoFar, arm.costKnown], [2 / 3, 3, 2]);
});

p("a trial started hours ago does not stretch the rate: only finishes in the window count", () => {
  const rows = [
    trial("stock", 1, { outcome: "passed", ago: 2 }),
    trial("stock", 2, { outcome: "passed", ago: 900 }),
  ];
  rows[0].started = NOW - 48 * 60 * MIN;
  assert.is(ablationProgress(rows, [], NOW, WINDOW).rate, 6);
});

p(
  "configs whose trials dirs hold none of the logs: 0 done, no pass@1, the others said to lie outside",
  () => {
    const rows = [1, 2].map((n) => trial("stock", n, { outcome: "passed", ago: 60 }));
    const got = ablationProgress(rows, [slice("stock", 225, "/elsewhere/logs/stock/cm")], NOW, WINDOW);
    assert.equal([got.arms[0].done, got.arms[0].passAt1, got.arms[0].costSoFar, got.outside], [
      0,
      null,
      null,
      2,
    ]);
  },
);

p("a guard ledger with no trial folder yet counts as live under its arm while written in the window", () => {
  const session = { ...trial("checklist", 9, { outcome: "running", ago: 0 }), source: "live" as const };
  session.touched = 0;
  session.updated = NOW - 2 * MIN;
  const old = { ...session, id: "old", updated: NOW - 60 * MIN };
  const got = ablationProgress([session, old], [], NOW, WINDOW);
  assert.equal(got.arms.map((a) => [a.arm, a.live, a.done]), [["checklist", 1, 0]]);
  assert.is(got.live, 1);
});

p.run();

// ---------- the page ----------

const page = suite("live page");
const root = mkdtempSync(join(tmpdir(), "fiable-live-"));
page.after(() => rmSync(root, { recursive: true, force: true }));

/** The Live page's progress section as text, over `logs` with the configs of `configs`. */
async function live(logs: string, configs: string[], window?: number): Promise<string> {
  const { app, store } = createApp({ logs: [logs], results: [], liveWindow: window }, {
    scanMs: 0,
    tailMs: 0,
    experiments: configs,
  });
  store.refresh({ scanMs: 0, tailMs: 0 });
  const html = await (await app.request("/live")).text();
  return html.slice(html.indexOf("<h2>Ablation progress"), html.indexOf("<h2>Latest blocks"))
    .replace(/<[^>]+>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#39;/g, "'").replace(
      /\s+/g,
      " ",
    );
}

/** Per arm row: done, expected, being written, passed, scored, priced; each figure ≤ its arm's done. */
function armRows(text: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (
    const m of text.matchAll(
      /(\w+) (\d+) \/ (\d+) (\d+)(?: \(\d+ stalled\))? (?:[\d.]+% \((\d+) of (\d+) scored\)|—) (?:\$[\d.]+ over (\d+) trials|—)/g,
    )
  ) {
    const [done, expected, writing, passed, scored, priced] = m.slice(2).map((x) => Number(x ?? 0));
    assert.ok(scored <= done && passed <= scored && priced <= done, m[0]);
    out.set(m[1], [done, expected, writing, passed, scored, priced]);
  }
  return out;
}

// Finished runs a month old, as a copy of last month's logs would hold, and one trial being written now. Written
// when the suite starts, not when this file is imported: the runner imports every suite before it runs the first,
// and a trial written at import would have left the live window by the time a full run reaches these tests.
let month: Ablation;
page.before(async () => {
  month = await writeAblation(join(root, "month"), Date.now() - 30 * 24 * 60 * MIN);
});

page(
  "finished runs from disk and one live run: live and not live apart, no rate, figures that agree",
  async () => {
    const text = await live(month.logs, [month.configs]);
    assert.match(text, "Live now: 1 trial being written (no result.json yet, written in the last 10 min)");
    assert.match(text, "none finished in the last 10 min, so no rate or ETA.");
    assert.match(text, "36 of the 450 expected trials have a result; all finished before the last 10 min");
    assert.not.match(text, "trials/hour");
    const arms = armRows(text);
    assert.equal([...arms.keys()].sort(), ["checklist", "stock"]);
    assert.equal(arms.get("checklist")!.slice(0, 3), [18, 225, 1]);
    assert.equal(arms.get("stock")!.slice(0, 3), [18, 225, 0]);
    assert.is([...arms.values()].reduce((a, r) => a + r[0], 0), 36);
  },
);

page(
  "a copy of finished logs made just now: its ledgers are recent on disk, yet none is live nor its blocks latest",
  async () => {
    const copy = await writeAblation(join(root, "copy"), Date.now() - 30 * 24 * 60 * MIN);
    const ledgers = findTrials([copy.logs]).flatMap((t) => t.ledgers).filter((l) => l !== copy.runningLedger);
    assert.ok(ledgers.length >= 10, `${ledgers.length} finished trials with a ledger`);
    const now = new Date();
    for (const l of ledgers) utimesSync(l, now, now);
    const { app, store } = createApp({ logs: [copy.logs], results: [] }, {
      scanMs: 0,
      tailMs: 0,
      experiments: [copy.configs],
    });
    store.refresh({ scanMs: 0, tailMs: 0 });
    const html = await (await app.request("/live")).text();
    const table = html.slice(html.indexOf('<tbody id="live-rows"'));
    const listed = table.slice(0, table.indexOf("</tbody>"));
    assert.equal([...listed.matchAll(/<a href="\/trials\/[0-9a-f]+">([^<]+)</g)].map((m) => m[1]), [
      "cm_afib_moderate_anxious_001__Running",
    ]);
    assert.match(html, "No block in the live window.");
    assert.match(html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " "), "Live now: 1 trial being written");
  },
);

page(
  "configs that point elsewhere: 0 / 225 with no pass@1, and the trials under --logs said to lie outside",
  async () => {
    const elsewhere = await writeAblation(join(root, "elsewhere"));
    const text = await live(month.logs, [elsewhere.configs]);
    assert.match(text, "0 of the 450 expected trials have a result.");
    assert.match(
      text,
      "37 trials under --logs lie outside the configs' trials dirs: counted nowhere on this page.",
    );
    assert.equal(armRows(text).get("stock"), [0, 225, 0, 0, 0, 0]);
    assert.match(text, "Live now: no trial being written");
  },
);

page("a run with no result.json that stopped writing: stalled, neither live nor done", async () => {
  const running = dirname(dirname(dirname(month.runningLedger)));
  const hourAgo = new Date(Date.now() - 60 * MIN);
  for (
    const p of [
      month.runningLedger,
      join(running, "trial.log"),
      join(running, "config.json"),
      join(running, "agent"),
      running,
    ]
  ) {
    utimesSync(p, hourAgo, hourAgo);
  }
  const text = await live(month.logs, [month.configs]);
  assert.match(
    text,
    "Live now: no trial being written (none without a result.json was written in the last 10 min)",
  );
  assert.match(
    text,
    "1 trial folder has no result.json and was last written over 10 min ago: stopped or crashed, counted as neither.",
  );
  assert.equal(armRows(text).get("checklist")!.slice(0, 3), [18, 225, 0]);
  assert.match(text, "checklist 18 / 225 0 (1 stalled)");
});

page.run();
