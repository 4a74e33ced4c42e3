/**
 * The resident guard's lifecycle in a trial container: probe `/health`, start it detached under its
 * supervisor, reuse a live one for the same arm and ledger (a resumed trial), and record in the ledger when
 * it came back (`restart`) and what it missed while it was down (`gap`). Web and `node:` APIs only.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import * as io from "../io.ts";
import { parseLedger, saveRecord } from "../ledger/ledger.ts";
import { type Arm, type LedgerRecord } from "../engine/record.ts";
import { bySession, guardRecord, missedCalls, transcriptCalls } from "./gap.ts";
import { newChallenge, proves, trialKey } from "./key.ts";

/** What `GET /health` answers. */
export interface Health {
  ok: true;
  arm: string;
  /** The ledger dir the guard writes (absent from guards older than this field). */
  ledger?: string;
  /** The server process. */
  pid?: number;
  /** Its supervisor's pid, or null when it runs unsupervised. */
  supervisor?: number | null;
  /** The answer to the probe's challenge (lib/guard/resident/key.ts). */
  proof?: string;
}

/** The pid file of the resident guard's supervisor, in the ledger dir. */
export const PID_FILE = "guard.pid";
/** The resident guard's stderr, appended, in the ledger dir. */
export const SERVE_LOG = "guard-serve.log";
/** Session id → transcript path, kept by the resident guard so a restart can count what it missed. */
export const TRANSCRIPTS_FILE = "guard-transcripts.json";
/** The largest transcript map read (a larger one is read as none). */
const MAX_TRANSCRIPTS_FILE = 4 * 1024 * 1024;
/** The largest transcript read to count missed calls. */
const MAX_TRANSCRIPT = 64 * 1024 * 1024;

/** True once this process has made a request: its first one also starts the HTTP client. */
let clientStarted = false;

/**
 * The health answer of a resident guard on 127.0.0.1:port, or null when nothing answers in time; with a
 * challenge, the guard answers it (`proof`, lib/guard/resident/key.ts). A process's first request also loads
 * the HTTP client (Node's fetch: about 50 ms on an idle core, over 0.5 s on a busy one), so when its timer
 * runs out the port is asked once more, the client loaded, before it is said to be silent: a slow start must
 * not read as no guard (a check would then start a second one beside it and record a restart that never was).
 */
export async function healthOf(port: number, timeoutMs = 1000, challenge?: string): Promise<Health | null> {
  const first = !clientStarted;
  clientStarted = true;
  const answer = await askHealth(port, timeoutMs, challenge);
  if (answer === "timeout") return first ? healthOf(port, timeoutMs, challenge) : null;
  return answer;
}

async function askHealth(
  port: number,
  timeoutMs: number,
  challenge?: string,
): Promise<Health | null | "timeout"> {
  // A referenced timer, not AbortSignal.timeout (unreferenced in Node): a peer that accepts and never
  // answers must not let a short-lived process's event loop run dry mid-probe.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const query = challenge ? `?challenge=${challenge}` : "";
    const res = await fetch(`http://127.0.0.1:${port}/health${query}`, { signal: controller.signal });
    const body = await res.json();
    return body && body.ok === true && typeof body.arm === "string" ? body as Health : null;
  } catch {
    return controller.signal.aborted ? "timeout" : null;
  } finally {
    clearTimeout(timer);
  }
}

/** The guard a trial expects on its port: its arm, its ledger dir and that dir's key. */
export interface Expected {
  arm: string;
  ledgerDir: string;
  key: string;
}

/** The guard this trial expects for the arm and ledger dir (the dir's key is made when it has none). */
export function expectedGuard(arm: string, ledgerDir: string): Expected {
  return { arm, ledgerDir, key: trialKey(ledgerDir) };
}

/** Why a guard that answered is not this trial's: another arm, another ledger dir, or no proof. */
export function foreign(health: Health, expected: { arm: string; ledgerDir: string }): string {
  if (health.arm !== expected.arm) return `arm ${health.arm}`;
  if (health.ledger !== expected.ledgerDir) {
    return health.ledger === undefined ? "no ledger dir named" : `ledger ${health.ledger}`;
  }
  return "it cannot prove it holds this ledger dir's key";
}

/** What a probe found: the health answer (null: nothing answered) and whether it proved to be the expected guard. */
export interface Probe {
  health: Health | null;
  ours: boolean;
}

/**
 * Probes the port with a fresh challenge. Only a guard that answers it for the expected arm and ledger dir is
 * ours: any other listener (another trial's guard, an older guard, an impostor copying a health answer) is not.
 */
