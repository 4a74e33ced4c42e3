/**
 * Replay speed on the four leaderboard packets (300 trials), both default arms, ledgers and summary.json
 * written: the whole CLI as a user runs it (process start to exit), with the 1-minute load average, since the
 * 2-core machine is shared. Budget: ≤ 20 s using both cores (issue 4).
 *
 * Usage: deno run -A bench/replay.ts [--runs 3] [--workers 2]
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { cpuUsage } from "node:process";
import { join } from "node:path";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const LEADERBOARD = join(ROOT, "..", "shared", "leaderboard");
const BUDGET_S = 20;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench replay",
  summary: "Replay speed on the four leaderboard packets, both default arms, ledgers and summary written.",
  usage: ["deno run -A bench/replay.ts [--runs 3] [--workers 2]"],
  options: {
    runs: numberOption(3, "timed CLI runs (the median is reported)"),
    workers: numberOption(2, "replay workers"),
  },
  args: "none",
  example: "deno run -A bench/replay.ts --runs 3 --workers 2",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Prints each run and the median; exits 1 over budget, 0 (skipped) without the packets. */
async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const workers = String(wholeNumber(p, "workers", 1));
  if (!existsSync(LEADERBOARD)) {
    console.log(`skipped: ${LEADERBOARD} is absent`);
    return 0;
  }
  const out = mkdtempSync(join(tmpdir(), "fiable-bench-replay-"));
  const times: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const load = loadavg()[0];
      const t0 = performance.now();
      const res = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          join(ROOT, "replay.ts"),
          LEADERBOARD,
          "--out",
          out,
          "--workers",
          workers,
          "--json",
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const wall = (performance.now() - t0) / 1000;
      if (!res.success) {
        console.error(new TextDecoder().decode(res.stderr));
        return 1;
      }
      const summary = JSON.parse(new TextDecoder().decode(res.stdout));
      times.push(wall);
      console.log(
        `run ${i + 1}: ${wall.toFixed(1)} s for ${summary.trials} trials × 2 arms ` +
          `(${workers} workers, load average before ${load.toFixed(1)})`,
      );
    }
    // In-process with the same pool: CPU seconds of all threads, i.e. the wall time on idle cores × cores.
    const c0 = cpuUsage();
    const t0 = performance.now();
    await replayTrees([LEADERBOARD], { out, workers: Number(workers) });
    const c = cpuUsage(c0);
    const cpu = (c.user + c.system) / 1e6;
    console.log(
      `in-process: ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU ` +
        `(≈ ${(cpu / Math.max(1, Number(workers))).toFixed(1)} s on ${workers} idle cores)`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const m = median(times);
  console.log(`median ${m.toFixed(1)} s (budget ${BUDGET_S} s)`);
  return m <= BUDGET_S ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
