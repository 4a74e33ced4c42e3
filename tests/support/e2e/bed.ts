/**
 * The end-to-end bed: a scripted model, the stub healthverse server, the guard (resident http server or
 * per-event command from the Node bundle) and the pinned Claude Code, wired as a χ-Bench trial wires them.
 * `runBed()` starts everything, runs one `claude -p`, stops everything it started (also on failure) and
 * returns what the model was shown, what the stub served and what the guard wrote in its ledger.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLedger } from "../../../lib/guard/ledger/ledger.ts";
import { type Arm, type LedgerRecord } from "../../../lib/guard/engine/record.ts";
import { type HookMode, settingsJson } from "../../../lib/guard/config/claude_settings.ts";
import { testBundle } from "../guard_process.ts";
import { hookToken, trialKey } from "../../../lib/guard/resident/key.ts";
import { TOKEN_ENV } from "../../../lib/guard/resident/access.ts";
import { type ClaudeResult, runClaude } from "./claude.ts";
import { type RecordedRequest, type ScriptStep, startModelServer } from "./model_server.ts";
import {
  type Handler,
  type Healthverse,
  startHealthverse,
  type StubCall,
  type StubSeat,
} from "./healthverse.ts";

/** The two hook modes, for tests that run in both. */
export const MODES: HookMode[] = ["http", "command"];

/**
 * The guard's time budget in these tests: generous, so a machine busy with other work cannot turn a
 * deny into a fail-open allow. The fail-open scenario sets its own small budget.
 */
export const E2E_DECISION_MS = 5000;

/** A guard profile (YAML) holding only budgets. */
export function budgetProfile(budgets: NonNullable<BedOptions["budgets"]>): string {
  const lines = Object.entries({ decision_ms: E2E_DECISION_MS, ...budgets })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `  ${k}: ${v}`);
  return `budgets:\n${lines.join("\n")}\n`;
}

/** One end-to-end run's setup. */
export interface BedOptions {
  mode: HookMode;
  arm: Arm;
  seat: StubSeat;
  prompt: string;
  script: ScriptStep[];
  handlers?: Record<string, Handler>;
  /**
   * The task's MCP servers (name and the seat whose tools each serves), as `.claude.json` and the hook
   * matchers get them. Default: one `healthverse` server for `seat`.
   */
  servers?: { name: string; seat: StubSeat }[];
  /** Guard budgets, written as the FIABLE_PROFILE YAML (decision_ms defaults to E2E_DECISION_MS). */
  budgets?: { decision_ms?: number; stop_blocks?: number; block_per_signature?: number };
  /** Test-only guard fault: FIABLE_FAULT and optionally FIABLE_FAULT_EVENT. */
  fault?: { kind: "crash" | "hang" | "slow"; event?: string };
  timeoutMs?: number;
  /** The Claude Code version (default: the bed's, `CLAUDE_CODE_VERSION`). */
  claudeVersion?: string;
  /** The guard's ledger folder (default: one in the run's temp folder, removed after it). */
  ledgerDir?: string;
  /**
   * Set the trial up as `guard up` does: the trial key made in the ledger folder before any hook runs (the
   * ledger's chain is keyed with it), and in http mode the hooks' secret derived from it, which the resident
   * guard requires and every http hook sends.
   */
  trial?: boolean;
  /** Called once the guard is up, before Claude Code starts: its port (http mode). */
  onReady?: (guard: { port?: number }) => void;
}

/** What one run produced. */
export interface BedRun {
  requests: RecordedRequest[];
  /** Main-loop requests only, in order. */
  main: RecordedRequest[];
  ledger: LedgerRecord[];
  /** Ledger lines that were not valid records (interleaved or truncated writes). */
  corrupt: number;
  /** Every call the stub servers served (in the order each server served them). */
  calls: StubCall[];
  /** The calls per server name. */
  callsBy: Record<string, StubCall[]>;
  claude: ClaudeResult;
}

