/**
 * The dashboard reads its sources in the background: it listens first, pages answer while the scan runs and
 * say how far it got, and once done they show what the old full scan showed. Replay results come from their
 * decisions.parquet when DuckDB loads, from their ledgers when it does not, with the same pages either way.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findTrials } from "../lib/results/trials.ts";
import { serve } from "../dashboard/server.tsx";
import { createApp } from "../dashboard/app.tsx";
import type { Sources, Store } from "../dashboard/read/store.ts";
import { replayFigures } from "../dashboard/read/figures.ts";
import { RowSearch } from "../dashboard/read/search.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { writeFixture, writeManyTrials } from "./support/dashboard_fixture.ts";

const s = suite("dashboard background scan");
const dir = mkdtempSync(join(tmpdir(), "fiable-dash-scan-"));
s.after(() => rmSync(dir, { recursive: true, force: true }));
const fx = writeFixture(dir);
writeManyTrials(join(fx.logs, "many"), 240);
const results = join(dir, "results");
const replayDir = join(results, "replay");
await replayTrees([join(fx.logs, "stock")], { arms: ["checklist", "critic"], out: replayDir, workers: 1 });
const sources: Sources = { logs: [fx.logs], results: [results] };
const quiet = { scanMs: Infinity, tailMs: 0, figureWaitMs: 0, control: "stock" };

/** The old way: one full synchronous scan, every replay ledger read. */
function fullScan(): ReturnType<typeof createApp> {
  const made = createApp({ ...sources, duckdb: false }, { ...quiet, scanMs: 0 });
  made.store.refresh({ scanMs: 0, tailMs: 0 });
  while (made.store.pump(64 << 20));
  return made;
}

async function page(
  app: { request: (p: string, i?: RequestInit) => Response | Promise<Response> },
  path: string,
) {
  const res = await app.request(path, { headers: { "HX-Request": "true" } });
  assert.is(res.status, 200, path);
  return await res.text();
}

/** The pages compared between scans: the whole Trials table, the Rules page, a replayed trial's overlay. */
async function pages(made: ReturnType<typeof createApp>): Promise<Record<string, string>> {
  const replayed = made.store.rows().find((r) => r.replays.length === 2)!;
  assert.ok(replayed, "a trial carries both replay arms");
  const out: Record<string, string> = {};
  for (
    const path of [
      "/trials?size=500",
      "/trials?sort=replay&dir=desc",
      "/rules",
      `/trials/${replayed.id}?replay=critic`,
    ]
  ) {
    out[path] = await page(made.app, path);
  }
  return out;
}

function marks(store: Store) {
  return store.rows().map((r) => [r.name, r.replays]);
}

const before = fullScan();
const expected = await pages(before);

s("replay wrote the Parquet summary the dashboard reads", () => {
  assert.ok(existsSync(join(replayDir, "decisions.parquet")));
  assert.ok(before.store.rows().length > 240);
});

s(
  "pages answer while the scan runs and say how far it got; the finished pages equal the full scan's",
  async () => {
    const made = createApp(sources, quiet);
    const scanning = made.store.scanInBackground(1);
    assert.ok(made.store.progress(), "the scan is running");
    const during = await (await made.app.request("/trials")).text();
    assert.match(during, /id="scan-progress"[^>]*hx-get="\/scan"/);
    assert.match(during, /Still reading the sources/);
    assert.match(await page(made.app, "/scan"), /hx-trigger="every 1s"/);
    assert.ok(
      made.store.rows().length < before.store.rows().length,
      "the first page showed part of the trials",
    );
    await scanning;
    assert.is(made.store.progress(), null);
    assert.match(await page(made.app, "/scan"), /data-done="true"[^>]*>\s*All sources read/);
    assert.equal(made.store.replaySummaries().map((x) => x.dir), [replayDir]);
    assert.equal(marks(made.store), marks(before.store));
    assert.equal(replayFigures(made.store.rows()), replayFigures(before.store.rows()));
    const after = await pages(made);
    for (const path of Object.keys(expected)) assert.fixture(after[path], expected[path]);
    assert.not.match(await (await made.app.request("/trials")).text(), /scan-progress/);
  },
);

