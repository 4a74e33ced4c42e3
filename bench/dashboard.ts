/**
 * Dashboard benchmark on the four packets in ../shared/leaderboard (300 trials) replayed through the guard
 * for two arms (checklist, critic) by a child process (`--shaped`: synthetic replay-shaped ledgers instead): time to serve the Trials page and a trial timeline, and resident memory.
 * Targets: Trials ≤ 300 ms, timeline ≤ 100 ms, RSS ≤ 300 MB.
 *
 * `deno run -A bench/dashboard.ts [--runs N] [--shaped]`
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../dashboard/server.tsx";
import { mkdirSync, writeFileSync } from "node:fs";
import { findTrials } from "../lib/trials.ts";
import { readTrajectory, taskPrompt, toolEvents } from "../lib/atif.ts";
import type { LedgerRecord } from "../lib/ledger.ts";
import { replayTrees } from "../lib/replay.ts";

/**
 * Replay-shaped ledgers for every packet trial and arm: the prompt, then a pre and a post record per tool
 * call with the recorded arguments and results, a would-be block on every tenth call. The dashboard's cost
 * depends on ledger size and shape, not on which rule fired, so this keeps the benchmark independent of
 * the replay engine's speed.
 */
function writeLedgers(root: string, out: string, arms: string[]): number {
  const refs = findTrials([root]).filter((r) => r.trajectory);
  for (const ref of refs) {
    const t = readTrajectory(ref.trajectory!);
    const calls = toolEvents(t).calls.filter((c) => c.tool);
    for (const arm of arms) {
      const base = {
        v: 1 as const,
        t: "2026-07-20T09:00:00.000Z",
        session: ref.name,
        arm: arm as "checklist",
      };
      const records: LedgerRecord[] = [{
        ...base,
        event: "prompt",
        decision: "record",
        prompt: taskPrompt(t).slice(0, 40_000),
      }];
      calls.forEach((c, i) => {
        const hit = i % 10 === 9;
        records.push({
          ...base,
          event: "pre",
          decision: hit ? "shadow" : "allow",
          tool: c.tool!,
          tool_use_id: c.id,
          input: c.input,
          ...(hit
            ? { rules: [{ id: "GLOBAL-01", checks: ["cross.forbidden_mutations"], message: "would block" }] }
            : {}),
        });
        records.push({
          ...base,
          event: c.isError ? "post-fail" : "post",
          decision: "record",
          tool: c.tool!,
          tool_use_id: c.id,
          result: c.text.slice(0, 16_000),
        });
      });
      records.push({ ...base, event: "stop", decision: "allow" });
      mkdirSync(join(out, arm), { recursive: true });
      writeFileSync(
        join(out, arm, `${ref.name}.jsonl`),
        records.map((r) => JSON.stringify(r)).join("\n") + "\n",
      );
    }
  }
  return refs.length;
}

const LEADERBOARD = join(import.meta.dirname ?? ".", "..", "..", "shared", "leaderboard");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Entry: prints the figures; exit 1 when a target is missed, 2 when the packets are absent. */
export async function main(args: string[]): Promise<number> {
  const runs = Number(args[args.indexOf("--runs") + 1]) || 9;
  const shaped = args.includes("--shaped");
  if (args[0] === "--write-ledgers") {
    console.log(writeLedgers(LEADERBOARD, args[1], ["checklist", "critic"]));
    return 0;
  }
  if (args[0] === "--replay") {
    const report = await replayTrees([LEADERBOARD], { arms: ["checklist", "critic"], out: args[1] });
    console.log(report.trials.length);
    return 0;
  }
  if (!existsSync(LEADERBOARD)) {
    console.error(
      `Cannot run the dashboard benchmark: ${LEADERBOARD} is missing. Put the leaderboard packets in ../shared.`,
    );
    return 2;
  }
  const out = mkdtempSync(join(tmpdir(), "fiable-bench-dash-"));
  try {
    let t = performance.now();
    // Ledgers are written by a child process, so the dashboard's memory is measured on its own.
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", import.meta.filename ?? "", shaped ? "--write-ledgers" : "--replay", out],
      stderr: "inherit",
    }).output();
    const n = new TextDecoder().decode(child.stdout).trim();
    console.log(
      `${shaped ? "wrote replay-shaped ledgers" : "replayed"} ${n} trials × 2 arms (${
        ((performance.now() - t) / 1000).toFixed(1)
      } s)`,
    );
    t = performance.now();
    const { app, store } = createApp({ logs: [LEADERBOARD], results: [out] });
    store.refresh();
    while (store.fillToolCalls(50));
    console.log(`indexed ${store.rows().length} rows (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    const time = async (path: string) => {
      const t0 = performance.now();
      const res = await app.request(path);
      await res.text();
      return performance.now() - t0;
    };
    await time("/trials");
    const trials: number[] = [];
    for (let i = 0; i < runs; i++) trials.push(await time("/trials"));
    const rows = store.rows().filter((r) => r.source === "replay");
    const timeline: number[] = [];
    for (let i = 0; i < runs * 3; i++) {
      timeline.push(await time(`/trials/${rows[(i * 37) % rows.length].id}`));
    }
    const arms: number[] = [];
    for (let i = 0; i < 3; i++) arms.push(await time("/"));
    const search: number[] = [];
    for (const q of ["determination_finalize", "GLOBAL-01", "cm_care_plan", "CASE"]) {
      search.push(await time(`/search?q=${q}`));
    }
    const rss = Deno.memoryUsage().rss / 2 ** 20;
    const results = [
      ["Trials page (all rows)", median(trials), 300, "ms"],
      ["trial timeline", median(timeline), 100, "ms"],
      ["Arms page", median(arms), Infinity, "ms"],
      ["search (after first)", median(search.slice(1)), Infinity, "ms"],
      ["resident memory", rss, 300, "MB"],
    ] as const;
    let ok = true;
    for (const [name, v, target, unit] of results) {
      const pass = v <= target;
      ok &&= pass;
      console.log(
        `${name.padEnd(24)} ${v.toFixed(1).padStart(8)} ${unit}${
          target === Infinity ? "" : `  (target ≤ ${target} ${unit}: ${pass ? "ok" : "MISSED"})`
        }`,
      );
    }
    return ok ? 0 : 1;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
