/**
 * A session's ledger lock across hook processes, for what must not interleave between parallel calls in
 * command mode: a decision that spends the block budget and its record (each parallel call would otherwise fold
 * the ledger before the others append, and spend the budget again), and a checkpoint write. The resident guard
 * needs none for its decisions: it handles a session's events one at a time.
 *
 * The lock is `<ledger>.lock`, holding its holder's pid, the holder's start time as the kernel gives it
 * (`/proc/<pid>/stat`) and a token, written to a temp file first and linked into place, so it never appears
 * half written. It counts as held only while that process is alive, is the same process (its start time: a
 * pid reused is not it) and started at most `MAX_HOLD_MS` ago (a hook lives for its budget). Anything else at
 * the path — junk, a dead or reused pid, a long-lived process, a link, a FIFO — is stale and taken over; a
 * directory, which cannot be, makes the lock unavailable. An mtime the agent can set says nothing (issue 40).
 * The holder removes the lock when it still finds its own token there.
 */
import { linkSync, readFileSync } from "node:fs";
import process from "node:process";
import * as io from "../io.ts";
import { besideLedger } from "./ledger.ts";

/** The longest a live holder counts: a hook process older than this is no holder (its budget is 1.5 s). */
export const MAX_HOLD_MS = 30_000;

/** The lock file's name for a session. */
export function lockFileName(session: string): string {
  return besideLedger(session, ".lock");
}

/** A held lock's release; `busy` when another holder has it; `unavailable` when no lock can be made here. */
export type LockResult = (() => void) | "busy" | "unavailable";

/** Clock ticks per second of /proc's start times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** A process's start time in clock ticks since boot, from /proc (null where there is none). */
function startTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  } catch {
    return null;
  }
}

/** Seconds since boot (null where /proc has no uptime). */
function uptimeSeconds(): number | null {
  try {
    return Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  } catch {
    return null;
  }
}

/** True when a process with this pid exists (one of another user's included). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return io.codeOf(err) === "EPERM";
  }
}

/**
 * True when the lock text names a live holder: a running process, the same one that wrote it (its start time),
 * started at most `MAX_HOLD_MS` ago. Junk, a dead or reused pid and a long-lived process are not.
 */
export function heldBy(text: string): boolean {
  const m = /^(\d+) (\d+|-) [0-9a-f]{16}\n?$/.exec(text);
  if (!m) return false;
  const pid = Number(m[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !alive(pid)) return false;
  const started = startTicks(pid);
  if (started === null) return m[2] === "-";
  if (String(started) !== m[2]) return false;
  const uptime = uptimeSeconds();
  return uptime === null || (uptime - started / TICKS) * 1000 <= MAX_HOLD_MS;
}

/** This process's lock text: its pid, start time and a fresh token. */
function lockText(token: string): string {
  return `${process.pid} ${startTicks(process.pid) ?? "-"} ${token}\n`;
}

/** Takes the session's lock if it is free (or stale), without waiting. */
export function tryLock(dir: string, session: string): LockResult {
  const path = io.joinPath(dir, lockFileName(session));
  const token = io.randomName();
  for (let attempt = 0; attempt < 3; attempt++) {
    const temp = `${path}.${io.randomName()}.tmp`;
    try {
      io.makeDir(dir);
      io.createNew(temp, lockText(token));
      linkSync(temp, path);
      return () => release(path, token);
    } catch (err) {
      if (io.codeOf(err) !== "EEXIST") return "unavailable";
    } finally {
      io.removeQuietly(temp);
    }
    let text: string | null = null;
    try {
      text = io.readRange(path, 0, 128);
    } catch (err) {
      if (io.codeOf(err) === "ENOENT") continue; // Released meanwhile: try again.
    }
    if (text !== null && heldBy(text)) return "busy";
    try {
      io.removeFile(path);
    } catch (err) {
      // A directory (or anything else that will not go): no lock can be had here.
      if (io.codeOf(err) !== "ENOENT") return "unavailable";
    }
  }
  return "busy";
}

/** Takes the session's lock, waiting up to `waitMs` for another holder to release it. */
export async function lockLedger(dir: string, session: string, waitMs: number): Promise<LockResult> {
  const end = Date.now() + waitMs;
  for (;;) {
    const held = tryLock(dir, session);
    if (held !== "busy" || Date.now() >= end) return held;
    await io.sleep(2);
  }
}

/** Removes the lock when it still holds `token` (a holder taken over as stale must not remove the new one's). */
function release(path: string, token: string): void {
  try {
    if (io.readRange(path, 0, 128).trim().endsWith(` ${token}`)) io.removeFile(path);
  } catch {
    // Gone already.
  }
}
