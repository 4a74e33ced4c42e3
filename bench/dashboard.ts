/**
 * Dashboard benchmark, three parts (inputs generated here, in a temp dir, never committed):
 *
 * 1. `table`: 10,000 trial folders (the sample trials cloned under new names, four arms): every Trials page
 *    — sorted by each column, filtered, deep pages — served in ≤ 300 ms; a rescan of the unchanged tree (what
 *    a served dashboard does every 3 s) in ≤ 500 ms, rebuilding nothing.
 * 2. `ledger`: one trial with a 1,000,000-line (≈ 212 MB) guard ledger, served by a dashboard in a child
 *    process: first view of the trial page ≤ 1 s, peak memory ≤ 300 MB, and other requests (the Trials
 *    page, polled every 50 ms) unaffected while the ledger is read.
 * 3. `packets`: the four packets in ../shared/leaderboard replayed through the guard (checklist, critic):
 *    Trials page, trial transcripts, Arms page, search and memory (skipped when the packets are absent).
 * 4. `scale`: 4,500 trials over 60 arms, each with its guard ledger and two replay ledgers of `--ledger-kb`
 *    KB (240: ≈ 2.1 GB, the 2.2 GB), and their Parquet summary as replay writes it; a dashboard in a
 *    child process: time until it answers (≤ 2 s), the first Trials page (≤ 300 ms), then, once the scan
 *    and figures are done, the Arms page (≤ 100 ms) and search (≤ 50 ms); DuckDB queries on the summary.
 * 5. `ingest`: a token holder posts ≈ 420 MB of records to `/ingest` (1 MiB bodies over 2,000 sessions): what
 *    the live ledgers hold (≤ 64 MiB of record JSON) and the heap after a full collection.
 *
 * `deno run -A bench/dashboard.ts [table] [ledger] [packets] [scale] [ingest] [--runs N] [--ledger-kb N]` (all parts
 * by default). Every part prints a floor measured in the same run (an empty request) beside its figures.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createApp } from "../dashboard/app.tsx";
import { rowId } from "../dashboard/read/model.ts";
import {
  writeArmsAtScale,
  writeBigLedgerTrial,
  writeManyTrials,
} from "../tests/support/dashboard_fixture.ts";
import { replayTrees } from "../lib/trajectories/replay.ts";
import { connect, sqlString, trialColumns, writeColumnar } from "../lib/results/columnar.ts";
import { findTrials, readTrial } from "../lib/results/trials.ts";
import { statSync } from "node:fs";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";

const LEADERBOARD = join(import.meta.dirname ?? ".", "..", "..", "shared", "leaderboard");
const SERVER = join(import.meta.dirname ?? ".", "..", "dashboard", "server.tsx");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function line(name: string, value: number, unit: string, target?: number): boolean {
  const pass = target === undefined || value <= target;
  console.log(
    `${name.padEnd(46)} ${value.toFixed(1).padStart(9)} ${unit}` +
      (target === undefined ? "" : `  (target ≤ ${target} ${unit}: ${pass ? "ok" : "MISSED"})`),
  );
  return pass;
}

async function timed(app: { request: (p: string) => Response | Promise<Response> }, path: string) {
  const t0 = performance.now();
  const res = await app.request(path);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`Cannot benchmark ${path}: status ${res.status}`);
  return { ms: performance.now() - t0, bytes: text.length };
}

async function table(runs: number): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-bench-table-"));
  try {
    let t = performance.now();
    writeManyTrials(join(dir, "logs"), 10_000);
    console.log(`wrote 10,000 trial folders (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    t = performance.now();
    const { app, store } = createApp({ logs: [resolve(dir, "logs")], results: [] }, { scanMs: Infinity });
    store.refresh({ scanMs: 0, tailMs: 0 });
    while (store.pump(8 << 20));
    console.log(`indexed ${store.rows().length} rows (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    const pages = [
      "/trials",
      "/trials?sort=cost&dir=desc",
      "/trials?sort=calls",
      "/trials?sort=blocks&dir=desc&page=40",
      "/trials?sort=rules&page=100",
      "/trials?sort=outcome&size=500",
      "/trials?sort=task&dir=desc&page=77",
      "/trials?arm=checklist&outcome=failed&sort=domain",
      "/trials?q=afib&sort=arm",
      "/trials?rule=STOP-GATE&sort=replay",
    ];
    await timed(app, "/trials");
    let ok = true;
    const all: number[] = [];
    for (const p of pages) {
      const ms: number[] = [];
      let bytes = 0;
      for (let i = 0; i < runs; i++) {
        const r = await timed(app, p);
        ms.push(r.ms);
        bytes = r.bytes;
      }
      all.push(...ms);
      console.log(
        `  ${p.padEnd(44)} median ${median(ms).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms, ${
          (bytes / 1024).toFixed(0)
        } KB`,
      );
    }
    ok = line("10,000-row Trials page, slowest of all", Math.max(...all), "ms", 300) && ok;
    line("10,000-row Trials page, median", median(all), "ms");
    // A served dashboard rescans every 3 s: after the first scan, an unchanged tree must cost next to nothing.
    await new Promise((r) => setTimeout(r, 2100)); // past the walk cache's window for folders written just now
    await store.scanInBackground(20);
    const rescans: number[] = [];
    const version = store.version;
    for (let i = 0; i < Math.max(3, runs); i++) {
      const t0 = performance.now();
      await store.scanInBackground(20);
      rescans.push(performance.now() - t0);
    }
    ok = line("rescan of 10,000 unchanged trial folders, median", median(rescans), "ms", 500) && ok;
    if (store.version !== version) {
      console.log(
        `MISSED: a rescan of an unchanged tree rebuilt the rows (version ${version} → ${store.version})`,
      );
      ok = false;
    }
    line("resident memory (10,000 rows)", Deno.memoryUsage().rss / 2 ** 20, "MB");
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function peakRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function ledger(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-bench-ledger-"));
  const logs = resolve(dir, "logs");
  let child: Deno.ChildProcess | null = null;
  try {
    const t = performance.now();
    const big = writeBigLedgerTrial(logs, 1_000_000);
    console.log(
      `wrote a 1,000,000-line ledger (${(big.bytes / 2 ** 20).toFixed(0)} MB, ${
        ((performance.now() - t) / 1000).toFixed(1)
      } s)`,
    );
    writeManyTrials(join(logs, "others"), 200);
    const started = await startDashboard(["--logs", logs]);
    child = started.child;
    const url = started.url;
    console.log(`dashboard up in a child process (${(started.ms / 1000).toFixed(1)} s)`);
    const id = rowId(`trial:${big.dir}`);
    // A server in use is warm: one request to another page first, then the big trial's first view.
    await (await fetch(url + "/trials")).text();
    const get = async (path: string) => {
      const t0 = performance.now();
      const res = await fetch(url + path);
      const text = await res.text();
      return { ms: performance.now() - t0, bytes: text.length, status: res.status, text };
    };
    // Other requests while the ledger is read: the Trials page every 50 ms, until the ledger is indexed.
    const others: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        others.push((await get("/trials")).ms);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const first = await get(`/trials/${id}`);
    if (first.status !== 200) throw new Error(`Cannot benchmark: the trial page answered ${first.status}.`);
    const t1 = performance.now();
    let indexed = false;
    while (!indexed && performance.now() - t1 < 120_000) {
      await new Promise((r) => setTimeout(r, 250));
      indexed = !(await get(`/trials/${id}`)).text.includes("read so far");
    }
    const indexSeconds = (performance.now() - t1) / 1000;
    polling = false;
    await poller;
    const deep = await get(`/trials/${id}/ledger?page=1500`);
    const again = await get(`/trials/${id}`);
    let ok = true;
    ok = line("1M-line ledger trial page, first view", first.ms, "ms", 1000) && ok;
    line("  … its HTML", first.bytes / 1024, "KB");
    line("  … again, once indexed", again.ms, "ms");
    line("  ledger page 1,500 of 2,000 (lines 749,501–750,000)", deep.ms, "ms");
    line("  whole ledger indexed in the background", indexSeconds, "s");
    ok = line(
      `other requests meanwhile (${others.length} Trials pages), slowest`,
      Math.max(...others),
      "ms",
      300,
    ) &&
      ok;
    line("  … median", median(others), "ms");
    ok = line("dashboard process peak memory (VmHWM)", peakRss(child.pid), "MB", 300) && ok;
    if (!deep.text.includes("line-749500")) {
      console.log("  MISSED: ledger page 1,500 does not hold line 749,501");
      ok = false;
    }
    return ok;
  } finally {
    if (child) {
      child.kill("SIGTERM");
      await child.status;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

async function packets(runs: number): Promise<boolean> {
  if (!existsSync(LEADERBOARD)) {
    console.log(`skipped: ${LEADERBOARD} is missing (put the leaderboard packets in ../shared to run it).`);
    return true;
  }
  const out = mkdtempSync(join(tmpdir(), "fiable-bench-dash-"));
  try {
    let t = performance.now();
    // Replayed by a child process, so the dashboard's memory is measured on its own.
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", import.meta.filename ?? "", "--replay", out],
      stderr: "inherit",
    }).output();
    const n = new TextDecoder().decode(child.stdout).trim();
    console.log(`replayed ${n} trials × 2 arms (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    t = performance.now();
    const { app, store, figures } = createApp({ logs: [LEADERBOARD], results: [out] }, { scanMs: Infinity });
    store.refresh({ scanMs: 0, tailMs: 0 });
    while (store.pump(8 << 20));
    console.log(`indexed ${store.rows().length} rows (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    t = performance.now();
    await figures.get();
    const figureSeconds = (performance.now() - t) / 1000;
    await timed(app, "/trials");
    const trials: number[] = [];
    for (let i = 0; i < runs; i++) trials.push((await timed(app, "/trials?sort=blocks&dir=desc")).ms);
    const rows = store.rows().filter((r) => r.trajectory);
    const transcript: number[] = [];
    for (let i = 0; i < runs * 3; i++) {
      transcript.push((await timed(app, `/trials/${rows[(i * 37) % rows.length].id}`)).ms);
    }
    const arms: number[] = [];
    for (let i = 0; i < 3; i++) arms.push((await timed(app, "/")).ms);
    const search: number[] = [];
    for (const q of ["determination_finalize", "case-lock", "afib", "GLOBAL-01", "provider_determination"]) {
      search.push((await timed(app, `/search?q=${q}`)).ms);
    }
    let ok = true;
    ok = line("packets: Trials page", median(trials), "ms", 300) && ok;
    line("packets: trial transcript (trajectory + replay overlay)", median(transcript), "ms");
    line("packets: Arms figures (aggregate in a child process, once)", figureSeconds, "s");
    line("packets: Arms page after", median(arms), "ms");
    line("packets: search (after the first)", median(search.slice(1)), "ms");
    ok = line("packets: resident memory", Deno.memoryUsage().rss / 2 ** 20, "MB", 300) && ok;
    return ok;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function startDashboard(
  args: string[],
): Promise<{ child: Deno.ChildProcess; url: string; ms: number }> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SERVER, ...args, "--port", "0"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/http:\/\/\S+\//.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("Cannot benchmark: the dashboard exited before printing its URL.");
    out += value;
  }
  const url = /http:\/\/\S+\//.exec(out)![0].replace(/\/$/, "");
  // Listening means answering: the first response to any request.
  await (await fetch(url + "/favicon.ico")).body?.cancel();
  return { child, url, ms: performance.now() - t0 };
}

async function fetched(url: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const text = await res.text();
  if (!res.ok) throw new Error(`Cannot benchmark ${url}: status ${res.status}`);
  return { ms: performance.now() - t0, text };
}

async function until(what: string, test: () => Promise<boolean>, limitMs: number): Promise<number> {
  const t0 = performance.now();
  while (!(await test())) {
    if (performance.now() - t0 > limitMs) {
      throw new Error(`Cannot benchmark: ${what} took over ${limitMs} ms.`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return performance.now() - t0;
}

async function scale(runs: number, ledgerKB: number): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-bench-scale-"));
  let child: Deno.ChildProcess | null = null;
  try {
    let t = performance.now();
    const fx = writeArmsAtScale(dir, { trials: 4500, arms: 60, ledgerKB });
    console.log(
      `wrote 4,500 trials over 60 arms and ${fx.ledgers.length} replay ledgers (${
        (fx.bytes / 2 ** 30).toFixed(2)
      } GB, ${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );
    t = performance.now();
    const trials = findTrials([fx.logs]).map((ref) =>
      trialColumns(readTrial(ref), { packet: "logs", arm: null })
    );
    const summary = await writeColumnar(fx.results, trials, fx.ledgers);
    if ("skipped" in summary) throw new Error(`Cannot benchmark the summary: ${summary.skipped}`);
    const parquetKB = summary.files.reduce((a, f) => a + statSync(f).size, 0) / 1024;
    line("Parquet summary written (as replay does)", (performance.now() - t) / 1000, "s");
    line(`  … ${summary.decisions.toLocaleString("en")} decisions, both files`, parquetKB, "KB");
    const duck = await connect();
    if (!("why" in duck)) {
      const file = sqlString(join(fx.results, "decisions.parquet"));
      const queries: [string, string][] = [
        [
          "per arm",
          `SELECT arm, count(*), count(*) FILTER (decision = 'deny') FROM read_parquet(${file}) GROUP BY arm`,
        ],
        [
          "per trial",
          `SELECT trial, arm, count(*) FILTER (decision IN ('deny', 'shadow')) FROM read_parquet(${file}) GROUP BY ALL`,
        ],
        [
          "per rule",
          `SELECT rule, count(*) FROM (SELECT unnest(rules) AS rule FROM read_parquet(${file})) GROUP BY rule ORDER BY 2 DESC`,
        ],
      ];
      for (const [name, sql] of queries) {
        const ms: number[] = [];
        for (let i = 0; i < runs; i++) {
          const t0 = performance.now();
          await duck.all(sql);
          ms.push(performance.now() - t0);
        }
        line(`DuckDB query on decisions.parquet, ${name} (median)`, median(ms), "ms");
      }
      duck.close();
    }
    const started = await startDashboard(["--logs", fx.logs, "--results", fx.results]);
    child = started.child;
    const url = started.url;
    const first = await fetched(url + "/trials");
    const floor: number[] = [];
    for (let i = 0; i < runs; i++) floor.push((await fetched(url + "/favicon.ico")).ms);
    const scanning = first.text.includes('id="scan-progress"');
    const scanMs = await until(
      "the scan",
      async () => (await fetched(url + "/scan")).text.includes('data-done="true"'),
      600_000,
    );
    const figureMs = await until(
      "the figures",
      async () => (await fetched(url + "/?part=figures")).text.includes('data-ready="true"'),
      900_000,
    );
    const arms: number[] = [];
    for (let i = 0; i < runs; i++) arms.push((await fetched(url + "/")).ms);
    const search: number[] = [];
    for (
      const q of [
        "determination_finalize",
        "case-lock",
        "afib",
        "GLOBAL-01",
        "provider_determination",
        "arm-07",
      ]
    ) {
      search.push((await fetched(`${url}/search?q=${q}`)).ms);
    }
    const trialsAfter: number[] = [];
    for (let i = 0; i < runs; i++) trialsAfter.push((await fetched(url + "/trials?sort=cost&dir=desc")).ms);
    for (let i = 0; i < runs; i++) floor.push((await fetched(url + "/favicon.ico")).ms);
    let ok = true;
    line("floor: an empty request (/favicon.ico), median", median(floor), "ms");
    ok = line("dashboard answering after start (child process)", started.ms, "ms", 2000) && ok;
    ok = line(
      `first Trials page (${scanning ? "while the scan runs" : "scan already done"})`,
      first.ms,
      "ms",
      300,
    ) && ok;
    line("  background scan done after", (scanMs + started.ms) / 1000, "s");
    line("  Arms figures (aggregate in a child process) ready", figureMs / 1000, "s");
    ok = line("Arms page (60 arms), median", median(arms), "ms", 100) && ok;
    ok = line("search, median of 6 queries", median(search), "ms", 50) && ok;
    line("  … slowest", Math.max(...search), "ms");
    line("Trials page once scanned, median", median(trialsAfter), "ms");
    line("dashboard process peak memory (VmHWM)", peakRss(child.pid), "MB");
    return ok;
  } finally {
    if (child) {
      child.kill("SIGTERM");
      await child.status;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const PARTS = ["table", "ledger", "packets", "scale", "ingest"];

/** Part 5: ≈ 420 MB posted to /ingest by a token holder; what the dashboard holds afterwards. */
async function ingest(): Promise<boolean> {
  const token = "bench-ingest-token-0123456789";
  const { app, store } = createApp({ logs: [], results: [] }, { token });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage().heapUsed;
  const record = (session: string, n: number) =>
    JSON.stringify({
      v: 1,
      t: new Date().toISOString(),
      session,
      event: "post",
      arm: "checklist",
      decision: "record",
      tool: "chart.search_patients",
      tool_use_id: `toolu_${n}`,
      result: "r".repeat(16_000),
    });
  let posted = 0;
  let refused = 0;
  const t0 = performance.now();
  for (let i = 0; posted < 420 * 2 ** 20; i++) {
    const body = `[${Array.from({ length: 60 }, (_, n) => record(`flood-${i % 2000}`, n)).join(",")}]`;
    const res = await app.request("/ingest", {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 204) refused++;
    await res.body?.cancel();
    posted += body.length;
  }
  const ms = performance.now() - t0;
  gc?.();
  const after = Deno.memoryUsage().heapUsed;
  const mb = (n: number) => `${Math.round(n / 2 ** 20)} MB`;
  console.log(
    `posted ${mb(posted)} in ${(ms / 1000).toFixed(1)} s (${refused} requests refused): live ledgers hold ` +
      `${mb(store.ingestedBytes())} of record JSON; heap ${mb(before)} before, ${mb(after)} after` +
      (gc ? " (after a full collection)" : " (run with --v8-flags=--expose-gc for a full collection)"),
  );
  return store.ingestedBytes() <= 64 * 2 ** 20;
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench dashboard",
  summary:
    "Dashboard speed: a 10,000-row Trials table, a 1M-line ledger, the packets replayed, and 4,500 trials over 60 arms.",
  usage: ["deno run -A bench/dashboard.ts [table|ledger|packets|scale]... [--runs 5] [--ledger-kb 240]"],
  options: {
    runs: numberOption(5, "timed rounds per page"),
    "ledger-kb": {
      type: "string",
      value: "KB",
      default: "240",
      description: "size of each replay ledger in the scale part",
    },
    // Internal: the packets part replays in a child process with this.
    replay: {
      type: "string",
      value: "DIR",
      description: "replay the packets into DIR and exit",
      hidden: true,
    },
  },
  args: [{ name: "part", description: `parts to run (default: all): ${PARTS.join(", ")}` }],
  example: "deno run -A bench/dashboard.ts scale --runs 5",
};

/** Entry: prints the figures; exit 1 when a target is missed. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

async function measure(p: Parsed): Promise<number> {
  const replayOut = p.string("replay");
  if (replayOut) {
    const report = await replayTrees([LEADERBOARD], { arms: ["checklist", "critic"], out: replayOut });
    console.log(report.trials.length);
    return 0;
  }
  const runs = wholeNumber(p, "runs", 1)!;
  const ledgerKB = wholeNumber(p, "ledger-kb", 1)!;
  const unknown = p.positionals.filter((a) => !PARTS.includes(a));
  if (unknown.length) throw p.error(`part "${unknown[0]}" is unknown. Use one of ${PARTS.join(", ")}.`);
  const parts = p.positionals;
  const want = (part: string) => !parts.length || parts.includes(part);
  let ok = true;
  if (want("table")) {
    console.log("== 10,000-row Trials table");
    ok = await table(runs) && ok;
  }
  if (want("ledger")) {
    console.log("== trial with a 1,000,000-line ledger");
    ok = await ledger() && ok;
  }
  if (want("packets")) {
    console.log("== four leaderboard packets, replayed");
    ok = await packets(runs) && ok;
  }
  if (want("scale")) {
    console.log("== 4,500 trials over 60 arms, replayed, with their Parquet summary");
    ok = await scale(runs, ledgerKB) && ok;
  }
  if (want("ingest")) {
    console.log("== /ingest flooded by a token holder");
    ok = await ingest() && ok;
  }
  return ok ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
