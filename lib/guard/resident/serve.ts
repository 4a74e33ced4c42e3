/** Resident mode for Claude Code `"type":"http"` hooks: `POST /hook/<event>` with the hook JSON as body. */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { isEventWord, neutralReply } from "../engine/hook.ts";
import type { Arm } from "../engine/record.ts";
import { sessionOf } from "../engine/failed.ts";
import { engineConfig, eventSettings, loadSettings } from "../config/guard_settings.ts";
import { inputCollector } from "../input.ts";
import { runEvent } from "../event.ts";
import { recordRestart, rememberTranscript, type RestartInfo, transcriptOf } from "./resident.ts";
import { sessionLimits, SessionStore } from "./sessions.ts";
import { bindRefusal, refusal, TOKEN_ENV } from "./access.ts";
import { answerChallenge, trialKey } from "./key.ts";
import { type WarmReport, warmUp } from "./warm.ts";

/** How often held sessions are checked for release (ended, idle). */
const SWEEP_MS = 1_000;

/** The process's memory in MB: resident set, V8 heap used and reserved, memory outside the heap. */
function memoryMb(): { rss_mb: number; heap_mb: number; heap_total_mb: number; external_mb: number } {
  const m = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return {
    rss_mb: mb(m.rss),
    heap_mb: mb(m.heapUsed),
    heap_total_mb: mb(m.heapTotal),
    external_mb: mb(m.external),
  };
}

/** True when raw hook text is a main-agent Stop (found without parsing, like `sessionOf`). */
function isMainStop(text: string): boolean {
  return /"hook_event_name"\s*:\s*"Stop"/.test(text.slice(0, 4096));
}

/** Options for the resident guard. */
export interface ServeOptions {
  port: number;
  host: string;
  env: Record<string, string | undefined>;
  /** Called once listening, with the bound port (tests pass port 0) and the settings it serves with. */
  onListen?: (port: number, settings: { arm: Arm; ledgerDir: string }) => void;
  /** Set when this guard replaces one that ran before: recorded in the ledger before it listens. */
  restart?: RestartInfo;
}

