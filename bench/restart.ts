/**
 * How long the resident guard is down after `kill -9` of its server (supervisor respawn until `/health`
 * answers again, with a 500-record session ledger to fold back in); with its supervisor killed first, how long
 * until a new supervisor adopts the server and how long the server is then down after its own `kill -9`; how
 * long a supervisor whose guard file was replaced by one that cannot start takes to give up; and how long the
 * SessionStart check takes to start a guard that is not running (the hook's wall time). Node bundle, as in a
 * trial.
 *
 * Usage: deno run -A bench/restart.ts [--runs 20]
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../bundle.ts";
import { benchLedger } from "./latency.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";
import { writeLedger } from "../tests/support/guard_process.ts";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function health(port: number): Promise<{ pid: number; supervisor: number | null } | null> {
  try {
    return await (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(300) }))
      .json();
  } catch {
    return null;
  }
}

function ledgerDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fiable-bench-restart-"));
  writeLedger(dir, "bench-session", benchLedger().map((r) => ({ ...r, t: new Date().toISOString() })));
  return dir;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench restart",
  summary:
    "How long the resident guard is down after kill -9 of its server or its supervisor, when a supervisor gives " +
    "up, and the SessionStart restart's wall time.",
  usage: ["deno run -A bench/restart.ts [--runs 20]"],
  options: {
    runs: numberOption(20, "kill -9 and restart rounds"),
  },
  args: "none",
  example: "deno run -A bench/restart.ts --runs 20",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Prints the medians and maxima. */
async function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const bundle = await bundleGuard(join(mkdtempSync(join(tmpdir(), "fiable-bench-")), "fiable-guard.cjs"));
  const env = { PATH: Deno.env.get("PATH") ?? "", FIABLE_CC_ARM: "checklist" };

  const port = await freePort();
  const dir = ledgerDir();
  const supervisor = spawn("node", [bundle, "serve", "--port", String(port)], {
    env: { ...env, FIABLE_LEDGER_DIR: dir },
    stdio: "ignore",
  });
  const down: number[] = [];
  try {
    let current = null;
    while (!(current = await health(port))) await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < runs; i++) {
      const killed = current!.pid;
      Deno.kill(killed, "SIGKILL");
      const t0 = performance.now();
      while (!(current = await health(port)) || current.pid === killed) {
        await new Promise((r) => setTimeout(r, 5));
      }
      down.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 2100)); // past the supervisor's "died young" window
    }
  } finally {
    supervisor.kill("SIGTERM");
  }

  // The supervisor killed first: a new supervisor adopts the server, then restarts it when it dies.
  const adopt: number[] = [];
  const adoptedDown: number[] = [];
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (let i = 0; i < Math.min(runs, 5); i++) {
    const p = await freePort();
    const first = spawn("node", [bundle, "serve", "--port", String(p)], {
      env: { ...env, FIABLE_LEDGER_DIR: ledgerDir() },
      stdio: "ignore",
    });
    let h = null;
    while (!(h = await health(p))) await sleep(20);
    Deno.kill(first.pid!, "SIGKILL");
    const t0 = performance.now();
    while (!(h = await health(p)) || !h.supervisor || h.supervisor === first.pid) await sleep(5);
    adopt.push(performance.now() - t0);
    const killed = h.pid;
    Deno.kill(killed, "SIGKILL");
    const t1 = performance.now();
    while (!(h = await health(p)) || h.pid === killed) await sleep(5);
    adoptedDown.push(performance.now() - t1);
    Deno.kill(h.supervisor!, "SIGTERM");
  }

  // A guard file replaced mid-trial by one that cannot start: from its server's kill -9 until the supervisor exits.
  const giveUp: number[] = [];
  for (let i = 0; i < Math.min(runs, 3); i++) {
    const p = await freePort();
    const copy = join(mkdtempSync(join(tmpdir(), "fiable-bench-")), "fiable-guard.cjs");
    copyFileSync(bundle, copy);
    const sup = spawn("node", [copy, "serve", "--port", String(p)], {
      env: { ...env, FIABLE_LEDGER_DIR: ledgerDir() },
      stdio: "ignore",
    });
    const exited = new Promise((r) => sup.on("exit", r));
    let h = null;
    while (!(h = await health(p))) await sleep(20);
    writeFileSync(copy, "process.exit(3);\n");
    Deno.kill(h.pid, "SIGKILL");
    const t0 = performance.now();
    await exited;
    giveUp.push(performance.now() - t0);
  }

  const start: number[] = [];
  const payload = JSON.stringify({
    session_id: "bench-session",
    hook_event_name: "SessionStart",
    source: "startup",
  });
  for (let i = 0; i < Math.min(runs, 10); i++) {
    const p = await freePort();
    const d = ledgerDir();
    const t0 = performance.now();
    const out = await new Deno.Command("node", {
      args: [bundle, "session-start"],
      env: { ...env, FIABLE_LEDGER_DIR: d, FIABLE_GUARD_PORT: String(p) },
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const writer = out.stdin.getWriter();
    await writer.write(new TextEncoder().encode(payload));
    await writer.close();
    await out.status;
    start.push(performance.now() - t0);
    const up = await health(p);
    if (!up) throw new Error("Cannot measure the SessionStart check: no guard answered after the hook.");
    const pid = Number(Deno.readTextFileSync(join(d, "guard.pid")));
    Deno.kill(-pid, "SIGTERM");
  }
  const fmt = (xs: number[]) => `median ${Math.round(median(xs))} ms, max ${Math.round(Math.max(...xs))} ms`;
  console.log(`guard down after kill -9 of the server (${down.length} runs): ${fmt(down)}`);
  console.log(
    `supervisor killed first, until another adopts the server (${adopt.length} runs): ${fmt(adopt)}`,
  );
  console.log(`then the adopted server down after kill -9 (${adoptedDown.length} runs): ${fmt(adoptedDown)}`);
  console.log(
    `guard file that cannot start, until the supervisor gives up (${giveUp.length} runs): ${fmt(giveUp)}`,
  );
  console.log(`SessionStart hook starting a guard that was down (${start.length} runs): ${fmt(start)}`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
