/**
 * The figures job, run in a child process: aggregate.ts's own `aggregateArms` over the arms, so the Arms page
 * shows exactly what `deno task aggregate` prints, the dashboard's request thread never waits for it, and
 * whatever aggregate holds in memory (whole ledgers, trajectories) never counts against the dashboard's own.
 *
 * stdin: one FiguresJob as JSON; stdout: `{ok, result, fresh}` or `{ok: false, error}` as JSON.
 */
import { aggregateArms, type AggregateOptions, type ArmInput } from "../../lib/results/aggregate.ts";
import { countAt, type ToolCount } from "../../lib/results/tool_counts.ts";
import { wantsCalls } from "../../lib/results/trial_facts.ts";
import { findTrials } from "../../lib/results/trials.ts";

/** What the page asks for. */
export interface FiguresJob {
  arms: ArmInput[];
  opts: Pick<AggregateOptions, "recipe" | "prices" | "control">;
}

/**
 * Runs one job on this thread: reads each trajectory once (listing its χ-World calls where run integrity
 * needs them, as aggregate.ts itself would), then aggregates; returns the figures and every trial's counts
 * (without the call lists) for the Trials table.
 */
export function runFigures(
  job: FiguresJob,
): { result: ReturnType<typeof aggregateArms>; fresh: [string, ToolCount][] } {
  const counts = new Map<string, ToolCount>();
  for (const ref of findTrials(job.arms.flatMap((a) => a.roots))) {
    if (ref.trajectory && !counts.has(ref.trajectory)) {
      counts.set(ref.trajectory, countAt(ref.trajectory, { calls: wantsCalls(ref) }));
    }
  }
  const result = aggregateArms(job.arms, { ...job.opts, toolCounts: counts });
  const fresh = [...counts].map(([path, c]): [string, ToolCount] => {
    if ("error" in c) return [path, c];
    const { calls: _calls, ...rest } = c;
    return [path, rest];
  });
  return { result, fresh };
}

/** Entry: a job on stdin, its answer on stdout. */
export async function main(): Promise<number> {
  let answer: unknown;
  try {
    const job = JSON.parse(await new Response(Deno.stdin.readable).text()) as FiguresJob;
    answer = { ok: true, ...runFigures(job) };
  } catch (err) {
    answer = { ok: false, error: (err as Error).message };
  }
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(answer)));
  return 0;
}

if (import.meta.main) Deno.exit(await main());
