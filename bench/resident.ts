/**
 * The resident guard's per-event cost as a session grows (issue 20's http target): in-handle time at 100 /
 * 1k / 10k session records with the running evidence, the first event of a session whose 10k-record ledger
 * is already on disk, and the http round trip at 10k records, each beside its floor measured in the same run
 * (parsing the hook JSON alone; reading and JSON-parsing the ledger alone; a bare node:http server).
 *
 * Then memory: 100k events across 64 sessions through the Node bundle, the peak RSS and records lost; and one
 * session of 100k records through the Node bundle (issue 32): the round trip's median, p95 and slowest per 10k
 * records, with the guard's memory, while it checkpoints the session every 1,000 records and holds its results
 * on disk.
 *
 * Usage: deno run -A bench/resident.ts [--sizes 100,1000,10000] [--runs 400] [--events 100000 (0: skip)]
 *   [--long 100000 (0: skip)]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../bundle.ts";
import { emptyEvidence, type Evidence, foldRecord } from "../lib/guard/engine/evidence.ts";
import { handle } from "../lib/guard/event.ts";
import { type EventWord, parseHookInput } from "../lib/guard/engine/hook.ts";
import { ledgerFileName } from "../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../lib/guard/engine/record.ts";
import { resolveSettings } from "../lib/guard/config/guard_settings.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";
import { SERVE_HEAP_FLAGS } from "../lib/guard/resident/resident.ts";
import { writeLedger } from "../tests/support/guard_process.ts";

const SESSION = "bench-resident";
const PROMPT = "# ⚕️ MD Review — Knee arthroscopy for PAT-3f2a9c1b7d4e\n" +
  "- Use only payer namespaces: `review`, `determination`, `p2p`, `payer_letter_center`\n" +
  "- Case CASE-3903B8ED, member MBR-55120, CPT 29881, ICD-10 M23.221\n";

/** One hook event: the route word and the body Claude Code would send. */
export interface HookEvent {
  word: EventWord;
  body: string;
}

function payload(fields: Record<string, unknown>, session = SESSION): string {
  return JSON.stringify({ session_id: session, cwd: "/workspace", ...fields });
}

/**
 * The i-th event of a long payer MD-review session after its prompt: pre/post pairs over reads (≈1 KB
 * results that return new document and note ids) and mutations (notes naming ids seen earlier), a
 * terminal finalize every 100 calls (the rules, the critic panel and the closure facts all run), a stop
 * every 1,000 events.
 */
