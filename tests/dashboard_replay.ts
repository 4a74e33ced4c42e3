/**
 * One computation everywhere: on each real packet in ../shared, the dashboard's replay figures (the Arms
 * page's would-have-blocked table, the Rules page's replay columns, its HTML) equal `deno task replay`'s own
 * summary of the same replay, arm by arm, not-observable trials included; the Checks page's in-time counts
 * equal summarizeChecks over replay's own verdicts of its trials, and each opens exactly the trials it counts;
 * and the Trials page's rule filter finds the trials a replay rule fired in.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { replayArmSummary, replayCheckCounts, replayFigures } from "../dashboard/read/figures.ts";
import { armVerdict, summarizeChecks } from "../lib/trajectories/verdict.ts";
import { Store } from "../dashboard/read/store.ts";
import { filterRows, parseQuery } from "../dashboard/pages/trials/table.ts";
import { createApp } from "../dashboard/app.tsx";

const SHARED = join(import.meta.dirname ?? ".", "..", "..", "shared");
const PACKETS = ["leaderboard", "leaderboard-extra"].flatMap((group) => {
  const dir = join(SHARED, group);
  return existsSync(dir)
    ? readdirSync(dir).filter((name) => !name.includes(".")).sort().map((name) => join(dir, name))
    : [];
});

const s = suite("dashboard replay figures = replay's, per packet");
const root = mkdtempSync(join(tmpdir(), "dash-replay-"));
s.after(() => rmSync(root, { recursive: true, force: true }));

s("the ten packets are there", () => {
  assert.is(
    PACKETS.length,
    10,
    `Cannot compare the dashboard with replay: ${SHARED} holds ${PACKETS.length} packets`,
  );
});

for (const packet of PACKETS) {
  const name = packet.split("/").pop()!;
  s(name, async () => {
    const out = join(root, name);
    const report = await replayTrees([packet], { arms: ["checklist", "critic"], out, workers: 1 });
    const store = new Store({ logs: [packet], results: [out], duckdb: false });
    store.refresh({ scanMs: 0 });
    const rows = store.rows();
    const figures = replayFigures(rows);
    // A packet is one arm unless its trials ran as several agents (one packet ran two): then one each.
    const ranAs = new Set(rows.filter((r) => r.source === "trial").map((r) => r.arm));
    for (const arm of report.arms) {
      const mine = figures.filter((f) => f.replay === arm);
      assert.is(mine.length, ranAs.size, `${arm}: one real arm for each agent the packet's trials ran as`);
      const cli = { ...report.summary[arm]!, trials: report.summary[arm]!.trials - report.unreadable.length };
      const all = { ...cli, unreadable: 0 };
      if (mine.length === 1) assert.equal(mine[0].summary, all, `${name} ${arm}: Arms page = replay`);
      assert.is(mine.reduce((n, f) => n + f.summary.trials, 0), all.trials, `${name} ${arm}: every trial`);
      assert.ok(mine.every((f) => f.withoutVerdict === 0));
      assert.equal(replayArmSummary(rows, arm), all, `${name} ${arm}: Rules page = replay`);
      const checks = summarizeChecks(report.trials.map((t) => ({
        passed: t.passed,
        observable: t.observable !== false,
        verdict: armVerdict(t, arm),
      })));
      assert.equal(replayCheckCounts(rows, arm), checks, `${name} ${arm}: Checks page = replay`);
      for (const [id, c] of Object.entries(checks)) {
        for (const [timing, n] of [["in-time", c.in_time], ["too-late", c.too_late]] as const) {
          const found = filterRows(rows, parseQuery({ check: id, via: arm, timing }));
          assert.is(found.length, n, `${name} ${arm} ${id}: the ${timing} link opens its trials`);
        }
      }
      for (const id of Object.keys(report.summary[arm]!.by_rule)) {
        const found = filterRows(rows, parseQuery({ rule: id }));
        assert.ok(
          found.length >= report.summary[arm]!.by_rule[id].fires_failed,
          `${name}: rule filter ${id}`,
        );
      }
    }
    const { app } = createApp(store, { figureWaitMs: 0 });
    const html = await (await app.request("/")).text();
    const notObservable = report.summary.checklist!.not_observable;
    assert.match(html, `<td class="not-observable">${notObservable}</td>`);
    const page = await (await app.request("/checks")).text();
    for (const arm of report.arms) {
      for (const [id, c] of Object.entries(replayCheckCounts(rows, arm))) {
        const row = page.slice(page.indexOf(`<tr id="check-${id}"`)).split("</tr>")[0]
          .replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
        const none = c.failed - c.in_time - c.too_late;
        assert.match(
          row,
          `${c.in_time} in time ${c.too_late} too late ${none} none of ${c.failed}`,
          `${name} ${arm} ${id}`,
        );
      }
    }
  });
}

s.run();
