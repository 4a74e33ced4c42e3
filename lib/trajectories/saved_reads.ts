/**
 * Replay's side of Claude Code's saved-output notice (lib/guard/engine/saved_output.ts): a recorded MCP call
 * whose result the model saw only as a notice naming a file gets, as its result, what the trajectory shows the
 * agent reading of that file afterwards: a Read, Bash, Grep… call that reads it by any path resolving to it
 * (the full path, a path relative to the directory a `cd` left, a variable, a glob, a script's `open(…)`;
 * lib/trajectories/shell_paths.ts), after the notice. The live guard reads the whole file at the post; replay
 * has only what the agent read, so the call is marked `saved`: an id it could hold is one replay cannot
 * judge (replay.ts reports a block on it as not observable). The call stays an executed call either way.
 */
import type { ToolEvent } from "./atif.ts";
import { savedOutputPath } from "../guard/engine/saved_output.ts";
import { projectDir, readsPath, type Shell } from "./shell_paths.ts";

/** A recorded call, with the saved-output file its result stands for when it was one. */
export type SavedEvent = ToolEvent & { saved?: string };

/**
 * The calls with each saved-output notice followed by what the agent later read of its file, and marked with
 * the file's path (`saved`); other calls as given.
 */
export function withSavedReads(calls: readonly ToolEvent[]): SavedEvent[] {
  return calls.map((call, i) => {
    if (!call.tool || call.isError) return call;
    const path = savedOutputPath(call.text);
    if (!path) return call;
    let shell: Shell = { cwd: projectDir(path) };
    const reads: string[] = [];
    for (let j = 0; j < calls.length; j++) {
      const c = calls[j];
      if (c.tool) continue;
      const next = readsPath(c, path, shell);
      shell = next.shell;
      if (j > i && next.reads && c.answered && !c.isError) reads.push(c.text);
    }
    return { ...call, text: [call.text, ...reads].join("\n"), saved: path };
  });
}
