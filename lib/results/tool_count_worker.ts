/** Worker for lib/results/tool_counts.ts: receives a trajectory path, answers with its tool-call counts. */
import { countAt } from "./tool_counts.ts";

self.onmessage = (e: MessageEvent<{ path: string; calls: boolean }>) => {
  self.postMessage({ path: e.data.path, count: countAt(e.data.path, { calls: e.data.calls }) });
};