s(
  "DuckDB unavailable: the replay ledgers are read instead, the page says why, the figures are the same",
  async () => {
    const made = createApp(
      { ...sources, duckdb: () => Promise.reject(new Error("no native binding here")) },
      quiet,
    );
    await made.store.scanInBackground(1);
    while (made.store.pump(64 << 20));
    made.store.refresh({ tailMs: 0 });
    assert.equal(made.store.replaySummaries(), []);
    assert.equal(made.store.summaryNotes(), [
      "DuckDB cannot load here (no native binding here). Reading its ledgers instead.",
    ]);
    assert.match(await (await made.app.request("/rules")).text(), /Reading its ledgers instead/);
    assert.equal(marks(made.store), marks(before.store));
  },
);

s("serve listens before it scans; `scanned` resolves once the first scan is done", async () => {
  const started = serve({ logs: [fx.logs], results: [results], port: 0, host: "127.0.0.1" }, {
    sliceMs: 1,
    figureWaitMs: 0,
  });
  try {
    assert.ok(started.store.progress(), "serve returned before the scan finished");
    const res = await fetch(started.url + "trials");
    assert.is(res.status, 200);
    await res.text();
    await started.scanned;
    assert.is(started.store.progress(), null);
    assert.is(started.store.rows().length, before.store.rows().length);
  } finally {
    await started.server.shutdown();
  }
});

s(
  "later rescans are quiet: no progress, no change on a static tree; a trial that lands is read",
  async () => {
    const root = join(dir, "quiet");
    writeManyTrials(root, 8);
    const made = createApp({ logs: [root], results: [] }, quiet);
    await made.store.scanInBackground(1);
    // As a served dashboard's background does: the ledgers read to their end.
    while (made.store.pump(64 << 20));
    made.store.refresh({ tailMs: 0 });
    const version = made.store.version;
    const rows = made.store.rows().length;
    assert.match(await page(made.app, "/scan"), /data-done="true"[^>]*>\s*All sources read: 8 trials\.\s*</);
    const idle = await made.app.request(`/changes?since=${version}`, { headers: { "HX-Request": "true" } });
    assert.is(idle.status, 204, "nothing changed: nothing to swap");
    for (let i = 0; i < 3; i++) {
      const rescan = made.store.scanInBackground(1);
      assert.is(made.store.progress(), null, "a rescan shows no progress");
      await rescan;
      assert.is(made.store.version, version, "a rescan of an unchanged tree rebuilds nothing");
    }
    const [first] = findTrials([root]);
    cpSync(first.dir, join(dirname(first.dir), `${first.task}__landed01`), { recursive: true });
    await made.store.scanInBackground(1);
    assert.is(made.store.rows().length, rows + 1);
    const res = await made.app.request(`/changes?since=${version}`, { headers: { "HX-Request": "true" } });
    assert.is(res.status, 200);
    assert.is(res.headers.get("hx-trigger"), "fiable-changed");
    assert.match(await res.text(), `since=${made.store.version}`);
    const html = await (await made.app.request("/trials")).text();
    assert.match(html, /id="changes"[^>]*hx-get="\/changes\?since=\d+"/);
    assert.not.match(html, /scan-progress|Reload/);
  },
);

s("search indexes in slices that resume, and ends where one full sync does", () => {
  const rows = before.store.rows();
  const textOf = (r: (typeof rows)[number]) => before.store.searchText(r);
  const whole = new RowSearch();
  whole.sync(1, rows, textOf);
  const sliced = new RowSearch();
  let calls = 0;
  while (!sliced.syncSlice(1, rows, textOf, 0)) calls++;
  assert.ok(calls > 10, `${calls} slices`);
  assert.is(sliced.size, rows.length);
  const typo = sliced.search("moderte anxious").map((h) => h.row.id);
  assert.ok(typo.length > 0, "one typo in a word of six letters or more is forgiven");
  assert.equal(typo, sliced.search("moderate anxious").map((h) => h.row.id));
  for (const q of ["afib", "case-lock", "stock", "GLOBAL-01"]) {
    assert.equal(sliced.search(q).map((h) => h.row.id), whole.search(q).map((h) => h.row.id), q);
  }
});

s.run();
