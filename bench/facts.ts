/**
 * The guard's facts in result.json (issue 41: "bounded in size, a few KB"): their size on every guarded sample
 * trial and on a worst case (every rule and judge blocking in 500 calls, 200 API-error endings), and how long the
 * harness's `node fiable_guard.cjs facts --trial DIR` takes on the host after a trial (the Node bundle, built now).
 *
 * Usage: deno run -A bench/facts.ts [--runs 3]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writeSamples } from "../lib/samples/trials.ts";
import { findTrials } from "../lib/results/trials.ts";
import { readFacts } from "../lib/results/trial_facts.ts";
import { ruleSetIds, summariseGuard } from "../lib/results/guard_summary.ts";
import { FACTS_MAX_BYTES } from "../lib/results/guard_facts.ts";
import { loadFactsReader } from "../lib/results/guard_facts_reader.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import { bundleGuard } from "../bundle.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench facts",
  summary: "The guard's facts: size on the sample trials and a worst case, and the facts command's time.",
  usage: ["deno run -A bench/facts.ts [--runs 3]"],
  options: { runs: numberOption(3, "timed runs of the facts command per trial (the median is reported)") },
  args: "none",
  example: "deno run -A bench/facts.ts --runs 3",
};

function quantiles(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${s[0]}, median ${s[Math.floor(s.length / 2)]}, max ${s.at(-1)}`;
}

/** The worst case: every rule and judge denying 500 calls with long messages, and 200 API-error endings. */
function worstSize(dir: string): number {
  const f = readFacts(findTrials([dir])[0]);
  const all = ruleSetIds().map((id) => ({ id, checks: [], message: "x".repeat(500) }));
  const rec = (i: number, fields: Partial<LedgerRecord>): LedgerRecord => ({
    v: 1,
    t: new Date(Date.UTC(2026, 11, 1, 10, 0, i)).toISOString(),
    session: `s-${i}`,
    arm: "critic",
    event: "pre",
    decision: "deny",
    ...fields,
  });
  f.ledgers[0].records.push(
    ...Array.from({ length: 500 }, (_, i) => rec(i, { rules: all, tool: "determination.finalize" })),
    ...Array.from(
      { length: 200 },
      (_, i) => rec(i, { event: "stop-fail", decision: "record", error: "rate_limit" }),
    ),
  );
  const build = { commit: "0".repeat(40), bundle_sha256: "0".repeat(64) };
  return JSON.stringify(summariseGuard(f, { build, ledgerDigest: "0".repeat(64) })).length;
}

async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  await loadFactsReader();
  const tmp = mkdtempSync(join(tmpdir(), "fiable-bench-facts-"));
  try {
    writeSamples(join(tmp, "samples"));
    const guarded = findTrials([join(tmp, "samples", "checklist")]);
    const bundle = await bundleGuard(join(tmp, "fiable-guard.cjs"));
    const sizes: number[] = [];
    const times: number[] = [];
    for (const ref of guarded) {
      const each: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const out = await new Deno.Command("node", {
          args: [bundle, "facts", "--trial", ref.dir],
          stdout: "piped",
          stderr: "piped",
        }).output();
        each.push(Math.round(performance.now() - t0));
        if (!out.success) {
          throw new Error(`facts failed on ${ref.dir}: ${new TextDecoder().decode(out.stderr)}`);
        }
        if (i === 0) sizes.push(new TextDecoder().decode(out.stdout).trim().length);
      }
      times.push(each.sort((a, b) => a - b)[Math.floor(each.length / 2)]);
    }
    console.log(`guard facts on ${guarded.length} guarded sample trials (load ${loadavg()[0].toFixed(1)}):`);
    console.log(`  size: ${quantiles(sizes)} bytes of JSON (cap ${FACTS_MAX_BYTES})`);
    console.log(
      `  worst case (every rule blocking, 200 API-error endings): ${
        worstSize(join(tmp, "samples", "checklist"))
      } bytes`,
    );
    console.log(
      `  node fiable-guard.cjs facts --trial DIR: ${quantiles(times)} ms (median of ${runs} per trial)`,
    );
    return 0;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

if (import.meta.main) Deno.exit(await main(Deno.args));
