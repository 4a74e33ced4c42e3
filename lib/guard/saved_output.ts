/**
 * The result behind a saved-output notice (lib/guard/engine/saved_output.ts), read for the PostToolUse hook:
 * from 2.1.332 on Claude Code passes the hook only the notice, so without this the ids of a large result (a
 * submission bundle's is often 60–70 KB) never reach the evidence and the rules that reason from unseen ids
 * deny the calls that use them. Bounded like any hook input (its first 1 MB and last 64 KB); the engine then
 * redacts and caps it like any result. Never throws: a file it cannot or may not read leaves the notice as the
 * result and says why, without degrading the session (a notice is tool output: a forged one must not switch
 * the rules that reason from absence to recording; issue 40).
 */
import { closeSync, constants, fstatSync, lstatSync, readlinkSync, readSync, realpathSync } from "node:fs";
import { basename, dirname } from "node:path";
import * as io from "./io.ts";
import { MAX_INPUT } from "./input.ts";
import { responseText } from "./engine/hook.ts";
import {
  isSessionToolResult,
  savedNameFits,
  savedOutputPath,
  savedOutputResponse,
} from "./engine/saved_output.ts";

/** Bytes of a saved result's end kept beside its head when it is larger than the hook input limit. */
const KEEP_TAIL = 64 * 1024;

/** The largest saved result read at all (larger: ignored); one over the input limit is read in part. */
const MAX_SAVED = 64 * 1024 * 1024;

/**
 * What reading a notice's file came to: the response to record in its place, or why it stayed the notice
 * (ignored and noted: a file it may not read never degrades the session).
 */
export type SavedRead =
  | { response: unknown; note: string }
  | { ignored: string };

/** The call a notice answered: its tool as Claude Code names it, its id, and when it started (if known). */
export interface SavedCall {
  session: string;
  transcriptPath?: string;
  tool: string;
  toolUseId?: string;
  startedMs?: number;
}

/**
 * The saved result a PostToolUse response's notice names, or null when the response is no notice. Read only
 * when it is the call's own (issue 40): under this session's `tool-results/` beside its transcript, by its
 * real path (no folder on the way a link), named as Claude Code names that call's result, a regular file with
 * one link, opened without following a link or blocking, created after the call started, within the cap.
 */
export function readSavedOutput(response: unknown, call: SavedCall): SavedRead | null {
  const path = savedOutputPath(responseText(response));
  if (!path) return null;
  const ignored = (why: string): SavedRead => ({ ignored: `saved-output notice ignored: ${why}` });
  if (!isSessionToolResult(path, call.session, call.transcriptPath)) {
    return ignored("it names a file outside this session's tool-results");
  }
  if (!savedNameFits(basename(path), call)) {
    return ignored("the file is not named as Claude Code names this call's");
  }
  let fd: number;
  try {
    fd = io.openRegular(path, constants.O_RDONLY);
  } catch (err) {
    return ignored(`the file was not read (${io.codeOf(err) || (err as Error).message})`);
  }
  try {
    const info = fstatSync(fd);
    if (info.nlink !== 1) return ignored("the file has other names (a hard link)");
    if (info.size > MAX_SAVED) return ignored(`the file is over ${MAX_SAVED} bytes`);
    if (call.startedMs !== undefined && Math.max(info.birthtimeMs, info.mtimeMs) < call.startedMs - 1000) {
      return ignored("the file is older than the call");
    }
    if (!ownFolder(path, call.session, openedPath(fd, path))) {
      return ignored("its real path is not this session's tool-results (a link on the way)");
    }
    const size = info.size;
    const text = size <= MAX_INPUT + KEEP_TAIL
      ? decode(fd, 0, size)
      : `${decode(fd, 0, MAX_INPUT)}\n${decode(fd, size - KEEP_TAIL, KEEP_TAIL)}`;
    const bounded = size > MAX_INPUT + KEEP_TAIL
      ? `, its first ${MAX_INPUT} and last ${KEEP_TAIL} bytes`
      : "";
    return {
      response: savedOutputResponse(text),
      note:
        `result read from Claude Code's saved output (${size} bytes${bounded}); the hook got only its notice`,
    };
  } catch (err) {
    return ignored(`the file was not read (${io.codeOf(err) || (err as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

/**
 * True when the opened file's real path (`real`, from /proc) is the path named, inside real folders: the
 * session's folder and its `tool-results/` are directories, not links, and nothing on the way resolves
 * elsewhere.
 */
function ownFolder(path: string, session: string, real: string): boolean {
  const results = dirname(path);
  const sessionDir = dirname(results);
  if (basename(sessionDir) !== session) return false;
  for (const dir of [sessionDir, results]) {
    const info = lstatSync(dir);
    if (info.isSymbolicLink() || !info.isDirectory()) return false;
  }
  return real === `${realpathSync(dirname(sessionDir))}/${session}/tool-results/${basename(path)}`;
}

/**
 * The real path of the file open at `fd`, from /proc (what was opened, whatever the path says since); the
 * path's own real path where /proc is not there to read (a runtime's sandbox).
 */
function openedPath(fd: number, path: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync(path);
  }
}

/** `bytes` bytes of an open file from byte `start` as text. */
function decode(fd: number, start: number, bytes: number): string {
  const buffer = new Uint8Array(bytes);
  let read = 0;
  while (read < bytes) {
    const n = readSync(fd, buffer, read, bytes - read, start + read);
    if (n === 0) break;
    read += n;
  }
  return new TextDecoder().decode(buffer.subarray(0, read));
}
