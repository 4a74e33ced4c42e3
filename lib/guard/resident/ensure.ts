/**
 * Starts the resident guard again when a hook finds none: the SessionStart command hook in http mode (before the
 * first http hook needs it), and `guard.ts ensure`, which the http hook settings run asynchronously beside the
 * tool and prompt hooks whenever nothing listens on the guard's port (lib/guard/config/claude_settings.ts): a
 * supervisor and server killed together no longer leave the trial unguarded until the next SessionStart
 * (issue 40). One starter at a time: the others wait for the guard it starts.
 */
import type { Arm } from "../engine/record.ts";
import { tryLock } from "../ledger/lock.ts";
import {
  alive,
  expectedGuard,
  foreign,
  ledgerDirRecords,
  probe,
  recordedPid,
  startResident,
  waitHealthy,
} from "./resident.ts";

/** How long a check waits for a guard it (or another hook) started; SessionStart's own budget is 5 s. */
export const ENSURE_WAIT_MS = 3000;

/** The lock a starter holds while it starts the guard (a name no session's ledger lock can have). */
const STARTING = "fiable guard start";

/** What a check is given. */
export interface EnsureOptions {
  /** The guard bundle (or guard.ts) to start: the running script. */
  script: string;
  port: number;
  arm: Arm;
  ledgerDir: string;
  env: Record<string, string | undefined>;
  /** Who checks (`SessionStart check`, `hook check`): the start of every note. */
  who: string;
  /** A session that gets the restart record even when it has no records yet. */
  session?: string;
}

/**
 * Makes sure this trial's resident guard answers on its port: nothing when it does; else starts it (under the
 * start lock) and waits up to `ENSURE_WAIT_MS`. Returns a note of what it found and did, or undefined when the
 * guard answered. Never throws.
 */
export async function ensureResident(o: EnsureOptions): Promise<string | undefined> {
  let expected;
  try {
    expected = expectedGuard(o.arm, o.ledgerDir);
  } catch (err) {
    return `${o.who}: cannot read or make the guard key: ${(err as Error).message}`;
  }
  const { health, ours } = await probe(o.port, expected, 300);
  if (ours) return undefined;
  if (health) {
    return `${o.who}: port ${o.port} answers, but not as this trial's guard (${foreign(health, expected)}).`;
  }
  // A live supervisor (guard.pid) starts its server again within about a second: wait for it first, so two
  // guards never race for the port. A pid the agent wrote there costs the wait, no more.
  const supervisor = recordedPid(o.ledgerDir);
  if (
    supervisor !== null && alive(supervisor) && await waitHealthy(o.port, expected, { ms: ENSURE_WAIT_MS })
  ) {
    return `${o.who}: the resident guard on port ${o.port} did not answer; its supervisor (pid ${supervisor}) ` +
      "started it again.";
  }
  const unlock = tryLock(o.ledgerDir, STARTING);
  if (typeof unlock !== "function") {
    const up = await waitHealthy(o.port, expected, { ms: ENSURE_WAIT_MS });
    return `${o.who}: the resident guard on port ${o.port} did not answer; another hook was starting it` +
      (up ? "." : `, and it did not answer within ${ENSURE_WAIT_MS} ms.`);
  }
  try {
    const note = `${o.who}: the resident guard on port ${o.port} did not answer; started it again`;
    // The guard answered up to its ledgers' last record: the calls since then without a record are the gap's.
    const last = ledgerDirRecords(o.ledgerDir).map((r) => r.t).filter(Boolean).sort().at(-1);
    const started = startResident({
      script: o.script,
      port: o.port,
      arm: o.arm,
      ledgerDir: o.ledgerDir,
      env: o.env,
      restartNote: note,
      ...(last ? { downSince: last } : {}),
      session: o.session,
    });
    const up = await waitHealthy(o.port, expected, { ms: ENSURE_WAIT_MS, started });
    return up
      ? `${note} (pid ${started.pid}).`
      : `${note}, but it did not answer within ${ENSURE_WAIT_MS} ms.`;
  } catch (err) {
    return `${o.who}: cannot start the resident guard: ${(err as Error).message}`;
  } finally {
    unlock();
  }
}
