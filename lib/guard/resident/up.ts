/**
 * `guard up` in a trial container (the fiable-cc harness's one setup exec): reuse a live resident guard for
 * the same arm and ledger (a resumed trial calls run() again), else start one under its supervisor and
 * wait for `/health`; then write `settings.json` (http hooks, or command hooks when no guard answers) and
 * `harness.json`. Files are replaced atomically, so Claude Code never reads half a settings file.
 */
import { mkdirSync, rmSync } from "node:fs";
import { writeWhole } from "../io.ts";
import { dirname, join } from "node:path";
import type { Arm } from "../engine/record.ts";
import { DEFAULT_SERVERS, type HookMode, settingsJson } from "../config/claude_settings.ts";
import {
  alive,
  expectedGuard,
  foreign,
  type Health,
  ledgerDirRecords,
  PID_FILE,
  probe,
  recordedPid,
  startResident,
  stopResident,
  waitHealthy,
} from "./resident.ts";
import { hookToken, trialKey } from "./key.ts";
import { TOKEN_ENV } from "./access.ts";
import { ensureSnapshot } from "../runtime/snapshot_blob.ts";
import { LEDGER_VERSION } from "../ledger/chain.ts";

/** What `up` is given. */
export interface UpOptions {
  port: number;
  arm: Exclude<Arm, "stock">;
  ledgerDir: string;
  /** The guard bundle in the container (run by `node`). */
  guard: string;
  settingsFile: string;
  harnessFile: string;
  /** The MCP server names the trial declares; none: the default (`healthverse`). */
  servers: string[];
  claudeVersion?: string;
  waitMs: number;
  env: Record<string, string | undefined>;
}

/** The outcome: the hook mode written and what harness.json holds. */
export interface UpResult {
  hooks: HookMode;
  harness: Record<string, unknown>;
  /** A short human note (reused, fell back and why). */
  note?: string;
}

/** Writes a file whole through a temp file under a random name, created exclusively (never through a link). */
function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeWhole(path, text);
}

/** Why a guard that starts now replaces an earlier one, or undefined for the trial's first guard. */
function restartNote(ledgerDir: string): string | undefined {
  const pid = recordedPid(ledgerDir);
  if (pid === null && !ledgerDirRecords(ledgerDir).length) return undefined;
  return pid !== null && !alive(pid)
    ? `resume: the guard recorded in guard.pid (pid ${pid}) was gone; started again`
    : "resume: no resident guard answered for this ledger; started again";
}

/** Brings the resident guard up or reuses it, then writes settings.json and harness.json. */
export async function bringUp(options: UpOptions): Promise<UpResult> {
  const { port, arm, ledgerDir } = options;
  mkdirSync(ledgerDir, { recursive: true });
  const servers = options.servers.length ? options.servers : [...DEFAULT_SERVERS];
  const expected = expectedGuard(arm, ledgerDir);
  // The trial's hook secret: the guard started here requires it, and the hooks written below send it.
  const token = hookToken(trialKey(ledgerDir));
  const found = await probe(port, expected, 1000);
  let health: Health | null = found.health;
  let reused = false;
  let note: string | undefined;
  // Why the hooks are what they are, as one word harness.json keeps (the trial's facts publish it).
  let reason: "answered" | "reused" | "foreign" | "no_answer" = "answered";
  if (found.ours) {
    reused = true;
    reason = "reused";
    note = `reused the resident guard (pid ${health!.pid ?? "?"})`;
  } else if (health) {
    reason = "foreign";
    note = `port ${port} answers, but not as this trial's guard (${
      foreign(health, expected)
    }); command hooks`;
    health = null;
  } else {
    const started = startResident({
      script: options.guard,
      port,
      arm,
      ledgerDir,
      env: { ...options.env, [TOKEN_ENV]: token },
      restartNote: restartNote(ledgerDir),
    });
    health = await waitHealthy(port, expected, { ms: options.waitMs, started });
    if (!health) {
      stopResident(started.pid);
      rmSync(join(ledgerDir, PID_FILE), { force: true });
      reason = "no_answer";
      note = `the resident guard did not answer on port ${port}; command hooks`;
    }
  }
  const hooks: HookMode = health ? "http" : "command";
  // Command hooks (and http mode's SessionStart) start from a snapshot of the guard made for this node, when
  // one can be made (lib/guard/runtime/snapshot.ts).
  const snapshot = options.guard.endsWith(".cjs") ? ensureSnapshot(options.guard) ?? undefined : undefined;
  writeAtomic(
    options.settingsFile,
    settingsJson({ mode: hooks, arm, ledgerDir, guard: options.guard, port, servers, token, snapshot }),
  );
  const harness: Record<string, unknown> = {
    arm,
    hooks,
    hooks_reason: reason,
    // Every record this guard writes is chained (lib/guard/ledger/chain.ts): verify expects it.
    ledger_format: LEDGER_VERSION,
    port,
    servers,
    ...(options.claudeVersion ? { claude_version: options.claudeVersion } : {}),
    supervisor: Boolean(health?.supervisor),
    reused,
    ...(health?.pid ? { guard_pid: health.pid } : {}),
  };
  writeAtomic(options.harnessFile, JSON.stringify(harness) + "\n");
  return { hooks, harness, note };
}
