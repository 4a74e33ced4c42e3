/**
 * Decision latency of `guard pre` on a terminal call with a 500-record ledger, three ways — command mode
 * under Deno, command mode under the Node bundle, http mode — and, as the yardstick, a Python stdlib hook
 * doing the minimum equivalent work (read the JSON, fold the 500-line JSONL, print JSON).
 *
 * Usage: npx -y deno@2.9.6 run -A bench/latency.ts [--runs 30]
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../bundle.ts";
import { recordsOf, toolCall } from "../lib/guard/rule.ts";
import type { LedgerRecord } from "../lib/guard/ledger.ts";

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeProcess(argv: string[], env: Record<string, string>): Promise<number> {
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

function timeBare(argv: string[]): Promise<number> {
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

/** Runs the benchmark and prints one line per way, with medians and ratios. */
export async function main(args: string[]): Promise<number> {
  const runs = Number(args[args.indexOf("--runs") + 1] ?? 30) || 30;
  const dir = mkdtempSync(join(tmpdir(), "fiable-bench-"));
  const ledger = benchLedger();
  writeFileSync(join(dir, `${SESSION}.jsonl`), ledger.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const bundle = await bundleGuard(join(dir, "fiable-guard.mjs"));
  const pyHook = join(dir, "hook.py");
  writeFileSync(pyHook, PYTHON_HOOK);
  // A fresh ledger dir per run would grow nothing: pre on an allowed path appends, so re-copy is not needed —
  // the guard appends one record per run, which keeps the ledger at ~500 records for the whole series.
  const env = { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "critic" };
  // The real interpreter, not a version-manager shim (a shell script that would add its own start-up).
  const python3 = spawnSync("python3", ["-c", "import sys; print(sys.executable)"]).stdout.toString().trim();
  const guardTs = [Deno.execPath(), "run", "-A", join(ROOT, "guard.ts"), "pre"];
  const deno = await timeSeries(runs, () => timeProcess(guardTs, env));
  const denoBundle = await timeSeries(
    runs,
    () => timeProcess([Deno.execPath(), "run", "-A", bundle, "pre"], env),
  );
  const node = await timeSeries(runs, () => timeProcess(["node", bundle, "pre"], env));
  const python = await timeSeries(runs, () => timeProcess([python3, pyHook], env));
  const floor = {
    deno: await timeSeries(runs, () => timeBare([Deno.execPath(), "eval", "1"])),
    node: await timeSeries(runs, () => timeBare(["node", "-e", "1"])),
    python: await timeSeries(runs, () => timeBare([python3, "-c", "1"])),
  };
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
  const vsPython = (ms: number) => `${(python / ms).toFixed(2)}x the Python yardstick's speed`;
  console.log(
    `guard pre, terminal call, ${ledger.length}-record ledger, medians of ${runs} runs (${cores} cores)`,
  );
  console.log(`  http mode (node bundle, resident)  ${fmt(http)}`);
  console.log(`  command mode, Deno (guard.ts)      ${fmt(deno)}   ${vsPython(deno)}`);
  console.log(`  command mode, Deno (bundle)        ${fmt(denoBundle)}   ${vsPython(denoBundle)}`);
  console.log(`  command mode, Node bundle          ${fmt(node)}   ${vsPython(node)}`);
  console.log(`  Python stdlib yardstick            ${fmt(python)}`);
  console.log(
    `  bare start-up, no work: deno eval ${fmt(floor.deno)}, node -e ${fmt(floor.node)}, python -c ${
      fmt(floor.python)
    }`,
  );
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
