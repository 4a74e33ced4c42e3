/**
 * One χ-Bench trial of fiable-cc on the Harbor stand-in (tests/support/harbor_stub/): the harness as
 * install.ts installs it in a chi-bench checkout, the Node guard bundle, a real Claude Code (the
 * version a real Harbor 0.20 run used), the scripted Messages API and stub MCP servers named as the task
 * declares them, run through Harbor 0.20's lifecycle in a private mount namespace, verified by a stand-in
 * verifier. `standInTrial()` returns the trial dir Harbor wrote (`<root>/trials/<trial>/…`), which replay,
 * aggregate, the dashboard and `verify` read like a real one. Reusable: `supervisor: false` runs the same
 * trial with the guard's supervisor off (a killed guard then stays dead).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main as installMain } from "../../install.ts";
import type { Arm, LedgerRecord } from "../../lib/guard/engine/record.ts";
import { alive } from "../../lib/guard/resident/resident.ts";
import { TOOLS } from "../../rules/catalog/tools.ts";
import { chiBenchFixture } from "./chibench_fixture.ts";
import { freePort, testBundle } from "./guard_process.ts";
import { readAllLedgers } from "./e2e/bed.ts";
import { ensureClaude } from "./e2e/claude.ts";
import { HARBOR_CLAUDE_CODE_VERSION } from "./e2e/claude_version.ts";
import {
  type Handler,
  type Healthverse,
  startHealthverse,
  type StubCall,
  type StubSeat,
} from "./e2e/healthverse.ts";
import { type ModelServer, type ScriptStep, startModelServer } from "./e2e/model_server.ts";
import { deliverShownLetter, mcp, PAYER, PAYER_CASE, PAYER_PROMPT } from "./e2e/scenario.ts";
import { slowdown } from "./slowdown.ts";

/** The repository root. */
const ROOT = join(import.meta.dirname ?? ".", "..", "..");
/** The Harbor stand-in package and its trial runner. */
export const HARBOR_STUB = join(ROOT, "tests", "support", "harbor_stub");
/** The harness Harbor imports, as install.ts registers it. */
export const FIABLE_CC = "chi_bench.experiment.agents.fiable_cc_harness:FiableClaudeCode";

/** A check of the stand-in verifier: a successful call of `tool` (registered name) with these arguments. */
export interface VerifierCheck {
  id: string;
  tool: string;
  args?: Record<string, unknown>;
}

/** The resident guard as a script step sees it (it runs while the trial does). */
export interface GuardHandle {
  port: number;
  /** `GET /health`, or null when nothing answers. */
  health(): Promise<Record<string, unknown> | null>;
  /** `kill -9` the server process (not its supervisor); resolves with its pid once it is gone. */
  kill(): Promise<number>;
  /** Resolves when the guard answers again (within `ms`), with its health; throws when it does not. */
  waitUp(ms?: number): Promise<Record<string, unknown>>;
}

/** One stand-in trial's setup. */
export interface StandInOptions {
  arm?: Arm;
  /** Occupy the guard's port first, so the harness falls back to command hooks. */
  fallback?: boolean;
  /** The MCP servers the task declares: name and the seat whose tools it serves. Default: `healthverse`, payer. */
  servers?: { name: string; seat: StubSeat }[];
  prompt: string;
  /** The model's turns; a function gets the guard handle (for steps that kill it or wait for it). */
  script: ScriptStep[] | ((guard: GuardHandle) => ScriptStep[]);
  handlers?: Record<string, Handler>;
  /** The guard's supervisor (default on); off: `FIABLE_SUPERVISE=0` reaches the guard through `--ae`. */
  supervisor?: boolean;
  /** `run()` calls on the same container: 2 resumes the session with `--continue`. */
  runs?: number;
  /** What the stand-in verifier checks (default: none, reward 0). */
  checks?: VerifierCheck[];
  /** Cases no successful mutation may name (the `cross.forbidden_mutations` check). */
  forbiddenCases?: string[];
  /** The task dir name (the trial's task and domain come from it). */
  task?: string;
  /**
   * A harness variant to run instead of the installed one: Python source of a module that may import
   * `chi_bench.experiment.agents.fiable_cc_harness` (a negative test's deliberately broken subclass).
   */
  harness?: { source: string; className: string };
  /** Kill every process an exec leaves behind when it returns (a backend where nothing outlives its exec). */
  reapAfterExec?: boolean;
  claudeVersion?: string;
}