export async function probe(port: number, expected: Expected, timeoutMs = 1000): Promise<Probe> {
  const challenge = newChallenge();
  const health = await healthOf(port, timeoutMs, challenge);
  const ours = health !== null && health.arm === expected.arm && health.ledger === expected.ledgerDir &&
    proves(health.proof, { ...expected, challenge });
  return { health, ours };
}

/** The argv that runs a guard subcommand with the running runtime: `node <bundle> …` or `deno run -A <guard.ts> …`. */
export function guardArgv(script: string, args: string[]): string[] {
  const deno = Boolean((process.versions as Record<string, string | undefined>).deno);
  const runtime = deno ? ["run", "-A", `--v8-flags=${SERVE_HEAP_FLAGS.join(",")}`] : SERVE_HEAP_FLAGS;
  return [process.execPath, ...runtime, script, ...args];
}

/**
 * The resident guard's heap. 4 MB semi-spaces instead of V8's 16 MB: each event's garbage is short-lived; 100k
 * events across 64 sessions peaked at 155 MB RSS with the default and 132 MB with this, at the same throughput
 * (`deno run -A bench/resident.ts`). And `--optimize-for-size`: V8 then grows the old generation by 1.3 times
 * what a collection leaves live instead of up to 4 times, and its full collections compact and give pages back,
 * so the heap follows the sessions held; 100k events over 64 sessions peaked at 139–141 MB RSS (heap 83–85 MB
 * reserved) against 173 MB (119 MB) with a full collection forced every 2 s past 64 MB, which stopped every
 * session for 45–120 ms each time (`deno run -A bench/load.ts`; issue 39). V8 reads them only at start-up, so
 * they are on the command line of every guard the supervisor or a SessionStart check starts.
 */
export const SERVE_HEAP_FLAGS = ["--max-semi-space-size=4", "--optimize-for-size"];

/** Environment for a resident guard: only what it needs (no credentials Claude Code's env may hold). */
export function residentEnv(
  env: Record<string, string | undefined>,
  arm: Arm,
  ledgerDir: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (k.startsWith("FIABLE_") || ["PATH", "HOME", "LANG", "TZ"].includes(k))) {
      out[k] = v;
    }
  }
  return { ...out, FIABLE_CC_ARM: arm, FIABLE_LEDGER_DIR: ledgerDir };
}

/** Options for starting a resident guard. */
export interface StartOptions {
  /** The guard bundle (or guard.ts) to run. */
  script: string;
  port: number;
  arm: Arm;
  ledgerDir: string;
  env: Record<string, string | undefined>;
  /** Why it is started although it ran before: becomes a `restart` record in each active session. */
  restartNote?: string;
  /** Since when no guard answered (ISO), when known: a `gap` record beside each restart record. */
  downSince?: string;
  /** A session that gets the restart record even when it has no records yet. */
  session?: string;
  /** The host to bind (default 127.0.0.1). */
  host?: string;
  /** A live server (pid) the new supervisor adopts instead of starting one (its own supervisor died). */
  adopt?: number;
}

/** A started resident guard: its (supervisor's) pid, and whether that process has exited since. */
export interface Started {
  pid: number;
  exited(): boolean;
}

/** Starts `serve` detached (its own session, stdio to guard-serve.log) and writes guard.pid. */
export function startResident(options: StartOptions): Started {
  const args = ["serve", "--port", String(options.port)];
  if (options.host) args.push("--host", options.host);
  if (options.adopt) args.push("--adopt", String(options.adopt));
  if (options.restartNote) args.push("--restart-note", options.restartNote);
  if (options.restartNote && options.downSince) args.push("--down-since", options.downSince);
  if (options.session) args.push("--session", options.session);
  const [cmd, ...rest] = guardArgv(options.script, args);
  const log = io.openLog(join(options.ledgerDir, SERVE_LOG));
  try {
    const child = spawn(cmd, rest, {
      detached: true,
      stdio: ["ignore", log, log],
      env: residentEnv(options.env, options.arm, options.ledgerDir),
    });
    let exited = false;
    child.on("exit", () => (exited = true));
    child.on("error", () => (exited = true));
    child.unref();
    if (!child.pid) throw new Error(`Cannot start the resident guard: ${cmd} did not start.`);
    io.writeWhole(join(options.ledgerDir, PID_FILE), `${child.pid}\n`);
    return { pid: child.pid, exited: () => exited };
  } finally {
    closeSync(log);
  }
}

/** True while a process with this pid runs (a zombie nobody reaped yet counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // `<pid> (<comm>) <state> …`; comm may hold spaces or parentheses, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Polls until the expected guard answers, the started process is gone, or the time is up. */
export async function waitHealthy(
  port: number,
  expected: Expected,
  options: { ms: number; started?: Started },
): Promise<Health | null> {
  const end = Date.now() + options.ms;
  while (Date.now() < end) {
    const found = await probe(port, expected, 500);
    if (found.ours) return found.health;
    if (options.started?.exited()) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** Stops a resident guard started by `startResident` (its process group, then the pid itself). */
export function stopResident(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, "SIGTERM");
    } catch { /* already gone */ }
  }
}

