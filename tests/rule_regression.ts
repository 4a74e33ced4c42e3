/** Rule regression: snapshot round trip, lost catches, and the tuning packets held to the committed baseline. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BASELINE,
  lostCatches,
  passingFires,
  readSnapshot,
  type Snapshot,
  snapshot,
  snapshotJson,
  TUNING,
} from "../scripts/rule_regression.ts";
import { replayTrees } from "../lib/replay.ts";

const s = suite("rule regression");
const dir = mkdtempSync(join(tmpdir(), "rule-regression-"));
s.after(() => rmSync(dir, { recursive: true, force: true }));

const SNAP: Snapshot = {
  arm: "checklist",
  trials: {
    "p/pa_provider/a": { passed: false, fires: ["PP-01", "PP-05"], caught: ["PP-01"] },
    "p/pa_um/b": { passed: true, fires: ["UM-08"], caught: [] },
    "p/cm/c": { passed: false, fires: ["closure"], caught: ["closure"] },
  },
};

s("snapshotJson ↔ readSnapshot round trip, one trial per line", () => {
  const file = join(dir, "snap.json");
  writeFileSync(file, snapshotJson(SNAP));
  assert.equal(readSnapshot(file), SNAP);
  assert.match(readFileSync(file, "utf8"), /"p\/pa_provider\/a": "failed PP-01\* PP-05",\n/);
});

s("a catch the current snapshot lacks is lost; a new fire is not", () => {
  const now: Snapshot = {
    arm: "checklist",
    trials: {
      "p/pa_provider/a": { passed: false, fires: ["PP-05", "UM-09"], caught: ["UM-09"] },
      "p/pa_um/b": { passed: true, fires: [], caught: [] },
    },
  };
  assert.equal(lostCatches(SNAP, now), [
    { trial: "p/pa_provider/a", rule: "PP-01" },
    { trial: "p/cm/c", rule: "closure" },
  ]);
  assert.equal(lostCatches(SNAP, SNAP), []);
  assert.equal(passingFires(SNAP), { "UM-08": ["p/pa_um/b"] });
});

s("a missing or shapeless baseline says how to write one", () => {
  assert.throws(() => readSnapshot(join(dir, "absent.json")), /Write one with .*--write/);
  writeFileSync(join(dir, "bad.json"), "{}");
  assert.throws(() => readSnapshot(join(dir, "bad.json")), /no "trials" object/);
});

s("the tuning packets keep every catch of the committed baseline", async () => {
  if (!existsSync(TUNING)) {
    console.log(`  (skipped: ${TUNING} is absent)`);
    return;
  }
  const baseline = readSnapshot(BASELINE);
  const current = snapshot(await replayTrees([TUNING], { arms: ["checklist"], out: null }));
  assert.equal(Object.keys(current.trials).length, Object.keys(baseline.trials).length);
  assert.equal(lostCatches(baseline, current), []);
});

s.run();
