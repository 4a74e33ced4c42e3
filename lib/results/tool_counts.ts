/**
 * Tool-call counts for many trajectories (harness.md §6 recipe, via lib/trajectories/atif.ts), spread over Web Workers
 * when the runtime has them: decoding 300 zstd trajectories (~300 MB of JSON) is most of an aggregate's time.
 * On request the same read also lists the χ-World calls the guard's hooks see (run integrity, lib/results/integrity.ts).
 */
import { countToolCalls, readTrajectory, toolEvents, type Trajectory } from "../trajectories/atif.ts";

/** One χ-World tool call in a trajectory: the calls the guard's tool hooks see (lib/guard/engine/names.ts normalises them). */
export interface WorldCall {
  /** The trajectory's call id (`toolu_…`, Claude Code's tool_use_id); empty when the trajectory has none. */
  id: string;
  /** Registered `namespace.method`. */
  tool: string;
  /** The name as the harness wrote it (`mcp__<server>__<tool>`). */
  raw: string;
  /** A result was paired to the call. */
  answered: boolean;
  /** Claude Code refused the input before any hook ran (its InputValidationError): no record is due. */
  refused?: boolean;
  /** 0-based step index. */
  step: number;
}

/** A trajectory's counts (and its χ-World calls when asked for), or why it could not be read. */
export type ToolCount =
  | { all: number; mcp: number; corrupt: number; calls?: WorldCall[] }
  | { error: string };

/** Claude Code's own schema check failing a call before PreToolUse (seen on built-in tools in the packets). */
const REFUSED = /^\s*(?:<tool_use_error>)?\s*InputValidationError\b/;

/** The χ-World calls of a trajectory, in order: toolEvents' calls that name a healthverse tool. */
export function worldCalls(t: Trajectory): WorldCall[] {
  return toolEvents(t).calls.filter((c) => c.tool !== null).map((c) => ({
    id: /^step\d+$/.test(c.id) ? "" : c.id,
    tool: c.tool!,
    raw: c.raw,
    answered: c.answered,
    ...(REFUSED.test(c.text) ? { refused: true } : {}),
    step: c.step,
  }));
}

/** Counts one trajectory on this thread; `calls` also lists its χ-World calls. */
export function countAt(path: string, opts: { calls?: boolean } = {}): ToolCount {
  try {
    const t = readTrajectory(path);
    return { ...countToolCalls(t), corrupt: t.corrupt, ...(opts.calls ? { calls: worldCalls(t) } : {}) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * Counts every path on `workers` Web Workers; the default, 1, counts on this thread. On the shared 2-core
 * machine two workers cost more CPU than they save wall time, so more workers are for bigger machines.
 * Paths in `calls` also get their χ-World call list.
 */
export async function countAll(
  paths: string[],
  opts: {
    workers?: number;
    calls?: ReadonlySet<string>;
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<Map<string, ToolCount>> {
  const out = new Map<string, ToolCount>();
  const n = Math.min(opts.workers ?? 1, paths.length);
  const tick = () => opts.onProgress?.(out.size, paths.length);
  const wants = (path: string) => opts.calls?.has(path) ?? false;
  if (n <= 1 || typeof Worker === "undefined") {
    for (const path of paths) {
      out.set(path, countAt(path, { calls: wants(path) }));
      tick();
    }
    return out;
  }
  let next = 0;
  await Promise.all(Array.from({ length: n }, () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL("./tool_count_worker.ts", import.meta.url), { type: "module" });
      const feed = () => {
        if (next >= paths.length) {
          worker.terminate();
          resolve();
        } else {
          const path = paths[next++];
          worker.postMessage({ path, calls: wants(path) });
        }
      };
      worker.onmessage = (e: MessageEvent<{ path: string; count: ToolCount }>) => {
        out.set(e.data.path, e.data.count);
        tick();
        feed();
      };
      worker.onerror = (e) => {
        e.preventDefault();
        worker.terminate();
        reject(new Error(`Cannot count tool calls: a worker failed (${e.message}).`));
      };
      feed();
    })));
  return out;
}
