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
import { type Arm, ARMS, readLedger } from "./lib/guard/ledger.ts";
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

const USAGE = "Usage: guard.ts <pre|post|post-fail|stop|prompt|session-start>  (hook JSON on stdin)\n" +
  "       guard.ts serve [--port 8787] [--host 127.0.0.1] [--token T]\n" +
  "       guard.ts settings --mode http|command --arm ARM --ledger DIR [--port N] [--guard PATH] [--server NAME]...\n" +
  "       guard.ts up --port N --arm ARM --ledger DIR --guard PATH --settings FILE --harness FILE [--server NAME]...";

/** The value after a flag, or undefined. */
function flagValue(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
}

/** Every value of a repeatable flag. */
function flagValues(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => a === flag && args[i + 1] !== undefined ? [args[i + 1]] : []);
}

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
  return (await import("node:process")).default;
}

/** Command mode: one event from stdin, one JSON reply on stdout, exit 0 whatever happens. */
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
  const timer = setTimeout(
    () => answerNeutral(`time budget of ${settings.decisionMs} ms overrun; allowed`),
    settings.decisionMs,
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
  clearTimeout(timer);
  print(reply);
  if (record) {
    saveRecord(settings.ledgerDir, record);
    if (settings.liveUrl && settings.liveToken) {
      const { postLive } = await import("./lib/guard/live.ts");
      await postLive(settings.liveUrl, settings.liveToken, record);
    }
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
  const { healthOf, isOurs, startResident, waitHealthy } = await import("./lib/guard/resident.ts");
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

/** `guard.ts settings --mode http|command --arm A --ledger DIR [--port N] [--guard PATH] [--server S]…`. */
async function printSettings(args: string[]): Promise<number> {
  const { DEFAULT_SERVERS, settingsJson } = await import("./lib/guard/settings.ts");
  const at = (flag: string) => flagValue(args, flag);
  const mode = at("--mode") ?? "command";
  const arm = at("--arm") ?? "checklist";
  if (mode !== "http" && mode !== "command") {
    host.writeErr(`Cannot write settings: --mode "${mode}" is unknown. Use http or command.\n`);
    return 2;
  }
  if (!(ARMS as readonly string[]).includes(arm)) {
    host.writeErr(
      `Cannot write settings: --arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.\n`,
    );
    return 2;
  }
  host.writeOut(settingsJson({
    mode,
    arm: arm as Arm,
    ledgerDir: at("--ledger") ?? "/logs/agent/fiable",
    guard: at("--guard") ?? "/installed-agent/fiable-guard.mjs",
    port: at("--port") ? Number(at("--port")) : undefined,
    servers: flagValues(args, "--server").length ? flagValues(args, "--server") : DEFAULT_SERVERS,
  }));
  return 0;
}

/** The port after `--port`, checked; null (and a message on stderr) when it is not a port number. */
function portArg(args: string[], what: string, fallback?: string): number | null {
  const raw = flagValue(args, "--port") ?? fallback;
  const port = Number(raw);
  if (raw === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    host.writeErr(`Cannot ${what}: --port "${raw ?? ""}" is not a port number. Use 0-65535.\n`);
    return null;
  }
  return port;
}

/** `guard.ts serve`: the server under its supervisor, or alone with `--child` or `FIABLE_SUPERVISE=0`. */
async function runServe(args: string[]): Promise<number> {
  const process = await nodeProcess();
  const port = portArg(args, "serve", process.env.FIABLE_PORT ?? "8787");
  if (port === null) return 2;
  const host = flagValue(args, "--host") ?? "127.0.0.1";
  const { bindRefusal, TOKEN_ENV } = await import("./lib/guard/access.ts");
  const token = flagValue(args, "--token") ?? process.env[TOKEN_ENV];
  const refused = bindRefusal(host, token);
  if (refused) {
    process.stderr.write(refused + "\n");
    return 2;
  }
  // The supervised server gets the token through its environment, never on a command line.
  if (token) process.env[TOKEN_ENV] = token;
  const note = flagValue(args, "--restart-note");
  const session = flagValue(args, "--session");
  if (args.includes("--child") || process.env.FIABLE_SUPERVISE === "0") {
    // A supervised server's stderr is a pipe to its supervisor: if that dies, keep serving, unlogged.
    if (process.env.FIABLE_SUPERVISOR_PID) process.stderr.on("error", () => {});
    // Loaded only here: a hook process never pays for the http server.
    const { serve } = await import("./lib/guard/serve.ts");
    const restart = note ? { note, downSince: flagValue(args, "--down-since"), session } : undefined;
    try {
      await serve({ port, host, env: process.env, restart });
    } catch (err) {
      process.stderr.write(
        `Cannot serve on ${host}:${port}: ${(err as Error).message}. Use a free --port.\n`,
      );
      return 2;
    }
    return 0;
  }
  const { supervise } = await import("./lib/guard/supervise.ts");
  const firstArgs = note ? ["--restart-note", note, ...(session ? ["--session", session] : [])] : [];
  return await supervise({ script: process.argv[1], port, host, env: process.env, firstArgs });
}

/** `guard.ts up …`: brings the resident guard up (or reuses it) and writes settings.json and harness.json. */
async function runUp(args: string[]): Promise<number> {
  const process = await nodeProcess();
  const port = portArg(args, "bring up the guard");
  const arm = flagValue(args, "--arm") ?? "";
  const required = ["--ledger", "--guard", "--settings", "--harness"].filter((f) => !flagValue(args, f));
  if (port === null) return 2;
  if (!(ARMS as readonly string[]).includes(arm) || arm === "stock") {
    process.stderr.write(
      `Cannot bring up the guard: --arm "${arm}" is not a guarded arm. Use one of ${
        ARMS.filter((a) => a !== "stock").join(", ")
      } (stock runs without hooks).\n`,
    );
    return 2;
  }
  if (required.length) {
    process.stderr.write(`Cannot bring up the guard: ${required.join(", ")} missing.\n${USAGE}\n`);
    return 2;
  }
  const wait = Number(flagValue(args, "--wait") ?? 10);
  const { bringUp } = await import("./lib/guard/up.ts");
  const result = await bringUp({
    port,
    arm: arm as Exclude<Arm, "stock">,
    ledgerDir: flagValue(args, "--ledger")!,
    guard: flagValue(args, "--guard")!,
    settingsFile: flagValue(args, "--settings")!,
    harnessFile: flagValue(args, "--harness")!,
    servers: flagValues(args, "--server"),
    claudeVersion: flagValue(args, "--claude-version"),
    waitMs: Number.isFinite(wait) && wait > 0 ? wait * 1000 : 10_000,
    env: process.env,
  });
  process.stdout.write(
    `fiable-cc: arm=${arm} hooks=${result.hooks}${result.note ? ` (${result.note})` : ""}\n`,
  );
  return 0;
}

/** Entry: `guard.ts <event>`, `guard.ts serve --port N`, `guard.ts up …` or `guard.ts settings …`. */
export async function main(args: string[]): Promise<number> {
  const [word, ...rest] = args;
  if (word === "serve") return await runServe(rest);
  if (word === "up") return await runUp(rest);
  if (word === "settings") return await printSettings(rest);
  if (!word || !isEventWord(word)) {
    // Even a misconfigured hook must not break the run: answer with no decision and say why on stderr.
    host.writeErr(`fiable-guard: unknown event "${word ?? ""}".\n${USAGE}\n`);
    print({});
    return 0;
  }
  await runCommand(word, host.env);
  return 0;
}

if (import.meta.main) host.setExitCode(await main(host.args));
