/**
 * The guard's hook entry. `guard.ts <event>` reads one hook JSON object on stdin and prints exactly one
 * JSON object; `guard.ts serve --port N` answers Claude Code `"type":"http"` hooks at `POST /hook/<event>`.
 * Events: pre, post, post-fail, stop, prompt, session-start. Fail-open: any internal error, bad input or
 * time overrun answers allow (exit 0) and is recorded in the ledger, or on stderr when that is unwritable.
 */
import process from "node:process";
import { type EventWord, isEventWord, neutralReply } from "./lib/hook.ts";
import { type Arm, ARMS, readLedger } from "./lib/ledger.ts";
import { settingsJson } from "./lib/settings.ts";
import { postLive } from "./lib/live.ts";
import { errorRecord, eventSettings, handle, loadSettings, saveRecord, sessionOf } from "./lib/handle.ts";

const USAGE = "Usage: guard.ts <pre|post|post-fail|stop|prompt|session-start>  (hook JSON on stdin)\n" +
  "       guard.ts serve [--port 8787] [--host 127.0.0.1]\n" +
  "       guard.ts settings --mode http|command --arm ARM --ledger DIR [--port N] [--guard PATH]";

async function readStdin(): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function print(reply: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(reply) + "\n");
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
      saveRecord(settings.ledgerDir, errorRecord(sessionOf(text), word, settings.arm, why));
    }
    process.exit(0);
  };
  const timer = setTimeout(
    () => answerNeutral(`time budget of ${settings.decisionMs} ms overrun; allowed`),
    settings.decisionMs,
  );
  try {
    text = await readStdin();
  } catch (err) {
    text = "";
    void err;
  }
  const ledger = (session: string) => readLedger(settings.ledgerDir, session).records;
  const { reply, record } = await handle(word, text, settings, { records: ledger, note });
  if (answered) return;
  answered = true;
  clearTimeout(timer);
  print(reply);
  if (record) {
    saveRecord(settings.ledgerDir, record);
    if (settings.liveUrl && settings.liveToken) await postLive(settings.liveUrl, settings.liveToken, record);
  }
}

/** `guard.ts settings --mode http|command --arm A --ledger DIR [--port N] [--guard PATH]`: prints settings.json. */
function printSettings(args: string[]): number {
  const at = (flag: string) => args.indexOf(flag) >= 0 ? args[args.indexOf(flag) + 1] : undefined;
  const mode = at("--mode") ?? "command";
  const arm = at("--arm") ?? "checklist";
  if (mode !== "http" && mode !== "command") {
    process.stderr.write(`Cannot write settings: --mode "${mode}" is unknown. Use http or command.\n`);
    return 2;
  }
  if (!(ARMS as readonly string[]).includes(arm)) {
    process.stderr.write(
      `Cannot write settings: --arm "${arm}" is unknown. Use one of ${ARMS.join(", ")}.\n`,
    );
    return 2;
  }
  process.stdout.write(settingsJson({
    mode,
    arm: arm as Arm,
    ledgerDir: at("--ledger") ?? "/logs/agent/fiable",
    guard: at("--guard") ?? "/installed-agent/fiable-guard.mjs",
    port: at("--port") ? Number(at("--port")) : undefined,
  }));
  return 0;
}

/** Entry: `guard.ts <event>`, `guard.ts serve --port N` or `guard.ts settings …`. */
export async function main(args: string[]): Promise<number> {
  const [word, ...rest] = args;
  if (word === "serve") {
    const at = (flag: string) => rest.indexOf(flag) >= 0 ? rest[rest.indexOf(flag) + 1] : undefined;
    const port = Number(at("--port") ?? process.env.FIABLE_PORT ?? 8787);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`Cannot serve: --port "${at("--port")}" is not a port number. Use 0-65535.\n`);
      return 2;
    }
    // Loaded only here: a hook process never pays for the http server.
    const { serve } = await import("./lib/serve.ts");
    await serve({ port, host: at("--host") ?? "127.0.0.1", env: process.env });
    return 0;
  }
  if (word === "settings") return printSettings(rest);
  if (!word || !isEventWord(word)) {
    // Even a misconfigured hook must not break the run: answer with no decision and say why on stderr.
    process.stderr.write(`fiable-guard: unknown event "${word ?? ""}".\n${USAGE}\n`);
    print({});
    return 0;
  }
  await runCommand(word, process.env);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
