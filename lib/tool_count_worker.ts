/** Worker for lib/tool_counts.ts: receives a trajectory path, answers with its tool-call counts. */
import { countAt } from "./tool_counts.ts";

self.onmessage = (e: MessageEvent<string>) => {
  self.postMessage({ path: e.data, count: countAt(e.data) });
};
