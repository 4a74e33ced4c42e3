/**
 * The guard's hook entry. `guard.ts <event>` reads one hook JSON object on stdin and prints exactly one
 * JSON object; `guard.ts serve --port N` answers Claude Code `"type":"http"` hooks at `POST /hook/<event>`
 * (under a supervisor that restarts it); `guard.ts up …` brings the resident guard up in a trial and writes
 * the hook settings. Events: pre, post, post-fail, stop, prompt, session-start. Fail-open: any internal
 * error, bad input, time overrun or termination signal answers allow (exit 0) and is recorded in the
 * ledger, or on stderr when that is unwritable.
 *
 * The hook path (an event word) loads no `node:` module and no npm package under Deno, and nothing it does
 * not use: I/O goes through lib/guard/host.ts, and the other commands, the live post, the profile parser and
 * the resident check are loaded when used (tests/startup.ts keeps it so; issue 20).
 */
import { type EventWord, isEventWord, neutralReply } from "./lib/guard/hook.ts";
import { host } from "./lib/guard/host.ts";
import { lazy } from "./lib/guard/lazy.ts";
import { type Arm, readLedger } from "./lib/guard/ledger.ts";
import {
  type BoundedInput,
  eventSettings,
  failedRecord,
  handle,
  inputCollector,
  loadSettings,
  saveRecord,
  sessionOf,
} from "./lib/guard/handle.ts";

function print(reply: Record<string, unknown>): void {
  host.writeOut(JSON.stringify(reply) + "\n");
}

/** Stdin under a bound: an oversized input is drained, keeping its head and tail (see `inputCollector`). */
async function readStdin(): Promise<BoundedInput> {
  const input = inputCollector();
  await host.readStdin((chunk) => input.push(chunk));
  return input.done();
}

/** Node's `process`, for the commands other than the hook path (which must not load a `node:` module). */
async function nodeProcess(): Promise<NodeJS.Process> {
  return (await lazy("nodeProcess")).default;
}

/**
 * Command mode: one event from stdin, one JSON reply on stdout, exit 0 whatever happens. The process ends
 * here once the reply and record are out, without waiting for the cancelled budget timer (see `Host.timer`).
 */
export async function runCommand(word: EventWord, env: Record<string, string | undefined>): Promise<void> {
  const loaded = await loadSettings(env);
  const settings = eventSettings(word, loaded.settings, env);
  const note = loaded.note;
  let answered = false;
  let text = "";
  const answerNeutral = (why: string) => {
    if (answered) return;
    answered = true;
    print(neutralReply(word));
    if (settings.arm !== "stock") {
      saveRecord(settings.ledgerDir, failedRecord(word, text, settings.arm, why));
    }
    host.exit(0);
  };
  const cancelBudget = host.timer(
    settings.decisionMs,
    () => answerNeutral(`time budget of ${settings.decisionMs} ms overrun; allowed`),
  );
  // Claude Code ends a hook it gives up on (timeout, cancelled turn) with a signal: still answer and record.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    host.onceSignal(signal, () => answerNeutral(`${signal} received mid-hook; allowed`));
  }
  let size = 0;
  try {
    ({ text, size } = await readStdin());
  } catch (err) {
    text = "";
    void err;
  }
  const checked = word === "session-start" && env.FIABLE_GUARD_PORT && settings.arm !== "stock"
    ? await checkResident(
      Number(env.FIABLE_GUARD_PORT),
      settings.arm,
      settings.ledgerDir,
      sessionOf(text),
      env,
    )
    : undefined;
  const ledger = (session: string) => readLedger(settings.ledgerDir, session).records;
  const why = [note, checked].filter(Boolean).join(" ") || undefined;
  const { reply, record } = await handle(word, text, settings, { records: ledger, note: why, size });
  if (answered) return;
  answered = true;
  cancelBudget();
  print(reply);
  if (record) {
    saveRecord(settings.ledgerDir, record);
    if (settings.liveUrl && settings.liveToken) {
      const { postLive } = await lazy("live");
      await postLive(settings.liveUrl, settings.liveToken, record);
    }
  }
  host.exit(0);
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
  const { healthOf, isOurs, startResident, waitHealthy } = await lazy("resident");
  const health = await healthOf(port, 300);
  if (isOurs(health, arm, ledgerDir)) return undefined;
  if (health) return `SessionStart check: port ${port} answers for arm ${health.arm}, not this guard.`;
  try {
    const note = `SessionStart check: the resident guard on port ${port} did not answer; started it again`;
    const started = startResident({
      script: (await nodeProcess()).argv[1],
      port,
      arm,
      ledgerDir,
      env,
      restartNote: note,
      session,
    });
    const up = await waitHealthy(port, arm, ledgerDir, { ms: SESSION_START_WAIT_MS, started });
    return up
      ? `${note} (pid ${started.pid}).`
      : `${note}, but it did not answer within ${SESSION_START_WAIT_MS} ms.`;
  } catch (err) {
    return `SessionStart check: cannot start the resident guard: ${(err as Error).message}`;
  }
}

/** Entry: `guard.ts <event>`, `guard.ts serve --port N`, `guard.ts up …` or `guard.ts settings …`. */
export async function main(args: string[]): Promise<number> {
  const [word] = args;
  if (word !== undefined && isEventWord(word)) {
    await runCommand(word, host.env);
    return 0;
  }
  // Subcommands, --help, flags and unknown words: the parser and the servers load only here, off the hook path.
  const { guardCommand } = await lazy("commands");
  return await guardCommand(args);
}

if (import.meta.main) main(host.args).then(host.setExitCode);
