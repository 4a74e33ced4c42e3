/** The built-in sample trials: real trial-dir shape, every seat, slips the guard catches, deterministic. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleTrials, scorecardOf, writeSamples } from "../lib/samples/trials.ts";
import { findTrials, readScorecard, readTrial } from "../lib/results/trials.ts";
import { countToolCalls, readTrajectory, toolEvents } from "../lib/trajectories/atif.ts";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import { prepare } from "../demo.ts";

const trials = sampleTrials();
const s = suite("samples");

s("every seat and both arms are present", () => {
  assert.equal([...new Set(trials.map((t) => t.domain))].sort(), ["cm", "pa_provider", "pa_um"]);
  assert.equal([...new Set(trials.map((t) => t.arm))].sort(), ["checklist", "stock"]);
});

s("deterministic for a seed", () => {
  assert.equal(JSON.stringify(sampleTrials()), JSON.stringify(trials));
  assert.is.not(JSON.stringify(sampleTrials({ seed: 8 })), JSON.stringify(trials));
});

s("some trials are clean and some fail", () => {
  assert.ok(trials.some((t) => t.reward.reward === 1));
  assert.ok(trials.some((t) => t.reward.reward === 0));
});

s("the guarded arm's ledgers record denials with rule IDs and check IDs", () => {
  const denies = trials.filter((t) => t.arm === "checklist").flatMap((t) => t.ledger).filter((r) =>
    r.decision === "deny"
  );
  assert.ok(denies.length > 0);
  assert.ok(denies.every((r) => r.rules?.length && r.rules.every((h) => Array.isArray(h.checks))));
  assert.ok(trials.filter((t) => t.arm === "stock").every((t) => t.ledger.length === 0));
});

s("the guard's rescue shows: checklist passes at least as often as stock", () => {
  const rate = (arm: string) => trials.filter((t) => t.arm === arm && t.reward.reward === 1).length;
  assert.ok(rate("checklist") >= rate("stock"), `${rate("checklist")} vs ${rate("stock")}`);
});

s("a denied call reaches the agent as an error result carrying the reason", () => {
  const t = trials.find((x) => x.ledger.some((r) => r.decision === "deny"))!;
  const steps = t.trajectory.steps as {
    observation?: { results: { content: string; extra: { tool_result_is_error: boolean } }[] };
  }[];
  const denied = steps.flatMap((st) => st.observation?.results ?? []).find((r) =>
    r.content.startsWith("fiable-guard blocked")
  );
  assert.ok(denied);
  assert.is(denied!.extra.tool_result_is_error, true);
});

s("scorecards agree with rewards", () => {
  for (const t of trials) assert.is(t.scorecard.binary_reward, t.reward.reward, t.trialName);
  const card = scorecardOf("cm", ["cm.care_plan.finalized"]);
  assert.equal(card.failed_checks, ["cm.care_plan.finalized"]);
});

s("written trial dirs read like real ones (trials, scorecard, ATIF v1.7, ledgers)", () => {
  const dir = mkdtempSync(join(tmpdir(), "fiable-samples-"));
  try {
    const written = writeSamples(dir);
    const refs = findTrials([dir]);
    assert.is(refs.length, written.trials);
    for (const ref of refs) {
      const summary = readTrial(ref);
      assert.equal(summary.problems, [], ref.dir);
      assert.ok(summary.passed !== null);
      assert.ok(readScorecard(ref.scorecard!).checks.length > 0);
      const t = readTrajectory(ref.trajectory!);
      assert.is(t.version, "1.7");
      assert.ok(countToolCalls(t).mcp > 0);
      assert.ok(toolEvents(t).calls.every((c) => c.tool !== null && c.answered));
      for (const l of ref.ledgers) assert.is(parseLedger(readFileSync(l, "utf8")).corrupt, 0);
    }
    assert.ok(refs.some((r) => r.ledgers.length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

s("the demo prepares samples, replay ledgers and the aggregate without a server", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fiable-demo-"));
  try {
    const data = await prepare(join(dir, "demo"));
    assert.ok(data.trials > 0);
    const agg = JSON.parse(readFileSync(join(data.results, "aggregate.json"), "utf8"));
    assert.ok(agg);
    assert.ok(findTrials([data.samples]).length === data.trials);
    assert.ok(data.lines.some((l) => l.startsWith("replayed")));
    assert.ok(
      data.lines.includes("verified the guard ran: checklist ok (18/18 full coverage), stock ok (no hooks)"),
      data.lines.join("\n"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

s.run();
