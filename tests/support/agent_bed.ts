/**
 * The fiable-agent end-to-end bed: the scripted Messages API and the stub healthverse MCP server of
 * tests/support/e2e/, an optional fault proxy in front of the model (429/5xx/4xx for the first N requests),
 * and the real agent run as a subprocess (`deno run agent.ts`, or a Node bundle under node). Collects what it wrote.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RecordedRequest, type ScriptStep, startModelServer } from "./e2e/model_server.ts";
import { type Handler, startHealthverse, type StubCall, type StubSeat } from "./e2e/healthverse.ts";
import { parseLedger } from "../../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../../lib/guard/engine/record.ts";
import type { Trajectory } from "../../lib/agent/trajectory.ts";
import { bundleAgent } from "../../bundle.ts";

/** The repository root. */
export const ROOT = join(import.meta.dirname ?? ".", "..", "..");

/** A fake key: Anthropic-shaped, so both the literal scan and the shape scan would catch it. */
export const FAKE_KEY = `sk-ant-e2e-${crypto.randomUUID().replaceAll("-", "")}`;

let bundled: Promise<string> | undefined;

/** The agent's Node bundle, built once per test process from the current sources (removed at exit). */
export function agentBundle(): Promise<string> {
  if (!bundled) {
    const dir = mkdtempSync(join(tmpdir(), "fiable-agent-bundle-"));
    globalThis.addEventListener("unload", () => rmSync(dir, { recursive: true, force: true }));
    bundled = bundleAgent(join(dir, "fiable-agent.mjs"));
  }
  return bundled;
}

/** Answers the first `times` model requests with `status` (a JSON error body), then passes through. */
export interface Fault {
  status: number;
  times: number;
}

/** One bed run's options. */
export interface AgentBedOptions {
  seat: StubSeat;
  prompt: string;
  script: ScriptStep[];
  arm?: string;
  args?: string[];
  handlers?: Record<string, Handler>;
  fault?: Fault;
  /** Run this Node bundle (e.g. from bundleAgent) under node instead of agent.ts under deno. */
  bundle?: string;
  /** A handbook folder to offer (default: none, so the handbook tools are off). */
  handbook?: string;
}

/** What a run left behind. */
export interface AgentBedRun {
  code: number;
  stdout: string;
  stderr: string;
  summary: Record<string, unknown> | null;
  trajectory: Trajectory;
  trajectoryPath: string;
  ledger: LedgerRecord[];
  ledgerDir: string;
  main: RecordedRequest[];
  /** Requests the fault proxy answered with an error. */
  faulted: number;
  calls: StubCall[];
  /** Every file the agent wrote (paths), for secret scans. */
  files: string[];
  dir: string;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full));
    else out.push(full);
  }
  return out;
}

function faultProxy(
  target: string,
  fault: Fault,
): { url: string; count: () => number; close: () => Promise<void> } {
  let seen = 0;
  let faulted = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/v1/messages" && seen++ < fault.times) {
      faulted++;
      await req.body?.cancel();
      const type = fault.status === 429
        ? "rate_limit_error"
        : fault.status >= 500
        ? "api_error"
        : "invalid_request_error";
      return Response.json({ type: "error", error: { type, message: `scripted ${fault.status}` } }, {
        status: fault.status,
        headers: { "retry-after": "0" },
      });
    }
    return fetch(target + url.pathname + url.search, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    count: () => faulted,
    close: () => server.shutdown(),
  };
}

/** Runs the agent once against the bed and returns everything it left behind; the temp dir is removed by `cleanup`. */
export async function runAgentBed(options: AgentBedOptions): Promise<AgentBedRun> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-agent-e2e-"));
  const model = await startModelServer(options.script);
  const hv = await startHealthverse(options.seat, { handlers: options.handlers });
  const proxy = options.fault ? faultProxy(model.url, options.fault) : null;
  const trajectoryPath = join(dir, "logs", "agent", "trajectory.json");
  const ledgerDir = join(dir, "logs", "agent", "fiable");
  const instruction = join(dir, "instruction.md");
  Deno.writeTextFileSync(instruction, options.prompt);
  const flags = [
    "--instruction-file",
    instruction,
    "--mcp-url",
    hv.url,
    "--arm",
    options.arm ?? "checklist",
    "--trajectory",
    trajectoryPath,
    "--ledger",
    ledgerDir,
    "--handbook",
    options.handbook ?? join(dir, "no-handbook"),
    "--backoff-ms",
    "5",
    ...(options.args ?? []),
  ];
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(options.bundle ? "node" : Deno.execPath(), {
      args: options.bundle
        ? [options.bundle, ...flags]
        : ["run", "-A", "--config", join(ROOT, "deno.json"), join(ROOT, "agent.ts"), ...flags],
      cwd: dir,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: Deno.env.get("HOME") ?? dir,
        ANTHROPIC_API_KEY: FAKE_KEY,
        ANTHROPIC_BASE_URL: proxy?.url ?? model.url,
        ANTHROPIC_MODEL: "claude-sonnet-5",
        ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
  } finally {
    await proxy?.close();
    await model.close();
    await hv.close();
  }
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  let summary: Record<string, unknown> | null = null;
  try {
    summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    summary = null;
  }
  let trajectory = { steps: [], final_metrics: { extra: {} } } as unknown as Trajectory;
  try {
    trajectory = JSON.parse(readFileSync(trajectoryPath, "utf8"));
  } catch {
    // Left empty: the test's assertion says what is missing.
  }
  let ledger: LedgerRecord[] = [];
  try {
    ledger = readdirSync(ledgerDir).flatMap((f) =>
      parseLedger(readFileSync(join(ledgerDir, f), "utf8")).records
    );
  } catch {
    ledger = [];
  }
  return {
    code: out.code,
    stdout,
    stderr,
    summary,
    trajectory,
    trajectoryPath,
    ledger,
    ledgerDir,
    main: model.main(),
    faulted: proxy?.count() ?? 0,
    calls: hv.calls,
    files: walk(dir).filter((f) => f !== instruction),
    dir,
  };
}

/** Removes a run's temp dir. */
export function cleanup(run: AgentBedRun): void {
  rmSync(run.dir, { recursive: true, force: true });
}

/** A one-line diagnosis for assertion messages. */
export function explainRun(run: AgentBedRun): string {
  const decisions = run.ledger.map((r) => `${r.event}:${r.decision}${r.tool ? `:${r.tool}` : ""}`).join(" ");
  return `exit ${run.code}; summary ${JSON.stringify(run.summary)}; ledger [${decisions}]; ` +
    `stub [${run.calls.map((c) => c.tool).join(" ")}]; stderr: ${run.stderr.slice(-800)}`;
}
