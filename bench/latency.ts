/**
 * Decision latency of `guard pre` on a terminal call with a 500-record ledger: command mode under Deno
 * (`deno run guard.ts`, from the session's evidence checkpoint, and re-reading the whole ledger), command mode
 * under the Node bundle (from its start-up snapshot, as `guard up` installs command hooks, and the guard file
 * alone, the hooks' fallback when no snapshot can be built), http mode — and, as the yardstick, a Python stdlib hook doing the
 * minimum equivalent work (read the JSON, fold the 500-line JSONL, print JSON).
 *
 * Each command-mode figure is quoted against its runtime's bare start-up measured in the same run, interleaved:
 * `deno run` of an empty file, `node -e 1`, `python -c 1` (native binaries: a version-manager shim or `npx`
 * would add a start of its own).
 *
 * Usage: deno run -A bench/latency.ts [--runs 30]
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../bundle.ts";
import { ensureSnapshot } from "../lib/guard/runtime/snapshot_blob.ts";
import { SNAPSHOT_FLAG } from "../lib/guard/runtime/snapshot.ts";
import { recordsOf, toolCall } from "../lib/guard/engine/rule.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const SESSION = "bench-session";
const PAYER_PROMPT =
  "# ⚕️ MD Review — Knee arthroscopy\n- Use only payer namespaces: `review`, `determination`\n";

/** A realistic 500-record payer ledger: the prompt, then pre/post pairs of reads and mutations with ~1 KB results. */
export function benchLedger(): LedgerRecord[] {
  const records: LedgerRecord[] = recordsOf({ prompt: PAYER_PROMPT }, SESSION);
  const tools = [
    "review.get_md_review_data",
    "determination.get_summary",
    "review.save_md_review",
    "p2p.list",
  ];
  for (let i = 0; records.length < 500; i++) {
    const tool = tools[i % tools.length];
    const input = { case_id: "CASE-3903B8ED", note: `pass ${i}` };
    records.push({
      v: 1,
      t: "",
      session: SESSION,
      arm: "critic",
      event: "pre",
      decision: "allow",
      tool,
      input,
    });
    const call = toolCall(tool, input, {
      result: { case: { id: "CASE-3903B8ED", status: "under_review" }, criteria: "x".repeat(900), i },
    });
    records.push(...recordsOf({ calls: [call] }, SESSION).map((r) => ({ ...r, arm: "critic" as const })));
  }
  return records.slice(0, 500);
}

const PAYLOAD = JSON.stringify({
  session_id: SESSION,
  hook_event_name: "PreToolUse",
  tool_name: "mcp__healthverse__determination_finalize",
  tool_input: {
    case_id: "CASE-3903B8ED",
    decision: "approved",
    rationale: "Criteria 1-3 met per the MD review.",
  },
  tool_use_id: "toolu_bench",
});

const PYTHON_HOOK = `
import json, sys, os
event = json.load(sys.stdin)
calls = []
with open(os.path.join(os.environ["FIABLE_LEDGER_DIR"], event["session_id"] + ".jsonl")) as f:
    for line in f:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("event") == "post":
            calls.append((record.get("tool"), record.get("input")))
decided = any(tool == "review.submit_md_case_decision" for tool, _ in calls)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": "allow" if decided else "deny", "permissionDecisionReason": "x"}}))
`;
import { writeLedger } from "../tests/support/guard_process.ts";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Wall time of one guard process answering the bench payload (rejects when it prints no decision). */
export function timeProcess(argv: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...Deno.env.toObject(), ...env },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", () => {
      if (!out.includes("permissionDecision")) {
        reject(new Error(`no decision from ${argv.join(" ")}: ${out}`));
      } else resolve(performance.now() - started);
    });
    child.stdin.end(PAYLOAD);
  });
}