/**
 * Starts the resident guard; resolves when the server closes, rejects when it cannot listen. Events of one
 * session are handled in order. Each session's evidence is held in memory and extended by each saved record
 * (lib/guard/resident/sessions.ts); `POST /hook/session-end` releases a session at once.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const token = options.env[TOKEN_ENV] || undefined;
  const refused = bindRefusal(options.host, token);
  if (refused) throw new Error(refused);
  const loaded = await loadSettings(options.env);
  const { settings } = loaded;
  const { limits, note: limitsNote } = sessionLimits(options.env);
  const note = [loaded.note, limitsNote].filter(Boolean).join(" ") || undefined;
  // The sessions a restarted guard resumes are folded from their ledgers right after it listens (one per
  // tick), so their next hook event finds the evidence held instead of paying for the fold.
  const resumed = options.restart && settings.arm !== "stock"
    ? [...new Set(recordRestart(settings.ledgerDir, settings.arm, options.restart).map((r) => r.session))]
    : [];
  // The ledger dir's key, so a probe can tell this guard from any other listener (lib/guard/resident/key.ts).
  let key: string | null = null;
  try {
    key = trialKey(settings.ledgerDir);
  } catch (err) {
    process.stderr.write(
      `fiable-guard: no guard key (${(err as Error).message}); up will not reuse this guard\n`,
    );
  }
  const store = new SessionStore({
    ledgerDir: settings.ledgerDir,
    limits,
    checkpoints: options.env.FIABLE_CHECKPOINT !== "0",
    arm: settings.arm,
  });
  /** The decision path's warm-up once it has run (null before, and for the stock arm). */
  let warmed: WarmReport | null = null;
  const health = (url: string) => ({
    ok: true,
    arm: settings.arm,
    ledger: settings.ledgerDir,
    proof: answerChallenge(url, key, settings.arm, settings.ledgerDir),
    pid: process.pid,
    // Read at each answer: a supervisor that died is replaced by one that adopts this server (supervise.ts).
    supervisor: Number(options.env.FIABLE_SUPERVISOR_PID) || null,
    held: store.size(),
    warm: warmed,
    ...memoryMb(),
  });
  const queues = new Map<string, Promise<unknown>>();
  /** The sweep's work, one session's per tick: hook events that arrive meanwhile are answered in between. */
  let ticks = Promise.resolve();
  const oneATick = (work: () => void) => {
    ticks = ticks.then(() =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          try {
            work();
          } catch {
            // A checkpoint or release that fails leaves the session as it was; never the guard's end.
          }
          resolve();
        })
      )
    );
  };
  // No full collection is forced: one stopped every session for 45–120 ms; the heap flags the guard starts
  // with (`SERVE_HEAP_FLAGS` in lib/guard/resident/resident.ts) keep its memory within bounds instead.
  const sweep = setInterval(() => store.sweep(oneATick), SWEEP_MS);
  sweep.unref?.();
  const server = createServer((req, res) => {
    const path = (req.url ?? "").replace(/\?.*$/, "");
    const word = path.replace(/^\/hook\//, "");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const denied = refusal(req.headers, { boundHost: options.host, token, path });
    if (denied) {
      req.resume();
      return send(denied.status, { error: denied.error });
    }
    if (req.method === "GET" && path === "/health") return send(200, health(req.url ?? ""));
    if (req.method === "POST" && word === "session-end") return endSession(req, send);
    if (req.method !== "POST" || !isEventWord(word)) {
      return send(404, { error: `Cannot route ${req.method} ${req.url}: use POST /hook/<event>.` });
    }
    // A body over the parse limit is drained, keeping its head and tail: recorded under its own session.
    const body = inputCollector();
    req.on("data", (c: Buffer) => body.push(c));
    req.on("end", () => {
      const { text, size } = body.done();
      const session = sessionOf(text);
      if (!store.knows(session) && settings.arm !== "stock") {
        // So a restarted guard can count, from the transcript, the calls it missed while it was down.
        const transcript = transcriptOf(text);
        if (transcript) rememberTranscript(settings.ledgerDir, session, transcript);
      }
      const previous = queues.get(session) ?? Promise.resolve();
      const next = previous.then(async () => {
        await runEvent(word, {
          settings: eventSettings(word, settings, options.env),
          input: () => Promise.resolve({ text, size }),
          note,
          evidence: (s) => store.evidence(s),
          reread: (s) => store.reread(s),
          send: (reply) => send(200, reply),
          saved: (record, written) => {
            // Folded after the reply, off its path (the session's next event still waits for it); the record
            // was saved first, so a session released meanwhile is rebuilt with it.
            const stopped = word === "stop" && isMainStop(text);
            try {
              if (record) store.fold(record, stopped, written);
              else store.touch(session, stopped);
            } catch {
              // Held evidence that missed a record is dropped: the session's next event folds its ledger again.
              store.drop(session);
            }
          },
        });
      }).catch(() => send(200, neutralReply(word)));
      queues.set(session, next);
      // The queue entry goes once the session's last event is answered, so idle sessions hold nothing here.
      void next.finally(() => {
        if (queues.get(session) === next) queues.delete(session);
      });
    });
  });
  /** `POST /hook/session-end`: releases the session's evidence once its queued events are answered. */
  const endSession = (
    req: IncomingMessage,
    send: (status: number, body: unknown) => void,
  ) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => {
      if (chunks.length < 64) chunks.push(c);
    });
    req.on("end", () => {
      const session = sessionOf(Buffer.concat(chunks).toString("utf8"));
      const previous = queues.get(session) ?? Promise.resolve();
      void previous.finally(() => {
        store.end(session);
        send(200, {});
      });
    });
  };
  /**
   * Resumes the sessions a restarted guard found open, one per tick, each read whole however long its ledger
   * grew since its last checkpoint (off the hook path) and checkpointed at once; a session's events wait in its
   * queue for its own resume. Then warms the decision path (lib/guard/resident/warm.ts).
   */
  const warm = (sessions: string[]) => {
    let chain = Promise.resolve();
    for (const session of sessions) {
      const resumed = chain.then(() =>
        new Promise<void>((done) =>
          setImmediate(() => {
            try {
              if (!store.holds(session)) store.resume(session);
            } catch { /* an unreadable ledger is met again, and recorded, by the session's next event */ }
            done();
          })
        )
      );
      queues.set(session, resumed);
      void resumed.then(() => {
        if (queues.get(session) === resumed) queues.delete(session);
      });
      chain = resumed;
    }
    void chain.then(warmDecisions);
  };
  const warmDecisions = () => {
    if (settings.arm === "stock") return;
    void warmUp(engineConfig(settings), setImmediate).then((report) => {
      warmed = report;
      if (report.error) process.stderr.write(`fiable-guard: warm-up ended early: ${report.error}\n`);
    });
  };
  return await new Promise((resolve, reject) => {
    // A port that cannot be bound (EADDRINUSE) rejects: the caller says so and exits non-zero.
    server.on("error", reject);
    server.listen(options.port, options.host, () => {
      const port = (server.address() as AddressInfo).port;
      options.onListen?.(port, settings);
      process.stderr.write(`fiable-guard serving on http://${options.host}:${port} (arm ${settings.arm})\n`);
      warm(resumed);
    });
    server.on("close", () => {
      clearInterval(sweep);
      resolve();
    });
  });
}
