/**
 * Aggregation speed on the four leaderboard packets (300 trials), tool calls counted from every trajectory:
 * the whole CLI as a user runs it (process start to exit), and the in-process aggregateArms call.
 * Budget: ≤ 10 s on the 2-core machine (issue 5).
 *
 * Usage: deno run -A bench/aggregate.ts [--runs 3]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { cpuUsage } from "node:process";
import { join } from "node:path";
import { aggregateArms } from "../lib/results/aggregate.ts";
import { parsePrices } from "../lib/results/cost.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const LEADERBOARD = join(ROOT, "..", "shared", "leaderboard");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench aggregate",
  summary: "Aggregation speed on the four leaderboard packets: the whole CLI and the in-process call.",
  usage: ["deno run -A bench/aggregate.ts [--runs 3]"],
  options: {
    runs: numberOption(3, "timed CLI runs (the median is reported)"),
  },
  args: "none",
  example: "deno run -A bench/aggregate.ts --runs 3",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Prints the median CLI and in-process times; exits 1 over budget, 0 (skipped) without the packets. */
async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  if (!existsSync(LEADERBOARD)) {
    console.log(`skipped: ${LEADERBOARD} is absent`);
    return 0;
  }
  const packets = readdirSync(LEADERBOARD).filter((d) => existsSync(join(LEADERBOARD, d, "results.csv")))
    .sort();
  const roots = packets.map((p) => join(LEADERBOARD, p));
  const out = mkdtempSync(join(tmpdir(), "fiable-bench-agg-"));
  const cli: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const res = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", join(ROOT, "aggregate.ts"), ...roots, "--recipe", "B", "--out", out],
        stdout: "null",
        stderr: "piped",
      }).output();
      cli.push((performance.now() - t0) / 1000);
      if (!res.success && res.code !== 1) {
        console.error(new TextDecoder().decode(res.stderr));
        return 1;
      }
    }
    const prices = await parsePrices(readFileSync(join(ROOT, "data", "prices.yaml"), "utf8"));
    const inproc: number[] = [], cpu: number[] = [];
    let trials = 0, calls = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now(), c0 = cpuUsage();
      const res = aggregateArms(packets.map((p, j) => ({ name: p, roots: [roots[j]] })), { prices });
      inproc.push((performance.now() - t0) / 1000);
      const c = cpuUsage(c0);
      cpu.push((c.user + c.system) / 1e6);
      const overall = res.rows.filter((r) => r.domain === "overall");
      trials = overall.reduce((n, r) => n + r.n_trials, 0);
      calls = overall.reduce((n, r) => n + r.n_trajectories, 0);
    }
    const m = median(cli);
    console.log(
      `packets: ${packets.length}, trials: ${trials}, trajectories counted: ${calls}, runs: ${runs}`,
    );
    console.log(`CLI (deno run -A aggregate.ts <4 packets> --recipe B), median: ${m.toFixed(2)} s`);
    console.log(
      `in-process aggregateArms, median: ${median(inproc).toFixed(2)} s wall, ${
        median(cpu).toFixed(2)
      } s CPU`,
    );
    console.log(
      `load average while measuring: ${loadavg().map((l) => l.toFixed(1)).join(" ")} (2 cores shared)`,
    );
    console.log(m <= 10 ? "within the 10 s budget" : "OVER the 10 s budget");
    return m <= 10 ? 0 : 1;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
