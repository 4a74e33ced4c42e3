/**
 * verify speed: the whole CLI over the ten real packets (700 trials, unguarded: bad input and packet checks),
 * and over an ablation-sized tree of guarded sample trials (4 arms, 900 trials, every trajectory's χ-World
 * calls matched against its ledger). No budget is set by an issue; the figures go in docs/measured.md.
 *
 * Usage: deno run -A bench/verify.ts [--runs 3]
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writeSamples } from "../lib/samples/trials.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const SETS = [join(ROOT, "..", "shared", "leaderboard"), join(ROOT, "..", "shared", "leaderboard-extra")];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function cli(roots: string[], runs: number): Promise<{ seconds: number; code: number }> {
  const times: number[] = [];
  let code = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", join(ROOT, "verify.ts"), ...roots],
      stdout: "null",
      stderr: "null",
    }).output();
    times.push((performance.now() - t0) / 1000);
    code = out.code;
  }
  return { seconds: median(times), code };
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench verify",
  summary: "verify speed over the ten real packets and over 900 guarded sample trials.",
  usage: ["deno run -A bench/verify.ts [--runs 3]"],
  options: {
    runs: numberOption(3, "timed CLI runs (the median is reported)"),
  },
  args: "none",
  example: "deno run -A bench/verify.ts --runs 3",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Prints the median CLI times. */
async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const tmp = mkdtempSync(join(tmpdir(), "fiable-bench-verify-"));
  try {
    const sets = SETS.filter(existsSync);
    if (sets.length) {
      const r = await cli(sets, runs);
      console.log(
        `verify over the real packets (${sets.length} sets, 700 trials): ${r.seconds.toFixed(2)} s median`,
      );
    } else console.log(`skipped the packets: ${SETS.join(", ")} absent`);
    const written = writeSamples(tmp, { attempts: 25, arms: ["stock", "plan", "checklist", "critic"] });
    const r = await cli([tmp], runs);
    console.log(
      `verify over ${written.trials} sample trials (4 arms, 3 guarded): ${
        r.seconds.toFixed(2)
      } s median, exit ${r.code}`,
    );
    console.log(
      `runs: ${runs}; load average: ${loadavg().map((l) => l.toFixed(1)).join(" ")} (2 cores shared)`,
    );
    return r.code === 0 ? 0 : 1;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
