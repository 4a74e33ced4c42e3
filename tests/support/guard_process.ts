/** Spawns the guard as Claude Code does: one process per event, JSON on stdin, one JSON object on stdout. */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../../bundle.ts";
import { ledgerFileName, ledgerText } from "../../lib/guard/ledger/ledger.ts";
import { chainKeyOf } from "../../lib/guard/ledger/chain.ts";
import { trialKey } from "../../lib/guard/resident/key.ts";
import { PID_FILE } from "../../lib/guard/resident/resident.ts";
import type { LedgerRecord } from "../../lib/guard/engine/record.ts";
import { slowdown } from "./slowdown.ts";

const ROOT = join(import.meta.dirname ?? ".", "..", "..");

/** A way to run the guard: under Deno from source, or the Node ≥ 20 bundle under node. */
export interface Runtime {
  name: string;
  argv: (word: string) => string[];
}

let bundlePath: Promise<string> | undefined;

/** The bundle, built once per test run into a temporary directory. */
export function testBundle(): Promise<string> {
  bundlePath ??= bundleGuard(join(mkdtempSync(join(tmpdir(), "fiable-bundle-")), "fiable-guard.cjs"));
  return bundlePath;
}

/** The two runtimes every hook test runs against: Deno running guard.ts, and the Node bundle (in a temp dir). */
export async function runtimes(): Promise<Runtime[]> {
  const bundle = await testBundle();
  return [
    { name: "deno", argv: (word) => [Deno.execPath(), "run", "-A", join(ROOT, "guard.ts"), word] },
    { name: "node", argv: (word) => ["node", bundle, word] },
  ];
}

/** What one guard process did. */
export interface GuardRun {
  stdout: string;
  stderr: string;
  code: number | null;
  ms: number;
  /** stdout parsed as the single JSON object it must be (throws when it is anything else). */
  reply: () => Record<string, unknown>;
}

/**
 * Runs one event through a guard process with the given stdin and environment. `{ path }` gives the guard a
 * file as stdin, so a 100 MB input times the guard rather than this process's pipe writes.
 */
export function runGuard(
  runtime: Runtime,
  word: string,
  stdin: string | Uint8Array | { path: string },
  env: Record<string, string>,
): Promise<GuardRun> {
  const [cmd, ...args] = runtime.argv(word);
  const fromFile = typeof stdin === "object" && "path" in stdin ? openSync(stdin.path, "r") : undefined;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", NO_COLOR: "1", ...env },
      stdio: [fromFile ?? "pipe", "pipe", "pipe"],
    });
    if (fromFile !== undefined) closeSync(fromFile);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        stdout,
        stderr,
        code,
        ms: performance.now() - started,
        reply: () => {
          const lines = stdout.split("\n").filter((l) => l.trim());
          if (lines.length !== 1) {
            throw new Error(`expected one JSON line on stdout, got ${lines.length}: ${stdout}`);
          }
          return JSON.parse(lines[0]);
        },
      }));
    if (fromFile !== undefined) return;
    child.stdin!.on("error", () => {/* the guard may answer before reading everything */});
    child.stdin!.end(stdin);
  });
}

/**
 * `guard serve --port 0` under a runtime; resolves with its URL once it says it listens, and a stop function.
 * `env` is the whole environment beside PATH and HOME (`FIABLE_SUPERVISE: "0"` runs it without its supervisor);
 * `extra` more arguments (`--child --restart-note why`: a guard its supervisor restarted).
 */
export function serveGuard(
  runtime: Runtime,
  env: Record<string, string>,
  extra: string[] = [],
): Promise<{ url: string; stop: () => void }> {
  const [cmd, ...args] = runtime.argv("serve");
  const child = spawn(cmd, [...args, "--port", "0", ...extra], {
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d) => {
      err += d;
      const m = /serving on (http:\/\/[^ ]+)/.exec(err);
      if (m) resolve({ url: m[1].trim(), stop: () => child.kill() });
    });
    child.on("exit", (code) => reject(new Error(`guard serve exited ${code}: ${err}`)));
  });
}

/**
 * Polls `probe` every 25 ms until it gives a value; throws naming `what` after `idleMs` of an idle machine,
 * stretched by the load measured as it starts (tests/support/slowdown.ts): a bound on a hang, not a budget.
 */
export async function until<T>(
  what: string,
  idleMs: number,
  probe: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const ms = Math.round(idleMs * slowdown());
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Timed out after ${ms} ms waiting for ${what}.`);
}

/** A fresh ledger directory. */
export function tempLedger(): string {
  return mkdtempSync(join(tmpdir(), "fiable-ledger-"));
}

/**
 * Writes a session's ledger as a trial's guard would have: the trial key made first (as `guard up` makes it),
 * each record chained to the one before under it. Returns the file.
 */
export function writeLedger(dir: string, session: string, records: readonly LedgerRecord[]): string {
  trialKey(dir);
  const file = join(dir, ledgerFileName(session));
  writeFileSync(file, ledgerText(records.map((r) => ({ ...r, session })), chainKeyOf(dir)));
  return file;
}

/** A free TCP port on 127.0.0.1 (tests bind port 0 where they can; this is for ports a child must bind). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** What `guard up` did for a trial dir: its exit, output, the settings and harness.json it wrote, its guard's pid. */
export interface UpRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The hook settings it wrote (`<dir>/config/settings.json`), as text. */
  settings: string;
  harness: Record<string, unknown>;
  /** The pid file's pid, 0 when none was written. */
  pid: number;
}

/**
 * Runs `guard up` as a trial's setup does, for the checklist arm with `dir` as the ledger folder and the settings
 * and harness.json inside it: `argv` runs the guard (`node <bundle>` or `deno run guard.ts`), `guard` is the file
 * the hooks it writes run.
 */
export async function guardUp(options: {
  argv: (word: string) => string[];
  guard: string;
  port: number;
  dir: string;
  extra?: string[];
  env?: Record<string, string>;
}): Promise<UpRun> {
  const { dir } = options;
  const [cmd, ...args] = options.argv("up");
  const out = await new Deno.Command(cmd, {
    args: [
      ...args,
      "--port",
      String(options.port),
      "--arm",
      "checklist",
      "--ledger",
      dir,
      "--guard",
      options.guard,
      "--settings",
      join(dir, "config", "settings.json"),
      "--harness",
      join(dir, "harness.json"),
      ...(options.extra ?? []),
    ],
    env: { PATH: Deno.env.get("PATH") ?? "", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const read = (name: string) => existsSync(join(dir, name)) ? readFileSync(join(dir, name), "utf8") : "";
  const harness = read("harness.json");
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
    settings: read(join("config", "settings.json")),
    harness: harness ? JSON.parse(harness) : {},
    pid: Number(read(PID_FILE)) || 0,
  };
}
