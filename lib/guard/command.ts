/**
 * Command mode: one hook event on stdin, one JSON reply on stdout, exit 0 whatever happens (guard.ts loads it
 * for an event word).
 */
import { type EventWord, neutralReply } from "./engine/hook.ts";
import process from "node:process";
import * as io from "./io.ts";
import { CHECKPOINT_EVERY, type LoadedEvidence, loadEvidence, writeCheckpoint } from "./ledger/checkpoint.ts";
import { readsEvidence } from "./engine/decide.ts";
import type { Arm } from "./engine/record.ts";
import { sessionOf } from "./engine/failed.ts";
import { eventSettings, loadSettings } from "./config/guard_settings.ts";
import { type BoundedInput, inputCollector } from "./input.ts";
import { runEvent } from "./event.ts";
import { lockLedger } from "./ledger/lock.ts";

/** Stdin under a bound: an oversized input is drained, keeping its head and tail (see `inputCollector`). */
async function readStdin(): Promise<BoundedInput> {
  const input = inputCollector();
  await io.readStdin((chunk) => input.push(chunk));
  return input.done();
}

/**
 * Command mode: one event from stdin, one JSON reply on stdout, exit 0 whatever happens (a termination signal
 * from Claude Code, which ends a hook it gives up on, is answered too). The process ends here once the reply
 * and record are out, without waiting for the cancelled budget timer.
 */
export async function runCommand(word: EventWord, env: Record<string, string | undefined>): Promise<void> {
  let answered = false;
  try {
    if (env.FIABLE_FAULT === "crash-command") throw new Error("fault injected: crash-command");
    const interrupt = new Promise<string>((resolve) => {
      for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
        io.onceSignal(signal, () => resolve(`${signal} received mid-hook; allowed`));
      }
    });
    await commandEvent(word, env, {
      input: readStdin,
      send: (text) => {
        io.writeOut(text);
        answered = true;
      },
      interrupt,
    });
  } catch (err) {
    // An error outside the event's own fail-open (its settings, its signals, a fault injected before it):
    // still the one neutral answer, once, and exit 0 (issue 40).
    if (!answered) io.writeOut(JSON.stringify(neutralReply(word)) + "\n");
    io.writeErr(`fiable-guard: command mode failed (${(err as Error)?.message ?? err}); allowed\n`);
  }
  io.exit(0);
}

/**
 * Where a command-mode event comes from and its reply goes: stdin, stdout and the termination signals in a hook
 * process (`runCommand`); a given text and a sink when the start-up snapshot runs the path ahead of time
 * (lib/guard/runtime/snapshot.ts).
 */
export interface CommandTransport {
  input(): Promise<BoundedInput>;
  /** Writes the reply's line; called once. */
  send(text: string): void;
  /** Resolves with a reason to answer at once. */
  interrupt?: Promise<string>;
}

/**
 * One command-mode event, settings to checkpoint: the session's evidence from its checkpoint and the ledger
 * lines after it (lib/guard/ledger/checkpoint.ts), for the events that read it (`FIABLE_CHECKPOINT=0`
 * re-reads the whole ledger every time), and a new checkpoint after the reply when one is due.
 */
export async function commandEvent(
  word: EventWord,
  env: Record<string, string | undefined>,
  transport: CommandTransport,
): Promise<void> {
  const loaded = await loadSettings(env);
  const settings = eventSettings(word, loaded.settings, env);
  const checkpoints = env.FIABLE_CHECKPOINT !== "0";
  let folded: LoadedEvidence | undefined;
  const { live } = await runEvent(word, {
    settings,
    input: transport.input,
    note: loaded.note,
    check: word === "session-start" && env.FIABLE_GUARD_PORT && settings.arm !== "stock"
      ? (text) =>
        checkResident(Number(env.FIABLE_GUARD_PORT), settings.arm, settings.ledgerDir, sessionOf(text), env)
      : undefined,
    evidence: (session) =>
      readsEvidence(word, settings.arm)
        ? (folded = loadEvidence(settings.ledgerDir, session, { checkpoint: checkpoints })).ev
        : null,
    reread: (session) => (folded = loadEvidence(settings.ledgerDir, session, { checkpoint: false })).ev,
    send: (reply) => transport.send(JSON.stringify(reply) + "\n"),
    saved: (record) => {
      if (record && folded && checkpoints) checkpointIfDue(settings.ledgerDir, record.session, folded);
    },
    interrupt: transport.interrupt,
    lock: (session) => lockLedger(settings.ledgerDir, session, LOCK_WAIT_MS),
  });
  await live;
}

/** How long a deny waits for the session's ledger lock (another parallel call deciding and recording). */
const LOCK_WAIT_MS = 500;

/**
 * After the reply: a new checkpoint when this process folded `CHECKPOINT_EVERY` records or more from the ledger
 * itself, so the next hook reads only what comes after (skipped while another writer holds the session's
 * lock). Never fails the hook (a checkpoint is only a shortcut).
 */
function checkpointIfDue(dir: string, session: string, loaded: LoadedEvidence): void {
  if (loaded.bytes === null || loaded.folded < CHECKPOINT_EVERY) return;
  try {
    writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes });
  } catch {
    // Unwritable (a full disk, a read-only folder): the next hook reads the ledger again, nothing more.
  }
}

/** How long the SessionStart check waits for a guard it started (SessionStart's budget is 5 s). */
const SESSION_START_WAIT_MS = 3000;

/**
 * The SessionStart check in http mode: this hook runs inside Claude Code's own process tree, so a resident
 * guard that did not outlive its exec (or died since) is started here, before the first http hook needs it.
 * Returns a note for the session-start record, or undefined when the guard answered.
 */
async function checkResident(
  port: number,
  arm: Arm,
  ledgerDir: string,
  session: string,
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  const { expectedGuard, foreign, probe, startResident, waitHealthy } = await import(
    "./resident/resident.ts"
  );
  let expected;
  try {
    expected = expectedGuard(arm, ledgerDir);
  } catch (err) {
    return `SessionStart check: cannot read or make the guard key: ${(err as Error).message}`;
  }
  const { health, ours } = await probe(port, expected, 300);
  if (ours) return undefined;
  if (health) {
    return `SessionStart check: port ${port} answers, but not as this trial's guard (${
      foreign(health, expected)
    }).`;
  }
  try {
    const note = `SessionStart check: the resident guard on port ${port} did not answer; started it again`;
    const started = startResident({
      script: process.argv[1],
      port,
      arm,
      ledgerDir,
      env,
      restartNote: note,
      session,
    });
    const up = await waitHealthy(port, expected, { ms: SESSION_START_WAIT_MS, started });
    return up
      ? `${note} (pid ${started.pid}).`
      : `${note}, but it did not answer within ${SESSION_START_WAIT_MS} ms.`;
  } catch (err) {
    return `SessionStart check: cannot start the resident guard: ${(err as Error).message}`;
  }
}
