/**
 * data/pilot_prediction.json, generated from the real packets (never written by hand): what `install
 * experiments` and run.sh print beside the pilot's price (lib/install/prediction.ts). Every Claude Code packet in
 * ../shared/leaderboard and ../shared/leaderboard-extra has its provider trials replayed in the critic arm (the
 * failed trials a block comes in time for, the passing submit-expected trials the disposition checkpoint asks
 * in), and the pilot's power comes from scripts/power.ts (the provider gain its go rule detects with 80% power,
 * with 1 and 2 attempts). tests/prediction.ts fails when the file is stale: a rule, a judge or the doom model
 * moved the replay, or the packets, prices or power script changed.
 *
 *   deno run -A scripts/pilot_prediction.ts [--stdout-only]    (about 15 s)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseResultsCsv } from "../lib/results/packet.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { summarize } from "../lib/trajectories/verdict.ts";
import { judgeReport } from "../lib/results/judge_figures.ts";
import type { PacketPrediction, PilotPower, PilotPrediction } from "../lib/install/prediction.ts";
import { calibrate, PACKET_SETS, PILOT_DESIGN, pilotDigest, pilotRows, pilotRuns } from "./power.ts";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
/** The generated file. */
export const OUTPUT = join(ROOT, "data", "pilot_prediction.json");

/** The Claude Code packets in the sets: their folder and results.csv's agent and model. */
function claudeCodePackets(sets: string[]): { id: string; dir: string; agent: string; model: string }[] {
  const out: { id: string; dir: string; agent: string; model: string }[] = [];
  for (const set of sets) {
    if (!existsSync(set)) continue;
    for (const id of readdirSync(set).sort()) {
      const csv = join(set, id, "results.csv");
      if (!existsSync(csv)) continue;
      const row = parseResultsCsv(readFileSync(csv, "utf8")).find((r) => r.domain === "overall");
      if (row?.agent === "claude-code") {
        out.push({ id, dir: join(set, id), agent: row.agent, model: row.model });
      }
    }
  }
  return out;
}

/** Each Claude Code packet's provider trials replayed in the critic arm. */
export async function packetPredictions(sets: string[] = PACKET_SETS): Promise<PacketPrediction[]> {
  const out: PacketPrediction[] = [];
  for (const p of claudeCodePackets(sets)) {
    const report = await replayTrees([p.dir], { arms: ["critic"], out: null, workers: 1 });
    const trials = report.trials.filter((t) => t.domain === PILOT_DESIGN.domain);
    const bad = report.unreadable.filter((u) => u.dir.includes(`/${PILOT_DESIGN.domain}/`)).length;
    const sum = summarize(trials, bad, "critic");
    const checkpoint = judgeReport(trials).checkpoints.find((c) => c.id === "CHECKPOINT-01");
    out.push({
      id: p.id,
      agent: p.agent,
      model: p.model,
      trials: sum.trials,
      passed: sum.passed,
      failed: sum.failed,
      not_observable: sum.not_observable,
      rescue_in_time: sum.rescue_estimate,
      submit_expected_passed: checkpoint?.submit_expected_passed ?? 0,
      checkpoint_touched: checkpoint?.submit_expected_passed_asked ?? 0,
    });
  }
  return out;
}

const round = (x: number | null) => x === null ? null : Math.round(x * 1e4) / 1e4;

/** The pilot's power per attempts, as scripts/power.ts computes it for the protocol. */
export async function pilotPowers(): Promise<PilotPrediction["pilot"] | null> {
  const run = pilotRuns();
  if (!run.baseline.length) return null;
  const baseline = run.baseline.reduce((a, b) => a + b.rate, 0) / run.baseline.length;
  const rows = await pilotRows(calibrate(run.tasks, baseline));
  const powers: PilotPower[] = rows.map((r) => ({
    attempts: r.attempts,
    trials: r.trials,
    mde_shift: round(r.boot.shift),
    mde_rescue: round(r.boot.rescue),
    false_go: round(r.falseGo)!,
  }));
  return {
    baseline: round(baseline)!,
    baseline_packets: run.baseline.map((b) => b.packet),
    inputs: pilotDigest(run.tasks, run.baseline),
    powers,
  };
}

/** The file's text. */
export function predictionText(p: PilotPrediction): string {
  return JSON.stringify(p, null, 2) + "\n";
}

/** Entry: compute, print and write data/pilot_prediction.json (unless --stdout-only). */
export async function main(args: string[]): Promise<number> {
  const packets = await packetPredictions();
  const pilot = await pilotPowers();
  if (!packets.length || !pilot) {
    console.error(
      `Cannot build the pilot prediction: no Claude Code packet in ${PACKET_SETS.join(" or ")}. ` +
        "Put the real packets in ../shared.",
    );
    return 1;
  }
  const text = predictionText({ generated_by: "scripts/pilot_prediction.ts", packets, pilot });
  console.log(text);
  if (!args.includes("--stdout-only")) writeFileSync(OUTPUT, text);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