/** Wall time of one process that reads nothing (a runtime floor). */
export function timeBare(argv: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

async function timeSeries(runs: number, once: () => Promise<number>): Promise<number> {
  for (let i = 0; i < 3; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  return median(times);
}

async function startHttp(
  argv: string[],
  env: Record<string, string>,
): Promise<{ url: string; stop: () => void }> {
  const child = spawn(argv[0], [...argv.slice(1), "serve", "--port", "0"], {
    env: { ...Deno.env.toObject(), ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return await new Promise((resolve) => {
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      const m = /serving on (http:\/\/\S+)/.exec(err);
      if (m) resolve({ url: m[1], stop: () => child.kill() });
    });
  });
}

/**
 * The command-mode target (issue 39): the Node bundle, which trials run, within twice `node -e 1` measured in
 * the same run. Deno command mode has none: it must be correct, and its figure is reported.
 */
export const TARGETS = { nodeRatio: 2 };

/** The 1-minute load average, for the note beside the figures (others may share the machine). */
function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  } catch {
    return "unknown";
  }
}

/**
 * CPU time (user + system, ms) of this process's waited-for children so far, from /proc/self/stat (Linux;
 * undefined elsewhere). In clock ticks of 10 ms, so only a mean over many runs is precise.
 */
function childrenCpuMs(): number | undefined {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    // After "pid (comm) ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** A series' wall-time median and its mean CPU time per run (NaN where CPU time cannot be read). */
export interface SeriesFigure {
  ms: number;
  cpuMs: number;
}

/**
 * Medians of each process series, run round-robin (one run of every series per round), so a change in machine
 * load shifts the guard and its floor alike instead of landing on whichever series ran then. The mean CPU time
 * beside each is less sensitive to load than wall time (a loaded machine delays a process more than it adds to
 * its CPU time).
 */
export async function interleaved(
  runs: number,
  series: Record<string, () => Promise<number>>,
): Promise<Record<string, SeriesFigure>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(series).map((k) => [k, []]));
  const cpu: Record<string, number> = Object.fromEntries(Object.keys(series).map((k) => [k, 0]));
  for (let round = -3; round < runs; round++) {
    for (const [name, once] of Object.entries(series)) {
      const before = childrenCpuMs();
      const ms = await once();
      const after = childrenCpuMs();
      if (round < 0) continue;
      times[name].push(ms);
      cpu[name] += before === undefined || after === undefined ? NaN : after - before;
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([k, v]) => [k, { ms: median(v), cpuMs: cpu[k] / runs }]),
  );
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench latency",
  summary:
    "Hook latency of guard pre on a terminal call: command mode under Deno and Node, http mode, a Python yardstick, each against its runtime floor.",
  usage: ["deno run -A bench/latency.ts [--runs 30]"],
  options: {
    runs: numberOption(30, "interleaved runs per series (medians are reported)"),
  },
  args: "none",
  example: "deno run -A bench/latency.ts --runs 30",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Runs the benchmark and prints one line per way: median, its floor, the gap and the ratio to the floor. */
async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const dir = mkdtempSync(join(tmpdir(), "fiable-bench-"));
  const ledger = benchLedger();
  // As a trial's guard wrote it: chained under the trial's key (which `guard up` makes first).
  writeLedger(dir, SESSION, ledger);
  const bundle = await bundleGuard(join(dir, "fiable-guard.cjs"));
  const blob = ensureSnapshot(bundle);
  if (!blob) {
    throw new Error("Cannot measure command mode: node could not build the guard's start-up snapshot.");
  }
  const pyHook = join(dir, "hook.py");
  writeFileSync(pyHook, PYTHON_HOOK);
  const empty = join(dir, "empty.ts");
  writeFileSync(empty, "");
  // The guard appends one record per run, which keeps the ledger at ~500 records for the whole series.
  const env = { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "critic" };
  // The real interpreter, not a version-manager shim (a shell script that would add its own start-up).
  const python3 = spawnSync("python3", ["-c", "import sys; print(sys.executable)"]).stdout.toString().trim();
  const deno = Deno.execPath();
  const loadBefore = loadAverage();
  const m = await interleaved(runs, {
    denoFloor: () => timeBare([deno, "run", "-A", empty]),
    deno: () => timeProcess([deno, "run", "-A", join(ROOT, "guard.ts"), "pre"], env),
    denoNoCheckpoint: () =>
      timeProcess([deno, "run", "-A", join(ROOT, "guard.ts"), "pre"], { ...env, FIABLE_CHECKPOINT: "0" }),
    nodeFloor: () => timeBare(["node", "-e", "1"]),
    node: () => timeProcess(["node", SNAPSHOT_FLAG, "--snapshot-blob", blob, bundle, "pre"], env),
    nodePlain: () => timeProcess(["node", bundle, "pre"], env),
    pythonFloor: () => timeBare([python3, "-c", "1"]),
    python: () => timeProcess([python3, pyHook], env),
  });
  const server = await startHttp(["node", bundle], env);
  let http = 0;
  try {
    http = await timeSeries(runs * 3, async () => {
      const started = performance.now();
      const res = await fetch(`${server.url}/hook/pre`, { method: "POST", body: PAYLOAD });
      await res.json();
      return performance.now() - started;
    });
  } finally {
    server.stop();
  }
  const cores = spawnSync("nproc").stdout?.toString().trim();
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  const row = (label: string, run: SeriesFigure, floor: SeriesFigure, floorName: string) =>
    `  ${label.padEnd(34)} ${fmt(run.ms).padStart(9)}   ${floorName} ${fmt(floor.ms)}, gap +${
      fmt(run.ms - floor.ms)
    }, ${(run.ms / floor.ms).toFixed(2)}x the floor; CPU ${fmt(run.cpuMs)} vs ${fmt(floor.cpuMs)}, +${
      fmt(run.cpuMs - floor.cpuMs)
    }`;
  const verdict = (met: boolean) => met ? "met" : "MISSED";
  console.log(
    `guard pre, terminal call, ${ledger.length}-record ledger, medians of ${runs} interleaved runs ` +
      `(${cores} cores, load ${loadBefore} before, ${loadAverage()} after)`,
  );
  console.log(`  http mode (node bundle, resident)  ${fmt(http).padStart(9)}`);
  console.log(row("command mode, Deno (guard.ts)", m.deno, m.denoFloor, "deno run empty.ts"));
  console.log(
    row("— whole ledger (FIABLE_CHECKPOINT=0)", m.denoNoCheckpoint, m.denoFloor, "deno run empty.ts"),
  );
  console.log(row("command mode, Node bundle (snapshot)", m.node, m.nodeFloor, "node -e 1"));
  console.log(row("— the guard file alone (fallback)", m.nodePlain, m.nodeFloor, "node -e 1"));
  console.log(row("Python stdlib yardstick", m.python, m.pythonFloor, "python -c 1"));
  const nodeRatio = m.node.ms / m.nodeFloor.ms;
  console.log(
    `  target, Node bundle from its snapshot ≤ ${TARGETS.nodeRatio}x node -e 1: ${
      verdict(nodeRatio <= TARGETS.nodeRatio)
    } ` +
      `(${nodeRatio.toFixed(2)}x); Deno command mode has no target (${
        (m.deno.ms / m.denoFloor.ms).toFixed(2)
      }x)`,
  );
  console.log("  (wall-time medians decide the target; under load the CPU gap is the steadier estimate)");
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