/** An exec the stand-in container ran, with the config dir Claude Code would have read when it started. */
export interface StandInExec {
  command: string;
  user: string | null;
  env_keys: string[];
  return_code?: number;
  config_dir: { "settings.json": string | null; ".claude.json": string | null };
}

/** What one stand-in trial left. */
export interface StandInTrial {
  /** The trial dir Harbor wrote. */
  trialDir: string;
  /** The trials dir holding it (an arm's root for aggregate). */
  trialsDir: string;
  result: Record<string, unknown>;
  execs: StandInExec[];
  uploads: string[][];
  model: ModelServer;
  calls: StubCall[];
  /** The ledger records in `<trial>/agent/fiable/`. */
  ledger: LedgerRecord[];
  guardPort: number;
  /** Python's stderr (the trial's own log is `<trial>/trial.log`). */
  stderr: string;
  /** What a canned scenario's steps observed while the trial ran (e.g. the guard's health). */
  notes: Record<string, unknown>;
  dispose(): void;
}

/** Whether the stand-in container can run here (root or user namespaces), and why not. */
export function standInAvailable(): { ok: boolean; why: string } {
  const probe = spawnSync("python3", [
    "-c",
    "import container,sys; ok, why = container.available(); print(why)",
  ], {
    encoding: "utf8",
    env: { ...Deno.env.toObject(), PYTHONPATH: HARBOR_STUB },
  });
  const why = probe.status === 0 ? probe.stdout.trim() : `python3 failed: ${probe.stderr.trim()}`;
  return { ok: probe.status === 0 && !why, why };
}

async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const { log, error } = console;
  console.log = () => {};
  console.error = () => {};
  try {
    return await work();
  } finally {
    console.log = log;
    console.error = error;
  }
}

let checkout: Promise<string> | undefined;

/** A chi-bench fixture checkout with fiable-cc installed by install.ts (the real bundle), made once. */
export function installedCheckout(): Promise<string> {
  checkout ??= (async () => {
    const dir = chiBenchFixture();
    const code = await quietly(async () =>
      installMain(["--chi-bench", dir, "--bundle", await testBundle(), "--apply"])
    );
    if (code !== 0) {
      throw new Error(`Cannot install fiable-cc into the fixture checkout ${dir}: exit ${code}.`);
    }
    return dir;
  })();
  return checkout;
}

function guardHandle(port: number): GuardHandle {
  const health = async () => {
    try {
      // A bound on a hang, not a budget: a loaded machine can take over 0.5 s to answer on loopback.
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) });
      return await res.json() as Record<string, unknown>;
    } catch {
      return null;
    }
  };
  return {
    port,
    health,
    async kill() {
      const pid = Number((await health())?.pid);
      if (!pid) {
        throw new Error(`Cannot kill the resident guard on port ${port}: it does not answer /health.`);
      }
      // Gone once its supervisor has reaped it: within 1 s of an idle machine, stretched by the measured load.
      const ms = Math.round(1000 * slowdown());
      Deno.kill(pid, "SIGKILL");
      for (const end = Date.now() + ms; Date.now() < end;) {
        if (!alive(pid)) return pid;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`Cannot kill the resident guard pid ${pid}: it is still there after ${ms} ms.`);
    },
    async waitUp(idleMs = 5000) {
      // `idleMs` of an idle machine, stretched by the load measured now.
      const ms = Math.round(idleMs * slowdown());
      const end = Date.now() + ms;
      while (Date.now() < end) {
        const up = await health();
        if (up) return up;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`The resident guard on port ${port} did not answer within ${ms} ms.`);
    },
  };
}

function taskToml(name: string, servers: { name: string; url: string }[]): string {
  const mcp = servers.map((s) =>
    `[[environment.mcp_servers]]\nname = "${s.name}"\ntransport = "streamable-http"\nurl = "${s.url}"\n`
  ).join("\n");
  return `schema_version = "1.2"\n\n[task]\nname = "actava-ai/${name}"\n\n[verifier]\ntimeout_sec = 120.0\n\n` +
    `[agent]\ntimeout_sec = 240.0\n\n[environment]\nallow_internet = true\n\n` +
    `[environment.env]\nCHI_BENCH_TASK_ID = "${name}"\n\n${mcp}`;
}

