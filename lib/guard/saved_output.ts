/**
 * The result behind a saved-output notice (lib/guard/engine/saved_output.ts), read for the PostToolUse hook:
 * from 2.1.332 on Claude Code passes the hook only the notice, so without this the ids of a large result (a
 * submission bundle's is often 60–70 KB) never reach the evidence and the rules that reason from unseen ids
 * deny the calls that use them. Bounded like any hook input (its first 1 MB and last 64 KB); the engine then
 * redacts and caps it like any result. Never throws: a file it cannot or may not read leaves the notice as the
 * result and says why, and the record is marked degraded (its ids are lost).
 */
import * as io from "./io.ts";
import { MAX_INPUT } from "./input.ts";
import { responseText } from "./engine/hook.ts";
import { isSessionToolResult, savedOutputPath, savedOutputResponse } from "./engine/saved_output.ts";

/** Bytes of a saved result's end kept beside its head when it is larger than the hook input limit. */
const KEEP_TAIL = 64 * 1024;

/** What reading a notice's file came to: the response to record in its place, or why it stayed the notice. */
export type SavedRead =
  | { response: unknown; note: string }
  | { degraded: string };

/**
 * The saved result a PostToolUse response's notice names, or null when the response is no notice. `session`
 * and `transcriptPath` come from the hook input: only this session's tool-results file is read.
 */
export function readSavedOutput(
  response: unknown,
  where: { session: string; transcriptPath?: string },
): SavedRead | null {
  const path = savedOutputPath(responseText(response));
  if (!path) return null;
  if (!isSessionToolResult(path, where.session, where.transcriptPath)) {
    return { degraded: "saved-output notice names a file outside this session's tool-results; not read" };
  }
  try {
    const size = io.fileSize(path);
    const text = size <= MAX_INPUT + KEEP_TAIL
      ? io.readRange(path, 0, size)
      : `${io.readRange(path, 0, MAX_INPUT)}\n${io.readTail(path, KEEP_TAIL)}`;
    const bounded = size > MAX_INPUT + KEEP_TAIL
      ? `, its first ${MAX_INPUT} and last ${KEEP_TAIL} bytes`
      : "";
    return {
      response: savedOutputResponse(text),
      note:
        `result read from Claude Code's saved output (${size} bytes${bounded}); the hook got only its notice`,
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return { degraded: `saved output not read (${code}); the result's ids are lost` };
  }
}
