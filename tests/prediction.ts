/**
 * The pilot prediction: the paragraph names its source and its packets, picks the model's own Claude Code packet
 * when there is one, converts in-time rescues to provider points; and data/pilot_prediction.json is what
 * scripts/pilot_prediction.ts makes from the real packets now (a rule or the doom model that moves the replay,
 * or a change to what the power is computed from, fails here until it is regenerated).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync } from "node:fs";
import { closestPackets, type PilotPrediction, predictionParagraph } from "../lib/install/prediction.ts";
import { OUTPUT, packetPredictions } from "../scripts/pilot_prediction.ts";
import { PACKET_SETS, pilotDigest, pilotRuns } from "../scripts/power.ts";

const s = suite("prediction");

const packet = (id: string, model: string, upper: number, agent = "claude-code") => ({
  id,
  agent,
  model,
  trials: 25,
  passed: 6,
  failed: 19,
  not_observable: 0,
  rescue_in_time: { upper, strict: upper - 1 },
  submit_expected_passed: 5,
  checkpoint_touched: 5,
});
const PREDICTION: PilotPrediction = {
  generated_by: "test",
  packets: [
    packet("2026-05-28-claude-opus-4-8", "anthropic/claude-opus-4-8", 2),
    packet("2026-07-06-sonnet-5-claude-code", "anthropic/claude-sonnet-5", 5),
    packet("2026-07-24-gpt-5-6-sol-codex", "openai/gpt-5.6-sol", 9, "codex"),
  ],
  pilot: {
    baseline: 0.28,
    baseline_packets: [],
    inputs: "x",
    powers: [{ attempts: 1, trials: 50, mde_shift: 0.3366, mde_rescue: 0.3644, false_go: 0.022 }],
  },
};

s("another model: every Claude Code packet stands in, each named, never another harness's", () => {
  const { packets, why } = closestPackets(PREDICTION, "anthropic/claude-opus-5");
  assert.equal(packets.map((p) => p.id), ["2026-05-28-claude-opus-4-8", "2026-07-06-sonnet-5-claude-code"]);
  assert.match(why, /no Claude Code packet of anthropic\/claude-opus-5 has its trials at hand/);
  const text = predictionParagraph(PREDICTION, { model: "anthropic/claude-opus-5", attempts: 1, trials: 50 });
  assert.match(text, /^What replay predicts for the pilot \(data\/pilot_prediction\.json, from `deno run/);
  assert.match(
    text,
    /2026-05-28-claude-opus-4-8 \(anthropic\/claude-opus-4-8, 25 provider trials\): in 2 of/,
  );
  assert.match(text, /asks in 5 of its 5 passing trials that expected a submission \(100%\)/);
  assert.match(text, /that is \+8 to \+20 provider pass@1 points at most/);
  assert.match(text, /about \+34 to \+36 provider pass@1 points or more over stock's 28\.0%/);
  assert.match(text, /A replay is a shadow/);
  assert.not.match(text, /sol-codex/);
});

s("the model's own Claude Code packet alone, when it is at hand", () => {
  const text = predictionParagraph(PREDICTION, {
    model: "anthropic/claude-sonnet-5",
    attempts: 1,
    trials: 50,
  });
  assert.match(text, /the Claude Code packet of anthropic\/claude-sonnet-5 itself/);
  assert.not.match(text, /opus-4-8/);
  assert.match(text, /that is \+20 provider pass@1 points at most/);
});

s("attempts the power script did not compute are said so, not guessed", () => {
  const text = predictionParagraph(PREDICTION, { model: "x/y", attempts: 3, trials: 150 });
  assert.match(text, /its power with 3 attempts per task is not computed/);
});

s("data/pilot_prediction.json is what scripts/pilot_prediction.ts makes from the real packets", async () => {
  const file = JSON.parse(readFileSync(OUTPUT, "utf8")) as PilotPrediction;
  if (!PACKET_SETS.some(existsSync)) {
    console.warn(`skipped: ${PACKET_SETS.join(", ")} absent (needs ../shared beside the repo)`);
    return;
  }
  const stale = "data/pilot_prediction.json is stale: run `deno run -A scripts/pilot_prediction.ts`";
  assert.equal(file.packets, await packetPredictions(), stale);
  const run = pilotRuns();
  assert.is(file.pilot.inputs, pilotDigest(run.tasks, run.baseline), stale);
});

s.run();
