/**
 * Replay speed on the four leaderboard packets (300 trials), both default arms, ledgers and summary.json
 * written: the whole CLI as a user runs it (process start to exit), with the 1-minute load average, since the
 * 2-core machine is shared. Budget: ≤ 20 s using both cores (issue 4).
 *
 * `--size`: what one replay of the ten packets (../shared/leaderboard and ../shared/leaderboard-extra, 700
 * trials, both default arms) leaves in its --out, by default and with --ledgers: bytes, files and wall time.
 *
 * Usage: deno run -A bench/replay.ts [--runs 3] [--workers 2] [--size]
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { cpuUsage } from "node:process";
import { join } from "node:path";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const LEADERBOARD = join(ROOT, "..", "shared", "leaderboard");
const EXTRA = join(ROOT, "..", "shared", "leaderboard-extra");
const BUDGET_S = 20;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench replay",
  summary: "Replay speed on the four leaderboard packets, both default arms, ledgers and summary written.",
  usage: ["deno run -A bench/replay.ts [--runs 3] [--workers 2] [--size]"],
  options: {
    runs: numberOption(3, "timed CLI runs (the median is reported)"),
    workers: numberOption(2, "replay workers"),
    size: {
      type: "boolean",
      description: "instead: the output of the ten packets' replay, by default and with --ledgers",
    },
  },
  args: "none",
  example: "deno run -A bench/replay.ts --runs 3 --workers 2",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Bytes and files below a folder. */
function footprint(dir: string): { bytes: number; files: number } {
  let bytes = 0, files = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    bytes += statSync(join(e.parentPath, e.name)).size;
    files++;
  }
  return { bytes, files };
}

/** Runs the replay CLI with `--json`: its wall time and trial count, or null (its stderr printed) on failure. */
async function replayCli(args: string[]): Promise<{ wall: number; trials: number } | null> {
  const t0 = performance.now();
  const res = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "replay.ts"), ...args, "--json"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wall = (performance.now() - t0) / 1000;
  if (!res.success) {
    console.error(new TextDecoder().decode(res.stderr));
    return null;
  }
  return { wall, trials: JSON.parse(new TextDecoder().decode(res.stdout)).trials };
}

/** One CLI replay of the ten packets per output mode; prints what each left in its --out. */
async function measureSize(workers: string): Promise<number> {
  if (!existsSync(LEADERBOARD) || !existsSync(EXTRA)) {
    console.log(`skipped: ${LEADERBOARD} or ${EXTRA} is absent`);
    return 0;
  }
  for (const extra of [[], ["--ledgers"]]) {
    const out = mkdtempSync(join(tmpdir(), "fiable-bench-replay-size-"));
    try {
      const run = await replayCli([LEADERBOARD, EXTRA, "--out", out, "--workers", workers, ...extra]);
      if (!run) return 1;
      const { wall, trials } = run;
      const { bytes, files } = footprint(out);
      console.log(
        `${extra.length ? "--ledgers" : "default  "}: ${(bytes / 1e6).toFixed(1)} MB in ${files} files ` +
          `for ${trials} trials × 2 arms, ${wall.toFixed(1)} s (load average ${loadavg()[0].toFixed(1)})`,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  return 0;
}

/** Prints each run and the median; exits 1 over budget, 0 (skipped) without the packets. */
async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const workers = String(wholeNumber(p, "workers", 1));
  if (p.flag("size")) return measureSize(workers);
  if (!existsSync(LEADERBOARD)) {
    console.log(`skipped: ${LEADERBOARD} is absent`);
    return 0;
  }
  const out = mkdtempSync(join(tmpdir(), "fiable-bench-replay-"));
  const times: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const load = loadavg()[0];
      const run = await replayCli([LEADERBOARD, "--out", out, "--workers", workers, "--ledgers"]);
      if (!run) return 1;
      const { wall, trials } = run;
      times.push(wall);
      console.log(
        `run ${i + 1}: ${wall.toFixed(1)} s for ${trials} trials × 2 arms ` +
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