/** The pid recorded in guard.pid, or null. */
export function recordedPid(ledgerDir: string): number | null {
  try {
    const pid = Number(io.readRange(join(ledgerDir, PID_FILE), 0, 32).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Every record of every `*.jsonl` in a ledger dir (missing dir: none). */
export function ledgerDirRecords(ledgerDir: string): LedgerRecord[] {
  let names: string[] = [];
  try {
    names = readdirSync(ledgerDir).filter((n) => n.endsWith(".jsonl")).sort();
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      // Never through a link, never a FIFO (it would hold a restarting guard up before it listens).
      return parseLedger(io.readRange(join(ledgerDir, name), 0, Number.MAX_SAFE_INTEGER)).records;
    } catch {
      return [];
    }
  });
}

/** The transcript path in raw hook text, found without parsing. */
export function transcriptOf(text: string): string | null {
  return /"transcript_path"\s*:\s*"([^"\\]{1,1000})"/.exec(text.slice(0, 8192))?.[1] ?? null;
}

function readTranscripts(ledgerDir: string): Record<string, string> {
  try {
    const map = JSON.parse(io.readRange(join(ledgerDir, TRANSCRIPTS_FILE), 0, MAX_TRANSCRIPTS_FILE));
    return map && typeof map === "object" ? map : {};
  } catch {
    return {};
  }
}

/** Remembers a session's transcript path (atomic rewrite of guard-transcripts.json); never throws. */
export function rememberTranscript(ledgerDir: string, session: string, path: string): void {
  try {
    const map = readTranscripts(ledgerDir);
    if (map[session] === path) return;
    map[session] = path;
    io.makeDir(ledgerDir);
    // A temp file under a random name, created exclusively, renamed into place: never written through a link.
    io.writeWhole(join(ledgerDir, TRANSCRIPTS_FILE), JSON.stringify(map) + "\n");
  } catch { /* counting missed calls is best effort */ }
}

/** Sessions a restart concerns: every session not cleanly stopped, else the latest; plus the named one. */
export function activeSessions(sessions: Map<string, LedgerRecord[]>, named?: string): string[] {
  const open = [...sessions].filter(([, list]) => {
    const last = list.at(-1);
    return !(last?.event === "stop" && (last.decision === "allow" || last.decision === "release"));
  }).map(([id]) => id);
  const latest = [...sessions].sort((a, b) => (a[1].at(-1)?.t ?? "") < (b[1].at(-1)?.t ?? "") ? 1 : -1)[0]
    ?.[0];
  const out = open.length ? open : latest ? [latest] : [];
  if (named && !out.includes(named)) out.push(named);
  return out;
}

/** What a (re)started guard records: why, and since when it was down if that is known. */
export interface RestartInfo {
  note: string;
  /** When the previous guard stopped answering (ISO); a `gap` record is written when given. */
  downSince?: string;
  session?: string;
}

/** Writes the `restart` (and `gap`) records of a guard that came back up; returns them. Never throws. */
export function recordRestart(
  ledgerDir: string,
  arm: Arm,
  info: RestartInfo,
  now = new Date(),
): LedgerRecord[] {
  const written: LedgerRecord[] = [];
  try {
    const sessions = bySession(ledgerDirRecords(ledgerDir));
    const transcripts = readTranscripts(ledgerDir);
    const t = now.toISOString();
    for (const session of activeSessions(sessions, info.session)) {
      const records = sessions.get(session) ?? [];
      written.push(guardRecord(session, arm, "restart", { t, note: info.note }));
      if (info.downSince) {
        const gap = { since: info.downSince, until: t };
        const path = transcripts[session];
        let counted = {};
        if (path && existsSync(path)) {
          // Its tail, from a regular file opened without blocking: a FIFO or a huge file never holds it up.
          try {
            counted = missedCalls(transcriptCalls(io.readTail(path, MAX_TRANSCRIPT)), records, gap);
          } catch { /* not a regular file: the missed calls are not countable */ }
        }
        const note = path ? "hook events missed while the guard was down" : "missed calls not countable: " +
          "no transcript path known for the session";
        written.push(guardRecord(session, arm, "gap", { t, note, gap: { ...gap, ...counted } }));
      }
    }
    for (const record of written) saveRecord(ledgerDir, record);
  } catch (err) {
    process.stderr.write(`fiable-guard: cannot record the restart: ${(err as Error).message}\n`);
  }
  return written;
}
