/**
 * The agent's recent text from a Claude Code transcript (`transcript_path`, JSONL): a pure parser and a
 * bounded tail read. Best effort by design: Claude Code writes the transcript asynchronously, and with http
 * hooks the PreToolUse request arrives before the message that carries the call is written (measured with the
 * pinned CLI: the tail still ended at the previous tool call), so the read waits briefly for the pending
 * tool_use id to appear, within a small time cap, then judges on whatever text is there. A missing or
 * unreadable file gives no text (never an error that could turn into a deny), and nothing here writes the
 * text anywhere; judges quote at most a capped, redacted snippet of it in a block reason.
 */
import * as io from "./io.ts";
import { recentText } from "./engine/judge.ts";

/** How much of the transcript's end is read: enough for the last few turns, bounded whatever the file size. */
export const TRANSCRIPT_TAIL_BYTES = 256 * 1024;

/** The main agent's text blocks in transcript JSONL, in order; a cut first line and non-JSON lines are skipped. */
export function transcriptTexts(jsonl: string): string[] {
  const texts: string[] = [];
  for (const line of jsonl.split("\n")) {
    if (!line.includes('"assistant"')) continue;
    let entry: { type?: unknown; isSidechain?: unknown; message?: { content?: unknown } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry?.type !== "assistant" || entry.isSidechain === true) continue;
    const content = entry.message?.content;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (block && block.type === "text" && typeof block.text === "string") texts.push(block.text);
      }
    }
  }
  return texts.filter((t) => t.trim());
}

/** How long a read waits at most for the transcript to catch up with the pending call. */
export const TRANSCRIPT_WAIT_MS = 400;

/**
 * The agent's recent text from the end of a transcript file, waiting up to `waitMs` for the pending call's
 * `toolUseId` to be written; never throws (`note` says why there is no text, or that the transcript lagged).
 */
export async function readRecentText(
  path: string,
  options: { toolUseId?: string; waitMs?: number; bytes?: number } = {},
): Promise<{ texts: string[]; note?: string }> {
  const { toolUseId, waitMs = TRANSCRIPT_WAIT_MS, bytes = TRANSCRIPT_TAIL_BYTES } = options;
  const started = Date.now();
  // Claude Code may not have created the file yet when the hook arrives: a missing file is waited for too.
  const read = () => {
    try {
      return io.readTail(path, bytes);
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT" || Date.now() - started >= waitMs) throw err;
      return null;
    }
  };
  try {
    let text = read();
    while ((text === null || (toolUseId && !text.includes(toolUseId))) && Date.now() - started < waitMs) {
      await io.sleep(20);
      text = read();
    }
    if (text === null) text = io.readTail(path, bytes);
    const texts = recentText(transcriptTexts(text));
    const lagged = toolUseId && !text.includes(toolUseId);
    return lagged
      ? { texts, note: `transcript lagged the call after ${waitMs} ms; judged on its text so far` }
      : { texts };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return { texts: [], note: `transcript not read (${code ?? (err as Error).message}); judged without it` };
  }
}
