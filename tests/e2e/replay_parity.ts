/**
 * Scenario 8: a real trajectory re-issued through the real client. The scripted model re-issues the
 * trajectory's healthverse calls one per turn with their original ids and inputs, the stub answers each with
 * the recorded observation, and the live guard's decisions equal the replay engine's decisions for the same
 * trajectory up to and including the first block. Needs ../shared/leaderboard; skips with a message without it.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readTrajectory, taskPrompt, type ToolEvent, toolEvents } from "../../lib/trajectories/atif.ts";
import { replayArm } from "../../lib/trajectories/replay.ts";
import { detectSeat } from "../../lib/guard/engine/seat.ts";
import { runBed } from "../support/e2e/bed.ts";
import { type Handler, RawResult, ToolError } from "../support/e2e/healthverse.ts";
import { explain, preOf } from "../support/e2e/scenario.ts";

/** The leaderboard packets beside the repository. */
const LEADERBOARD = join(import.meta.dirname ?? ".", "..", "..", "..", "shared", "leaderboard");
/** A provider trial whose agent submitted before recording a determination (when written: PP-01 on call 14). */
const TRIAL = "2026-07-06-sonnet-5-claude-code/trials/pa_provider/pa_t013_t013_o002_p01_new_referr__QpYn9Rp";
const TRAJECTORY = join(LEADERBOARD, TRIAL, "agent", "trajectory.jsonl.zst");

/** The recorded observation as the server sent it: ATIF's error marker removed. */
export function recordedText(call: ToolEvent): string {
  return call.text.replace(/\n*\[error\] tool reported failure\s*$/, "");
}

/** Stub handlers that answer the recorded calls in order with their recorded observations. */
export function recordedHandlers(calls: ToolEvent[]): Record<string, Handler> {
  let next = 0;
  const handlers: Record<string, Handler> = {};
  for (const tool of new Set(calls.map((c) => c.tool!))) {
    handlers[tool] = () => {
      const call = calls[next++];
      if (!call || call.tool !== tool) {
        throw new ToolError(`replay diverged: expected ${call?.tool ?? "no call"}, got ${tool}`);
      }
      return new RawResult(recordedText(call), call.isError);
    };
  }
  return handlers;
}

const s = suite("e2e replay parity (http hooks)");

s("live decisions equal replay decisions up to the first block", async () => {
  if (!existsSync(TRAJECTORY)) {
    console.log(`  skipped: ${TRAJECTORY} is absent (needs ../shared/leaderboard beside the repository)`);
    return;
  }
  const trajectory = readTrajectory(TRAJECTORY);
  const mcpCalls = toolEvents(trajectory).calls.filter((c) => c.tool && !c.sidechain);
  const prompt = taskPrompt(trajectory);
  const replayed = replayArm("replay-parity", prompt, mcpCalls, "checklist").records
    .filter((r) => r.event === "pre");
  const cut = replayed.findIndex((r) => r.first_block);
  assert.ok(cut >= 0, "the pinned trajectory has no block under replay; pick another trial");
  const script = mcpCalls.slice(0, cut + 1).map((c) => ({
    calls: [{ name: c.raw, input: c.input, id: c.id }],
  }));
  const seat = detectSeat(prompt);
  assert.ok(seat, "the trajectory's prompt names no seat");

  const run = await runBed({
    mode: "http",
    arm: "checklist",
    seat,
    prompt,
    budgets: { stop_blocks: 0 },
    handlers: recordedHandlers(mcpCalls.slice(0, cut)),
    script: [...script, { text: "Done." }],
    timeoutMs: 90_000,
  });
  const why = explain(run);
  assert.is(run.claude.code, 0, why);
  const live = replayed.slice(0, cut + 1).map((r) => {
    const rec = preOf(run, r.tool_use_id!);
    return `${r.tool_use_id} ${r.tool} ${rec?.decision ?? "missing"} ${(rec?.rules ?? []).map((h) => h.id)}`;
  });
  const expected = replayed.slice(0, cut + 1).map((r) =>
    `${r.tool_use_id} ${r.tool} ${r.decision} ${(r.rules ?? []).map((h) => h.id)}`
  );
  assert.equal(live, expected, why);
  assert.is(run.calls.length, cut, `every call before the block reached the stub; ${why}`);
});

s.run();