export function sessionEvent(i: number, session = SESSION): HookEvent {
  if (i === 0) {
    return {
      word: "prompt",
      body: payload({ hook_event_name: "UserPromptSubmit", prompt: PROMPT }, session),
    };
  }
  if (i % 1000 === 999) {
    return { word: "stop", body: payload({ hook_event_name: "Stop", stop_hook_active: false }, session) };
  }
  const call = Math.floor(i / 2);
  const id = `toolu_${call.toString(36).padStart(8, "0")}`;
  const doc = `DOC-${(call * 2654435761 % 2 ** 32).toString(16).padStart(8, "0")}`;
  const kind = call % 100 === 99 ? "finalize" : ["md", "summary", "save", "p2p"][call % 4];
  const [tool, input]: [string, Record<string, unknown>] = kind === "finalize"
    ? ["determination_finalize", {
      case_id: "CASE-3903B8ED",
      decision: "approved",
      rationale: `Criteria met (${doc}).`,
    }]
    : kind === "md"
    ? ["review_get_md_review_data", { case_id: "CASE-3903B8ED" }]
    : kind === "summary"
    ? ["determination_get_summary", { case_id: "CASE-3903B8ED" }]
    : kind === "save"
    ? ["review_save_md_review", {
      case_id: "CASE-3903B8ED",
      notes: `Reviewed ${doc}; criteria 1-3 per chart.`,
    }]
    : ["p2p_list", { case_id: "CASE-3903B8ED" }];
  const base = { tool_name: `mcp__healthverse__${tool}`, tool_input: input, tool_use_id: id };
  if (i % 2 === 1) return { word: "pre", body: payload({ hook_event_name: "PreToolUse", ...base }, session) };
  const result = {
    case: { id: "CASE-3903B8ED", status: "under_review" },
    documents: [{ id: doc, case_id: "CASE-3903B8ED", kind: "clinical_note" }],
    criteria: `Criterion ${call % 7}: ${"met per imaging and exam; ".repeat(32)}`,
    call,
  };
  return {
    word: "post",
    body: payload({
      hook_event_name: "PostToolUse",
      ...base,
      tool_response: [{ type: "text", text: JSON.stringify(result) }],
    }, session),
  };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

const SETTINGS = resolveSettings({}, { FIABLE_CC_ARM: "critic", FIABLE_LEDGER_DIR: "/nonexistent" });

/** Drives events [from, to) through handle() against a running evidence, folding each record as serve does. */
async function drive(
  ev: Evidence,
  records: LedgerRecord[],
  from: number,
  to: number,
  times?: { word: EventWord; handle: number; fold: number; floor: number }[],
): Promise<void> {
  for (let i = from; i < to; i++) {
    const { word, body } = sessionEvent(i);
    const t0 = performance.now();
    const out = await handle(word, body, SETTINGS, { evidence: () => ev });
    const t1 = performance.now();
    if (out.record) {
      records.push(out.record);
      foldRecord(ev, out.record);
    }
    const t2 = performance.now();
    if (times) {
      parseHookInput(body, word);
      times.push({ word, handle: t1 - t0, fold: t2 - t1, floor: performance.now() - t2 });
    }
  }
}

function ms(value: number): string {
  return `${value.toFixed(3)} ms`;
}

/** Round trips to a server at `url`: median and p95 of `runs` sequential POSTs of the session's next events. */
async function roundTrips(url: string, from: number, runs: number): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = from; i < from + runs; i++) {
    const { word, body } = sessionEvent(i);
    const started = performance.now();
    const res = await fetch(`${url}/hook/${word}`, { method: "POST", body });
    await res.text();
    times.push(performance.now() - started);
  }
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

function startNode(args: string[], env: Record<string, string>): Promise<{ url: string; stop: () => void }> {
  const child = spawn("node", args, {
    env: { ...Deno.env.toObject(), ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      const m = /serving on (http:\/\/\S+)/.exec(err);
      if (m) resolve({ url: m[1], stop: () => child.kill() });
    });
    child.on("exit", (code) => reject(new Error(`node ${args[0]} exited ${code}: ${err}`)));
  });
}

