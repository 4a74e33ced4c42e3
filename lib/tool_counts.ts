/**
 * Tool-call counts for many trajectories (harness.md §6 recipe, via lib/atif.ts), spread over Web Workers
 * when the runtime has them: decoding 300 zstd trajectories (~300 MB of JSON) is most of an aggregate's time.
 */
import { countToolCalls, readTrajectory } from "./atif.ts";

/** A trajectory's counts, or why it could not be read. */
export type ToolCount = { all: number; mcp: number } | { error: string };

/** Counts one trajectory on this thread. */
export function countAt(path: string): ToolCount {
  try {
    return countToolCalls(readTrajectory(path));
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * Counts every path on `workers` Web Workers; the default, 1, counts on this thread. On the shared 2-core
 * machine two workers cost more CPU than they save wall time, so more workers are for bigger machines.
 */
export async function countAll(
  paths: string[],
  opts: { workers?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<Map<string, ToolCount>> {
  const out = new Map<string, ToolCount>();
  const n = Math.min(opts.workers ?? 1, paths.length);
  const tick = () => opts.onProgress?.(out.size, paths.length);
  if (n <= 1 || typeof Worker === "undefined") {
    for (const path of paths) {
      out.set(path, countAt(path));
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
        } else worker.postMessage(paths[next++]);
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