/** Runs one trial of fiable-cc on the Harbor stand-in; see the module docstring. */
export async function standInTrial(options: StandInOptions): Promise<StandInTrial> {
  const claude = await ensureClaude(options.claudeVersion ?? HARBOR_CLAUDE_CODE_VERSION);
  const dir = await installedCheckout();
  const work = mkdtempSync(join(tmpdir(), "fiable-standin-trial-"));
  const stops: (() => Promise<void> | void)[] = [];
  const dispose = () => rmSync(work, { recursive: true, force: true });
  try {
    const pythonPath = [HARBOR_STUB, join(dir, "src")];
    let importPath = FIABLE_CC;
    if (options.harness) {
      mkdirSync(join(work, "variant"));
      writeFileSync(join(work, "variant", "fiable_cc_variant.py"), options.harness.source);
      pythonPath.push(join(work, "variant"));
      importPath = `fiable_cc_variant:${options.harness.className}`;
    }
    const port = await freePort();
    if (options.fallback) {
      const squatter: Server = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
      stops.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    }
    const guard = guardHandle(port);
    const script = typeof options.script === "function" ? options.script(guard) : options.script;
    const model = await startModelServer(script);
    stops.push(() => model.close());
    const declared = options.servers ?? [{ name: "healthverse", seat: "payer" as const }];
    const stubs: Healthverse[] = [];
    for (const server of declared) {
      const stub = await startHealthverse(server.seat, { handlers: options.handlers });
      stops.push(() => stub.close());
      stubs.push(stub);
    }

    const task = options.task ?? "pa_um_md_review_standin";
    const taskDir = join(work, "tasks", task);
    mkdirSync(join(taskDir, "tests"), { recursive: true });
    writeFileSync(
      join(taskDir, "task.toml"),
      taskToml(task, declared.map((s, i) => ({ name: s.name, url: stubs[i].url }))),
    );
    writeFileSync(join(taskDir, "instruction.md"), options.prompt);
    for (const file of ["test.sh", "verify.mjs"]) {
      copyFileSync(join(HARBOR_STUB, "verifier", file), join(taskDir, "tests", file));
    }
    const mutating = TOOLS.filter((t) => t.effect !== "read").map((t) => t.name);
    writeFileSync(
      join(taskDir, "tests", "expectations.json"),
      JSON.stringify({
        calls_urls: stubs.map((s) => s.url.replace(/\/mcp$/, "/calls")),
        checks: options.checks ?? [],
        ...(options.forbiddenCases
          ? { forbidden: { id: "cross.forbidden_mutations", tools: mutating, cases: options.forbiddenCases } }
          : {}),
      }),
    );

    const trialsDir = join(work, "trials");
    const spec = {
      task_dir: taskDir,
      trials_dir: trialsDir,
      agent: {
        import_path: importPath,
        model_name: "anthropic/claude-scripted",
        kwargs: { arm: options.arm ?? "checklist", guard_port: String(port) },
        env: options.supervisor === false ? { FIABLE_SUPERVISE: "0" } : {},
      },
      claude,
      // The scripted model calls tools by name: Claude Code's deferred tool loading (ToolSearch) stays off.
      image_env: { ENABLE_TOOL_SEARCH: "false", MCP_TIMEOUT: "20000", DISABLE_AUTOUPDATER: "1" },
      runs: options.runs ?? 1,
      reap_after_exec: options.reapAfterExec ?? false,
    };
    writeFileSync(join(work, "spec.json"), JSON.stringify(spec));
    const out = await new Deno.Command("python3", {
      args: [join(HARBOR_STUB, "run_trial.py"), join(work, "spec.json")],
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: work,
        PYTHONPATH: pythonPath.join(":"),
        PYTHONDONTWRITEBYTECODE: "1",
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "sk-ant-standin-dummy",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    if (!out.success) throw new Error(`Cannot run the stand-in trial (exit ${out.code}):\n${stderr}`);
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    const trialDir = report.trial_dir as string;
    return {
      trialDir,
      trialsDir,
      result: report.result,
      execs: report.execs,
      uploads: report.uploads,
      model,
      calls: stubs.flatMap((s) => s.calls),
      ledger: readAllLedgers(join(trialDir, "agent", "fiable")).records,
      guardPort: port,
      stderr,
      notes: {},
      dispose,
    };
  } catch (err) {
    dispose();
    throw err;
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => {});
  }
}

/** The harness.json fiable-cc wrote in a trial. */
export function harnessJson(trial: StandInTrial): Record<string, unknown> {
  return JSON.parse(readFileSync(join(trial.trialDir, "agent", "fiable", "harness.json"), "utf8"));
}

/** What `hooksAtLaunch` expects of each hook event: the guard word and whether it is a tool event. */
const EVENTS: [string, boolean][] = [
  ["SessionStart", false],
  ["UserPromptSubmit", false],
  ["PreToolUse", true],
  ["PostToolUse", true],
  ["PostToolUseFailure", true],
  ["Stop", false],
  ["SubagentStop", false],
  ["StopFailure", false],
];

/**
 * What was wrong with the hooks when `claude` started (the config dir the launch exec began with): an
 * absent settings.json, a missing event, a tool matcher that misses a declared server's tools, a handler of
 * the wrong mode. Empty when every hook was in place.
 */
export function hooksAtLaunch(launch: StandInExec, servers: string[], mode: "http" | "command"): string[] {
  const text = launch.config_dir["settings.json"];
  if (text === null) return ["settings.json is absent when claude starts: no hooks"];
  let hooks: Record<string, { matcher?: string; hooks: { type: string }[] }[]>;
  try {
    hooks = JSON.parse(text).hooks ?? {};
  } catch (err) {
    return [`settings.json is not JSON when claude starts: ${(err as Error).message}`];
  }
  const problems: string[] = [];
  for (const [event, tool] of EVENTS) {
    const group = hooks[event]?.[0];
    if (!group) {
      problems.push(`${event} has no hook`);
      continue;
    }
    const want = mode === "http" && event !== "SessionStart" ? "http" : "command";
    if (group.hooks[0]?.type !== want) {
      problems.push(`${event} is a ${group.hooks[0]?.type} hook, not ${want}`);
    }
    if (!tool) continue;
    for (const server of servers) {
      if (!new RegExp(group.matcher ?? "^$").test(`mcp__${server}__determination_finalize`)) {
        problems.push(`${event}'s matcher ${group.matcher} misses the tools of server ${server}`);
      }
    }
  }
  return problems;
}

/** The payer case the canned scenario's cross-case calls touch (the stub's second queue entry). */
export const OTHER_CASE = "CASE-1A2B3C4D";

/**
 * The canned payer MD-review trial for run-integrity checks (`verify`): an allowed read, the signed MD
 * decision (case lock on the target), a cross-case decision denied (GLOBAL-01), then the resident guard is
 * `kill -9`ed and the next call is made at once (missed); then two more cross-case calls (denied, then
 * released: the block count survives), finalize, letter, delivery. With the supervisor the guard is back
 * within about a second and records `restart` and `gap`; with `supervisor: false` it stays dead and the rest
 * of the trial is unguarded and unrecorded. `kill: false` runs the same trial with nothing killed.
 * `resume: true` adds a second `run()` (`--continue`) that must reuse the live guard. Reward 1 either way.
 */
export async function killedGuardTrial(
  options: { supervisor?: boolean; kill?: boolean; resume?: boolean } = {},
): Promise<StandInTrial> {
  const kill = options.kill ?? true;
  const notes: Record<string, unknown> = {};
  const cross = (id: string) =>
    mcp("review_submit_md_case_decision", { ...PAYER.decide.input, case_id: OTHER_CASE }, id);
  const trial = await standInTrial({
    prompt: PAYER_PROMPT,
    supervisor: options.supervisor,
    runs: options.resume ? 2 : 1,
    script: (guard) => [
      { calls: [PAYER.queue] },
      { calls: [PAYER.decide] },
      { calls: [cross("toolu_cross_1")] },
      async () => {
        if (kill) notes.killed = await guard.kill();
        return { calls: [mcp("determination_get_summary", { case_id: PAYER_CASE }, "toolu_missed")] };
      },
      async () => {
        const wait = !kill ? 1000 : options.supervisor === false ? 2000 : 5000;
        notes.cameBack = await guard.waitUp(wait).then(() => true, () => false);
        return { calls: [cross("toolu_cross_2")] };
      },
      { calls: [cross("toolu_cross_3")] },
      { calls: [PAYER.finalize("toolu_fixed")] },
      { calls: [PAYER.letter] },
      deliverShownLetter,
      { text: "Approved; the letter is delivered." },
      async () => {
        notes.resumedHealth = await guard.health();
        return { calls: [mcp("determination_get_summary", { case_id: PAYER_CASE }, "toolu_resumed")] };
      },
      { text: "Still approved." },
    ],
    checks: [
      { id: "outcome.target_status", tool: "determination.finalize", args: { case_id: PAYER_CASE } },
      { id: "outcome.letter_types", tool: "payer_letter_center.deliver" },
    ],
    forbiddenCases: [OTHER_CASE],
  });
  trial.notes = notes;
  return trial;
}
