/**
 * The resident guard's warm-up (lib/guard/resident/warm.ts): it runs every step for each arm, one per tick, and a
 * failure ends it with a report, never a rejection. tests/serve.ts checks a real guard warms without a file.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ARMS } from "../lib/guard/engine/record.ts";
import { DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { exampleRecords, warmUp } from "../lib/guard/resident/warm.ts";
import { RULES } from "../rules/mod.ts";

const s = suite("warm");

s("the warm-up runs to its end for every arm that decides, one step per tick", async () => {
  for (const arm of ARMS.filter((a) => a !== "stock")) {
    let ticks = 0;
    const report = await warmUp({ arm, bounds: DEFAULT_BOUNDS }, (step) => {
      ticks++;
      step();
    }, 2);
    assert.is(report.error, undefined, `${arm}: ${report.error}`);
    assert.is(report.steps, ticks, arm);
    assert.ok(report.steps > 10 && report.longestStepMs <= report.ms, JSON.stringify(report));
  }
});

s("an error ends the warm-up with a report that says it, and the promise still resolves", async () => {
  const broken = { arm: "critic" as const, bounds: null as unknown as typeof DEFAULT_BOUNDS };
  const report = await warmUp(broken, (step) => step(), 1);
  assert.ok(report.error, JSON.stringify(report));
  assert.ok(report.steps >= 1, "the fold steps before the failing decision ran");
  const unset = await warmUp(null as unknown as typeof broken, (step) => step(), 1);
  assert.ok(unset.error && unset.steps === 0, "a failure before the first step is reported too");
});

s("the warm-up session is every rule example's records and pending call, under its own session", () => {
  const records = exampleRecords("w");
  const examples = RULES.reduce((n, r) => n + r.valid.length + r.invalid.length, 0);
  assert.is(records.filter((r) => r.event === "pre").length >= examples, true);
  assert.ok(records.every((r) => r.session === "w"));
});

s.run();