/** A resident guard (`node <bundle> serve --port 0`) started for one run. */
interface ResidentGuard {
  port: number;
  stop(): Promise<void>;
}

async function startResident(bundle: string, env: Record<string, string>): Promise<ResidentGuard> {
  const child = new Deno.Command("node", {
    args: [bundle, "serve", "--port", "0"],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
  };
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const timer = setTimeout(() => reader.cancel(), 10_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
      const m = /serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        // Keep draining stderr so the guard never blocks on a full pipe.
        (async () => {
          try {
            while (!(await reader.read()).done) { /* drain */ }
          } catch { /* closed */ }
        })();
        return { port: Number(m[1]), stop };
      }
    }
  } catch { /* fall through */ }
  clearTimeout(timer);
  await stop();
  throw new Error(`Cannot start the resident guard: it did not report a port.\n${seen}`);
}

/** Every record in every ledger file of the dir (a run has one session; fail-open records may be separate). */
export function readAllLedgers(dir: string): { records: LedgerRecord[]; corrupt: number } {
  const records: LedgerRecord[] = [];
  let corrupt = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir).sort();
  } catch { /* no ledger written */ }
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const parsed = parseLedger(readFileSync(join(dir, name), "utf8"));
    records.push(...parsed.records);
    corrupt += parsed.corrupt;
  }
  return { records, corrupt };
}

/** Runs one scripted trial through the real client and the guard in the given mode; cleans up everything. */
export async function runBed(options: BedOptions): Promise<BedRun> {
  const bundle = await testBundle();
  const tmp = mkdtempSync(join(tmpdir(), "fiable-e2e-"));
  const ledgerDir = options.ledgerDir ?? join(tmp, "ledger");
  writeFileSync(join(tmp, "profile.yaml"), budgetProfile(options.budgets ?? {}));
  const guardEnv: Record<string, string> = { FIABLE_PROFILE: join(tmp, "profile.yaml") };
  if (options.fault) {
    guardEnv.FIABLE_FAULT = options.fault.kind;
    if (options.fault.event) guardEnv.FIABLE_FAULT_EVENT = options.fault.event;
  }
  const stops: (() => Promise<void>)[] = [];
  try {
    const model = await startModelServer(options.script);
    stops.push(() => model.close());
    const declared = options.servers ?? [{ name: "healthverse", seat: options.seat }];
    const stubs: Record<string, Healthverse> = {};
    for (const server of declared) {
      const stub = await startHealthverse(server.seat, { handlers: options.handlers });
      stops.push(() => stub.close());
      stubs[server.name] = stub;
    }
    let port: number | undefined;
    const token = options.trial ? hookToken(trialKey(ledgerDir)) : undefined;
    if (options.mode === "http") {
      const guard = await startResident(bundle, {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        FIABLE_CC_ARM: options.arm,
        FIABLE_LEDGER_DIR: ledgerDir,
        ...guardEnv,
        ...(token ? { [TOKEN_ENV]: token } : {}),
      });
      stops.push(guard.stop);
      port = guard.port;
    }
    options.onReady?.({ port });
    const servers = Object.keys(stubs);
    const settings = settingsJson({
      mode: options.mode,
      arm: options.arm,
      ledgerDir,
      guard: bundle,
      port,
      servers,
      token: options.mode === "http" ? token : undefined,
    });
    const claude = await runClaude({
      prompt: options.prompt,
      modelUrl: model.url,
      mcp: Object.fromEntries(Object.entries(stubs).map(([name, stub]) => [name, stub.url])),
      settings,
      env: options.mode === "command" ? guardEnv : {},
      timeoutMs: options.timeoutMs ?? 45_000,
      version: options.claudeVersion,
    });
    const { records, corrupt } = readAllLedgers(ledgerDir);
    return {
      requests: model.requests,
      main: model.main(),
      ledger: records,
      corrupt,
      calls: Object.values(stubs).flatMap((stub) => stub.calls),
      callsBy: Object.fromEntries(Object.entries(stubs).map(([name, stub]) => [name, stub.calls])),
      claude,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
}