const BARE_SERVER = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
});
server.listen(0, "127.0.0.1", () => process.stderr.write("serving on http://127.0.0.1:" + server.address().port + "\\n"));
`;

/**
 * Memory under many sessions: `events` events across `sessions` sessions, `concurrent` at a time, each
 * session's events in order and a Stop last, against the resident guard at `url`. Polls /health for the
 * RSS; returns the peak, the RSS once every session is released, and the records missing from the ledgers.
 */
async function memoryRun(
  url: string,
  dir: string,
  opts: { events: number; sessions: number; concurrent: number },
): Promise<
  { peakMb: number; heapPeak: number; afterMb: number; heldPeak: number; missing: number; seconds: number }
> {
  const per = Math.ceil(opts.events / opts.sessions);
  let peakMb = 0;
  let heapPeak = 0;
  let heldPeak = 0;
  const poll = setInterval(async () => {
    const h = await (await fetch(`${url}/health`)).json().catch(() => null);
    if (!h) return;
    peakMb = Math.max(peakMb, h.rss_mb);
    heapPeak = Math.max(heapPeak, h.heap_mb);
    if (Deno.env.get("BENCH_TRACE")) console.error(JSON.stringify({ ...h, ledger: undefined }));
    heldPeak = Math.max(heldPeak, h.held.records);
  }, 200);
  const started = performance.now();
  const queue = Array.from({ length: opts.sessions }, (_, k) => `memory-${k}`);
  await Promise.all(Array.from({ length: opts.concurrent }, async () => {
    for (let session = queue.shift(); session; session = queue.shift()) {
      for (let i = 0; i < per; i++) {
        const { word, body } = i === per - 1
          ? {
            word: "stop" as const,
            body: payload({ hook_event_name: "Stop", stop_hook_active: false }, session),
          }
          : sessionEvent(i, session);
        const res = await fetch(`${url}/hook/${word}`, { method: "POST", body });
        await res.text();
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  let afterMb = 0;
  for (let k = 0; k < 100; k++) {
    const h = await (await fetch(`${url}/health`)).json();
    afterMb = h.rss_mb;
    if (h.held.sessions === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  clearInterval(poll);
  let missing = 0;
  for (let k = 0; k < opts.sessions; k++) {
    const text = readFileSync(join(dir, ledgerFileName(`memory-${k}`)), "utf8");
    const lines = text.split("\n").filter(Boolean).filter((l) => JSON.parse(l).decision !== "error");
    missing += per - lines.length;
  }
  return { peakMb, heapPeak, afterMb, heldPeak, missing, seconds };
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench resident",
  summary:
    "The resident guard's per-event cost as a session grows, its first event over a large ledger, and memory over 100k events.",
  usage: [
    "deno run -A bench/resident.ts [--sizes 100,1000,10000] [--runs 400] [--events 100000] [--long 100000]",
  ],
  options: {
    sizes: {
      type: "string",
      value: "N,…",
      default: "100,1000,10000",
      description: "session lengths in records",
    },
    runs: numberOption(400, "timed events per size"),
    events: numberOption(100000, "events in the memory run (0: skip it)"),
    long: numberOption(100000, "records in the one-session run (0: skip it)"),
  },
  args: "none",
  example: "deno run -A bench/resident.ts --events 0",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

/** Runs the benchmark and prints the figures. */
async function measure(p: Parsed): Promise<number> {
  const sizes = p.string("sizes")!.split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw p.error(
      `--sizes "${p.string("sizes")}" is not a list of whole numbers. Use e.g. --sizes 100,1000.`,
    );
  }
  const runs = wholeNumber(p, "runs", 1)!;
  const events = wholeNumber(p, "events", 0)!;
  const long = wholeNumber(p, "long", 0)!;
  const load = Deno.loadavg().map((l) => l.toFixed(1)).join(" ");
  console.log(
    `resident guard, critic arm, one payer session; load average ${load}, ${navigator.hardwareConcurrency} cores`,
  );
  console.log("  records   in-handle p50 / p95 (pre p50, terminal p50)   fold p50   floor: parse alone p50");
  const ev = emptyEvidence();
  const records: LedgerRecord[] = [];
  let at = 0;
  for (const size of sizes) {
    await drive(ev, records, at, size);
    at = size;
    const held = records.length;
    const times: { word: EventWord; handle: number; fold: number; floor: number }[] = [];
    await drive(ev, records, at, at + runs, times);
    const terminal: number[] = [];
    for (let i = at; i < at + runs; i++) {
      if (sessionEvent(i).word === "pre" && sessionEvent(i).body.includes("determination_finalize")) {
        terminal.push(times[i - at].handle);
      }
    }
    at += runs;
    const all = times.map((t) => t.handle);
    const pres = times.filter((t) => t.word === "pre").map((t) => t.handle);
    console.log(
      `  ${String(held).padStart(7)}   ${ms(quantile(all, 0.5))} / ${ms(quantile(all, 0.95))} (${
        ms(quantile(pres, 0.5))
      }, ${terminal.length ? ms(quantile(terminal, 0.5)) : "n/a"})   ${
        ms(quantile(times.map((t) => t.fold), 0.5))
      }   ${ms(quantile(times.map((t) => t.floor), 0.5))}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "fiable-resident-"));
  const file = writeLedger(dir, SESSION, records);
  const bundle = await bundleGuard(join(dir, "fiable-guard.cjs"));
  // The first event of a session whose ledger is on disk: in a long-running guard after the session was
  // released (SessionEnd), in a fresh guard, and in a restarted guard that folds the sessions it resumes as
  // soon as it listens. A fresh guard first warms up (lib/guard/resident/warm.ts) and answers another session, so
  // start-up is not counted; a restarted one answers another session (it warms meanwhile). The floor is
  // Node reading the same file and JSON-parsing every line (hot: the median of 5 after one warm-up).
  const floorScript = join(dir, "floor.cjs");
  writeFileSync(
    floorScript,
    `const times = []; for (let k = 0; k < 6; k++) { const t = performance.now(); for (const l of ` +
      `require("node:fs").readFileSync(process.argv[2], "utf8").split("\\n")) if (l) JSON.parse(l); ` +
      `times.push(performance.now() - t); } times.shift(); times.sort((a, b) => a - b); console.log(times[2]);`,
  );
  const parseFloor = Number(
    new TextDecoder().decode(
      new Deno.Command("node", { args: [floorScript, file], stdout: "piped" }).outputSync().stdout,
    ),
  );
  const env = { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "critic", FIABLE_SUPERVISE: "0" };
  const post = async (url: string, event: HookEvent) => {
    const t0 = performance.now();
    await (await fetch(`${url}/hook/${event.word}`, { method: "POST", body: event.body })).text();
    return performance.now() - t0;
  };
  /** The guard's warm-up report (lib/guard/resident/warm.ts), once it has run. */
  const warmedUp = async (url: string): Promise<{ ms: number; longestStepMs: number }> => {
    for (;;) {
      const { warm } = await (await fetch(`${url}/health`)).json();
      if (warm) return warm;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const warmUps: { ms: number; longestStepMs: number }[] = [];
  /** The session's first event in a fresh guard and in a restarted one (5 of each), under `guardEnv`. */
  const firstEvents = async (guardEnv: Record<string, string>) => {
    const fresh: number[] = [];
    const warmed: number[] = [];
    const resumed: number[] = [];
    for (let k = 0; k < 5; k++) {
      const first = await startNode([bundle, "serve", "--port", "0"], guardEnv);
      try {
        // Start-up is not counted: the guard's warm-up, then another session's event.
        warmUps.push(await warmedUp(first.url));
        await post(first.url, sessionEvent(at + 1, `other-${k}`));
        fresh.push(await post(first.url, sessionEvent(at + 1)));
      } finally {
        first.stop();
      }
      const restarted = await startNode(
        [bundle, "serve", "--child", "--port", "0", "--restart-note", "bench"],
        guardEnv,
      );
      try {
        const listening = performance.now();
        // Every session not cleanly stopped is resumed: the bench session and the other sessions so far.
        const ledgers = readdirSync(dir).filter((f) => f.endsWith(".jsonl")).length;
        for (let held = 0; held < ledgers;) {
          held = (await (await fetch(`${restarted.url}/health`)).json()).held.sessions;
          if (held < ledgers) await new Promise((r) => setTimeout(r, 5));
        }
        warmed.push(performance.now() - listening);
        await post(restarted.url, sessionEvent(at + 1, `other-${k}`));
        resumed.push(await post(restarted.url, sessionEvent(at + 1)));
      } finally {
        restarted.stop();
      }
    }
    return { fresh, warmed, resumed };
  };
  /** The session's first event after SessionEnd released it from a running guard (5 times). */
  const releasedAndBack = async (url: string, from: number) => {
    const back: number[] = [];
    for (let k = 0; k < 5; k++) {
      await fetch(`${url}/hook/session-end`, { method: "POST", body: sessionEvent(1).body }).then((r) =>
        r.text()
      );
      back.push(await post(url, sessionEvent(from + k)));
    }
    return back;
  };
  const noCheckpoint = { ...env, FIABLE_CHECKPOINT: "0" };
  const without = await firstEvents(noCheckpoint);
  const bare = join(dir, "bare.cjs");
  writeFileSync(bare, BARE_SERVER);
  const guard = await startNode([bundle, "serve", "--port", "0"], env);
  const floorServer = await startNode([bare], {});
  try {
    await roundTrips(guard.url, at, 20);
    await roundTrips(floorServer.url, at, 20);
    const trip = await roundTrips(guard.url, at + 20, runs);
    const floor = await roundTrips(floorServer.url, at + 20, runs);
    // The running guard wrote the session's checkpoint when SessionEnd released it; the fresh and restarted
    // guards after it load from there (a guard without checkpoints re-reads the ledger each time).
    const back = await releasedAndBack(guard.url, at + 20 + runs);
    const withCheckpoint = await firstEvents(env);
    const plain = await startNode([bundle, "serve", "--port", "0"], noCheckpoint);
    let backWithout: number[];
    try {
      await post(plain.url, sessionEvent(at + 1, "other-plain"));
      backWithout = await releasedAndBack(plain.url, at + 30 + runs);
    } finally {
      plain.stop();
    }
    const mb = (readFileSync(file).length / 2 ** 20).toFixed(1);
    const median = (xs: number[]) => ms(quantile(xs, 0.5));
    console.log(
      `  first event of a session with a ${records.length}-record (${mb} MB) ledger, node bundle (medians of 5; ` +
        `floor: node reading the file and JSON-parsing every line ${ms(parseFloor)}):`,
    );
    for (
      const [label, m, b] of [
        ["from its checkpoint", withCheckpoint, back],
        ["re-reading the ledger (FIABLE_CHECKPOINT=0)", without, backWithout],
      ] as const
    ) {
      console.log(
        `    ${label}: released and back in a running guard ${median(b)}, in a fresh guard ${
          median(m.fresh)
        }; ` +
          `a restarted guard holds the session ${median(m.warmed)} after listening, then ${
            median(m.resumed)
          }`,
      );
    }
    console.log(
      `  a fresh guard's warm-up once listening (waited for above): ${
        median(warmUps.map((w) => w.ms))
      } median, its longest step ${
        median(warmUps.map((w) => w.longestStepMs))
      } (an event arriving meanwhile ` +
        `waits for one step)`,
    );
    console.log(
      `  http round trip at ${records.length + 20}+ records (node bundle): ${ms(trip.p50)} median, ${
        ms(trip.p95)
      } p95 (floor: bare node:http server parsing the body ${ms(floor.p50)} median, ${ms(floor.p95)} p95)`,
    );
  } finally {
    guard.stop();
    floorServer.stop();
  }
  if (events > 0) {
    const memoryDir = mkdtempSync(join(tmpdir(), "fiable-resident-memory-"));
    const resident = await startNode([...SERVE_HEAP_FLAGS, bundle, "serve", "--port", "0"], {
      FIABLE_LEDGER_DIR: memoryDir,
      FIABLE_CC_ARM: "critic",
      FIABLE_SUPERVISE: "0",
      FIABLE_SESSION_ENDED_MS: "1000",
    });
    const idle = await (await fetch(`${resident.url}/health`)).json();
    try {
      const opts = { events, sessions: 64, concurrent: 16 };
      const m = await memoryRun(resident.url, memoryDir, opts);
      console.log(
        `  memory: ${events} events across ${opts.sessions} sessions (${opts.concurrent} at a time, each ending ` +
          `with a Stop) in ${
            m.seconds.toFixed(0)
          } s: peak RSS ${m.peakMb} MB (idle guard ${idle.rss_mb} MB; peak heap used ${m.heapPeak} MB), ` +
          `${m.heldPeak} records held at most, ${m.afterMb} MB once all were released; ${m.missing} records missing`,
      );
    } finally {
      resident.stop();
    }
  }
  if (long > 0) await longSession(bundle, long);
  return 0;
}

/**
 * One session of `records` events through the Node guard over http, as Claude Code sends them one after
 * another: per 10k events, the round trip's median, p95 and slowest, and the guard's memory after them.
 */
async function longSession(bundle: string, records: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-resident-long-"));
  const guard = await startNode([...SERVE_HEAP_FLAGS, bundle, "serve", "--port", "0"], {
    FIABLE_LEDGER_DIR: dir,
    FIABLE_CC_ARM: "critic",
    FIABLE_SUPERVISE: "0",
  });
  console.log(
    `  one session of ${records} records, node bundle over http (round trip per 10k records; memory after them):`,
  );
  try {
    let times: number[] = [];
    for (let i = 0; i < records; i++) {
      const { word, body } = sessionEvent(i, "bench-long");
      const t0 = performance.now();
      await (await fetch(`${guard.url}/hook/${word}`, { method: "POST", body })).text();
      times.push(performance.now() - t0);
      if ((i + 1) % 10_000 && i + 1 !== records) continue;
      const h = await (await fetch(`${guard.url}/health`)).json();
      const mb = (readFileSync(join(dir, ledgerFileName("bench-long"))).length / 2 ** 20).toFixed(0);
      console.log(
        `    ${String(i + 1).padStart(7)}: ${ms(quantile(times, 0.5))} median, ${
          ms(quantile(times, 0.95))
        } p95, ` +
          `${
            ms(Math.max(...times))
          } slowest; RSS ${h.rss_mb} MB, heap used ${h.heap_mb} MB (ledger ${mb} MB)`,
      );
      times = [];
    }
  } finally {
    guard.stop();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
