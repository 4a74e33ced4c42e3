/**
 * Replay's side of Claude Code's saved-output notice (lib/guard/engine/saved_output.ts): a recorded MCP call
 * whose result the model saw only as a notice naming a file gets, as its result, what the trajectory shows the
 * agent reading of that file afterwards (a Read, Bash, Grep… call whose input names the path), after the
 * notice. The live guard reads the whole file at the post; replay has only what the agent read, so an id the
 * agent never read stays unseen, as it was for the agent. The call stays an executed call either way.
 */
import type { ToolEvent } from "./atif.ts";
import { savedOutputPath } from "../guard/engine/saved_output.ts";

/** The calls with each saved-output notice followed by what the agent later read of its file; others as given. */
export function withSavedReads(calls: readonly ToolEvent[]): ToolEvent[] {
  return calls.map((call, i) => {
    if (!call.tool || call.isError) return call;
    const path = savedOutputPath(call.text);
    if (!path) return call;
    const reads = calls.slice(i + 1).filter((c) =>
      !c.tool && c.answered && !c.isError && JSON.stringify(c.input).includes(path)
    );
    if (!reads.length) return call;
    return { ...call, text: [call.text, ...reads.map((r) => r.text)].join("\n") };
  });
}
