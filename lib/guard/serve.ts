/** Resident mode for Claude Code `"type":"http"` hooks: `POST /hook/<event>` with the hook JSON as body. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isEventWord, neutralReply } from "./hook.ts";
import { type LedgerRecord, readLedger } from "./ledger.ts";
import {
  eventSettings,
  failedRecord,
  handle,
  inputCollector,
  loadSettings,
  saveRecord,
  sessionOf,
} from "./handle.ts";
import { postLive } from "./live.ts";
import { recordRestart, rememberTranscript, type RestartInfo, transcriptOf } from "./resident.ts";

/** Options for the resident guard. */
export interface ServeOptions {
  port: number;
  host: string;
  env: Record<string, string | undefined>;
  /** Called once listening, with the bound port (tests pass port 0). */
  onListen?: (port: number) => void;
  /** Set when this guard replaces one that ran before: recorded in the ledger before it listens. */
  restart?: RestartInfo;
}

/**
 * Starts the resident guard; resolves when the server closes, rejects when it cannot listen. Events of one
 * session are handled in order.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const { settings, note } = await loadSettings(options.env);
  if (options.restart && settings.arm !== "stock") {
    recordRestart(settings.ledgerDir, settings.arm, options.restart);
  }
  const supervisor = Number(options.env.FIABLE_SUPERVISOR_PID) || null;
  const health = { ok: true, arm: settings.arm, ledger: settings.ledgerDir, pid: process.pid, supervisor };
  const sessions = new Map<string, LedgerRecord[]>();
  const queues = new Map<string, Promise<unknown>>();
  const records = (session: string) => {
    let list = sessions.get(session);
    if (!list) {
      list = [...readLedger(settings.ledgerDir, session).records];
      sessions.set(session, list);
    }
    return list;
  };
  const server = createServer((req, res) => {
    const word = (req.url ?? "").replace(/^\/hook\//, "").replace(/\?.*$/, "");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/health") return send(200, health);
    if (req.method !== "POST" || !isEventWord(word)) {
      return send(404, { error: `Cannot route ${req.method} ${req.url}: use POST /hook/<event>.` });
    }
    // A body over the parse limit is drained, keeping its head and tail: recorded under its own session.
    const body = inputCollector();
    req.on("data", (c: Buffer) => body.push(c));
    req.on("end", () => {
      const { text, size } = body.done();
      const session = sessionOf(text);
      if (!sessions.has(session) && settings.arm !== "stock") {
        // So a restarted guard can count, from the transcript, the calls it missed while it was down.
        const transcript = transcriptOf(text);
        if (transcript) rememberTranscript(settings.ledgerDir, session, transcript);
      }
      const forEvent = eventSettings(word, settings, options.env);
      const budgetMs = forEvent.decisionMs;
      const previous = queues.get(session) ?? Promise.resolve();
      const next = previous.then(async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const overrun = new Promise<{ reply: Record<string, unknown>; record: LedgerRecord | null }>(
          (resolve) => {
            timer = setTimeout(() =>
              resolve({
                reply: neutralReply(word),
                record: failedRecord(
                  word,
                  text,
                  settings.arm,
                  `time budget of ${budgetMs} ms overrun; allowed`,
                  session,
                ),
              }), budgetMs);
          },
        );
        const outcome = await Promise.race([handle(word, text, forEvent, { records, note, size }), overrun]);
        clearTimeout(timer);
        // The record is saved before the reply leaves, so a reader that saw the reply also sees the record.
        if (outcome.record) {
          records(outcome.record.session).push(outcome.record);
          saveRecord(settings.ledgerDir, outcome.record);
        }
        send(200, outcome.reply);
        if (outcome.record && settings.liveUrl && settings.liveToken) {
          void postLive(settings.liveUrl, settings.liveToken, outcome.record);
        }
      }).catch(() => send(200, neutralReply(word)));
      queues.set(session, next);
    });
  });
  return await new Promise((resolve, reject) => {
    // A port that cannot be bound (EADDRINUSE) rejects: the caller says so and exits non-zero.
    server.on("error", reject);
    server.listen(options.port, options.host, () => {
      const port = (server.address() as AddressInfo).port;
      options.onListen?.(port);
      process.stderr.write(`fiable-guard serving on http://${options.host}:${port} (arm ${settings.arm})\n`);
    });
    server.on("close", () => resolve());
  });
}
