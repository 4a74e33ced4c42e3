/** Rule regression: snapshot round trip, lost catches, and the tuning packets held to the committed baseline. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { RULES } from "../rules/mod.ts";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import {
  BASELINE,
  EXTRA,
  headerText,
  lostCatches,
  passingByPacket,
  passingFires,
  passingSentence,
  readSnapshot,
  ruleFile,
  type Snapshot,
  snapshot,
  snapshotJson,
  TUNING,
  withSentence,
} from "../scripts/rule_regression.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { DESIGN } from "../scripts/power.ts";

const s = suite("rule regression");
const dir = mkdtempSync(join(tmpdir(), "rule-regression-"));
s.after(() => rmSync(dir, { recursive: true, force: true }));

const SNAP: Snapshot = {
  arm: "checklist",
  trials: {
    "p/pa_provider/a": {
      passed: false,
      fires: ["PP-01", "PP-03", "PP-05"],
      caught: ["PP-01"],
      late: ["PP-03"],
    },
    "p/pa_um/b": { passed: true, fires: ["UM-08"], caught: [], late: [] },
    "p/cm/c": { passed: false, fires: ["closure"], caught: ["closure"], late: [] },
  },
};

s("snapshotJson ↔ readSnapshot round trip, one trial per line", () => {
  const file = join(dir, "snap.json");
  writeFileSync(file, snapshotJson(SNAP));
  assert.equal(readSnapshot(file), SNAP);
  assert.match(readFileSync(file, "utf8"), /"p\/pa_provider\/a": "failed PP-01\* PP-03~ PP-05",\n/);
});

s("a catch the current snapshot lacks is lost; a new fire is not", () => {
  const now: Snapshot = {
    arm: "checklist",
    trials: {
      "p/pa_provider/a": { passed: false, fires: ["PP-05", "UM-09"], caught: ["UM-09"], late: [] },
      "p/pa_um/b": { passed: true, fires: [], caught: [], late: [] },
    },
  };
  assert.equal(lostCatches(SNAP, now), [
    { trial: "p/pa_provider/a", rule: "PP-01" },
    { trial: "p/cm/c", rule: "closure" },
  ]);
  assert.equal(lostCatches(SNAP, SNAP), []);
  assert.equal(passingFires(SNAP), { "UM-08": ["p/pa_um/b"] });
  assert.equal(passingByPacket(SNAP), { "UM-08": { p: 1 } });
});

s("a missing or shapeless baseline says how to write one", () => {
  assert.throws(() => readSnapshot(join(dir, "absent.json")), /Write one with .*--write/);
  writeFileSync(join(dir, "bad.json"), "{}");
  assert.throws(() => readSnapshot(join(dir, "bad.json")), /no "trials" object/);
});

s("withSentence adds the passing-fires sentence once, wrapped, and replaces it in place", () => {
  const source = "/**\n * A rule.\n */\nexport const x = 1;\n";
  const long = "Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): " +
    "2026-07-06-cuilinke-hermes-medguard 1, 2026-07-06-sonnet-5-claude-code 4, 2026-07-24-gpt-5-6-sol-codex 2.";
  const once = withSentence(source, long);
  assert.ok(once.split("\n").every((l) => l.length <= 110));
  assert.ok(headerText(once).endsWith(long));
  const twice = withSentence(once, long.replace("4", "5"));
  assert.is(headerText(twice), "A rule. " + long.replace("4", "5"));
});

s("the real packets: every baseline catch kept, and every rule header states its passing fires", async () => {
  if (!existsSync(TUNING)) {
    console.log(`  (skipped: ${TUNING} is absent)`);
    return;
  }
  const extra = existsSync(EXTRA);
  const report = await replayTrees([TUNING, ...(extra ? [EXTRA] : [])], { arms: ["checklist"], out: null });
  const baseline = readSnapshot(BASELINE);
  const current = snapshot(report);
  for (const trial of Object.keys(baseline.trials)) assert.ok(current.trials[trial], `${trial} was replayed`);
  assert.equal(lostCatches(baseline, current), []);
  const tuning = report.packets.filter((p) => resolve(p.packet).startsWith(resolve(TUNING) + sep));
  const trials = tuning.reduce((n, p) => n + p.summary.checklist!.trials, 0);
  const rescued = tuning.reduce((n, p) => n + p.summary.checklist!.rescue_estimate.strict, 0);
  assert.equal(
    { rescued, trials },
    DESIGN.timeAware,
    "scripts/power.ts DESIGN.timeAware is the discovery set's time-aware strict rescue bound: set it to replay's " +
      "figure and run `deno run -A scripts/power.ts`",
  );
  if (!extra) {
    console.log(`  (rule headers not checked: ${EXTRA} is absent)`);
    return;
  }
  const passing = passingByPacket(current);
  for (const rule of RULES) {
    const header = headerText(readFileSync(ruleFile(rule.meta.name), "utf8"));
    const sentence = passingSentence(passing[rule.meta.id], report);
    assert.ok(
      header.includes(sentence),
      `${rule.meta.id}: the header should say "${sentence}" (deno run -A scripts/rule_regression.ts --headers)`,
    );
  }
});

s.run();
