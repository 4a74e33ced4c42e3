/**
 * The figures job, run in a child process: counts the tool calls of trajectories not yet counted, then runs
 * aggregate.ts's own `aggregateArms` over the arms, so the Arms page shows exactly what `deno task aggregate`
 * prints, the dashboard's request thread never waits for it, and whatever aggregate holds in memory (whole
 * ledgers, trajectories) never counts against the dashboard's own.
 *
 * stdin: one FiguresJob as JSON; stdout: `{ok, result, fresh}` or `{ok: false, error}` as JSON.
 */
import { aggregateArms, type AggregateOptions, type ArmInput } from "../lib/aggregate.ts";
import { countAt, type ToolCount } from "../lib/tool_counts.ts";

/** What the page asks for. */
export interface FiguresJob {
  arms: ArmInput[];
  opts: Pick<AggregateOptions, "recipe" | "prices" | "control">;
  /** Counts already known, by trajectory path. */
  known: [string, ToolCount][];
  /** Trajectories to count first. */
  count: string[];
}

/** Runs one job on this thread. */
export function runFigures(job: FiguresJob) {
  const counts = new Map(job.known);
  const fresh: [string, ToolCount][] = [];
  for (const path of job.count) {
    if (counts.has(path)) continue;
    const c = countAt(path);
    counts.set(path, c);
    fresh.push([path, c]);
  }
  const result = aggregateArms(job.arms, { ...job.opts, toolCounts: counts });
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
