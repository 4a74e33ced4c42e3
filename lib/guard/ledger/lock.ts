/**
 * A session's ledger lock across hook processes, for what must not interleave between parallel calls in
 * command mode: a decision that spends the block budget and its record (each parallel call would otherwise fold
 * the ledger before the others append, and spend the budget again), and a checkpoint write. The resident guard
 * needs none: it handles a session's events one at a time.
 *
 * The lock is `<ledger>.lock`, created exclusively (never through a link) and holding a token; it is removed by
 * the holder that still finds its own token there. One untouched for `STALE_MS` (a holder killed mid-hook) is
 * taken over.
 */
import * as io from "../io.ts";
import { besideLedger } from "./ledger.ts";

/** A lock older than this was left by a holder that died (a hook's whole budget is 1.5 s by default). */
export const STALE_MS = 5_000;

/** The lock file's name for a session. */
export function lockFileName(session: string): string {
  return besideLedger(session, ".lock");
}

/** A held lock's release; `busy` when another holder has it; `unavailable` when no lock can be made here. */
export type LockResult = (() => void) | "busy" | "unavailable";

/** Takes the session's lock if it is free (or stale), without waiting. */
export function tryLock(dir: string, session: string): LockResult {
  const path = io.joinPath(dir, lockFileName(session));
  const token = io.randomName();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      io.makeDir(dir);
      io.createNew(path, token);
      return () => release(path, token);
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") return "unavailable";
    }
    try {
      if (Date.now() - io.modifiedAt(path) < STALE_MS) return "busy";
      io.removeFile(path);
    } catch {
      // Released meanwhile: try again.
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
    if (new TextDecoder().decode(io.readBytes(path, 0, 64)) === token) io.removeFile(path);
  } catch {
    // Gone already.
  }
}
