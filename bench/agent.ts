/**
 * fiable-agent loop overhead on the e2e bed (`deno task bench agent`): a 30-turn payer run under the critic arm,
 * once as `deno run agent.ts` and once as the Node bundle; prints wall time and the in-process guard's latency
 * per pre/post decision (from the ledger's latency_ms). The scripted model answers instantly, so the wall time
 * is the agent's own overhead plus process start.
 */
import { agentBundle, cleanup, runAgentBed } from "../tests/support/agent_bed.ts";
import { PAYER_PROMPT } from "../tests/support/e2e/scenario.ts";
import { type CommandSpec, runCli } from "../lib/cli.ts";

const TURNS = 30;
const READ = { calls: [{ name: "payer_intake_hub_list_intake_queue", input: {} }] };

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench agent",
  summary:
    "fiable-agent loop overhead on the e2e bed: a 30-turn payer run under the critic arm, Deno and the Node bundle.",
  usage: ["deno run -A bench/agent.ts"],
  options: {},
  args: "none",
  example: "deno run -A bench/agent.ts",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, () => measure());
}

/** Runs both variants and prints one line each. */
async function measure(): Promise<number> {
  const started = performance.now();
  const bundle = await agentBundle();
  console.log(
    `bundle dist: ${Math.round(performance.now() - started)} ms (${Deno.statSync(bundle).size} bytes)`,
  );
  for (const [name, file] of [["deno agent.ts", undefined], ["node bundle", bundle]] as const) {
    const t = performance.now();
    const run = await runAgentBed({
      seat: "payer",
      prompt: PAYER_PROMPT,
      script: Array(TURNS).fill(READ),
      arm: "critic",
      bundle: file,
      args: ["--max-turns", String(TURNS)],
    });
    const wall = performance.now() - t;
    const pre = run.ledger.filter((r) => r.event === "pre").map((r) => r.latency_ms ?? 0);
    const post = run.ledger.filter((r) => r.event === "post").map((r) => r.latency_ms ?? 0);
    console.log(
      `${name}: ${Math.round(wall)} ms wall for ${run.summary?.turns} turns; guard pre p50 ${
        pct(pre, 0.5)
      } ms, ` +
        `p95 ${pct(pre, 0.95)} ms, max ${pct(pre, 1)} ms; post p50 ${pct(post, 0.5)} ms`,
    );
    cleanup(run);
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
