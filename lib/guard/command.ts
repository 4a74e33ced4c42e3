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
import { saveRecord } from "./ledger/ledger.ts";
import { guardRecord } from "./resident/gap.ts";

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
  let reported = false;
  const { live } = await runEvent(word, {
    settings,
    input: transport.input,
    note: loaded.note,
    check: word === "session-start" && env.FIABLE_GUARD_PORT && settings.arm !== "stock"
      ? (text) =>
        checkResident(Number(env.FIABLE_GUARD_PORT), settings.arm, settings.ledgerDir, sessionOf(text), env)
      : undefined,
    evidence: (session) => {
      if (!readsEvidence(word, settings.arm)) return null;
      folded = loadEvidence(settings.ledgerDir, session, { checkpoint: checkpoints });
      // Once, though a deny is decided again under the lock.
      if (folded.tampered && !reported) {
        reported = true;
        reportTamper(settings.ledgerDir, session, settings.arm, folded.tampered);
      }
      return folded.ev;
    },
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

/**
 * Records that the session's ledger changed beneath its checkpoint (`LoadedEvidence.tampered`): a `guard` record
 * with decision `tamper`. The checkpoint written after this event digests the ledger as it now is, so the next
 * hook does not report it again.
 */
function reportTamper(dir: string, session: string, arm: Arm, what: string): void {
  const note = `tampering: ${what}. The session's evidence is what its checkpoint held.`;
  saveRecord(dir, guardRecord(session, arm, "tamper", { t: new Date().toISOString(), note }));
}

/** How long a deny waits for the session's ledger lock (another parallel call deciding and recording). */
const LOCK_WAIT_MS = 500;

/**
 * After the reply: a new checkpoint when this process folded `CHECKPOINT_EVERY` records or more from the ledger
 * itself, so the next hook reads only what comes after (skipped while another writer holds the session's
 * lock). Never fails the hook (a checkpoint is only a shortcut).
 */
function checkpointIfDue(dir: string, session: string, loaded: LoadedEvidence): void {
  if (loaded.bytes === null || (loaded.folded < CHECKPOINT_EVERY && !loaded.respan)) return;
  try {
    writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes });
  } catch {
    // Unwritable (a full disk, a read-only folder): the next hook reads the ledger again, nothing more.
  }
}

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
  const { ensureResident } = await import("./resident/ensure.ts");
  return await ensureResident({
    script: process.argv[1],
    port,
    arm,
    ledgerDir,
    env,
    who: "SessionStart check",
    session,
  });
}
