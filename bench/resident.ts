/**
 * The resident guard's per-event cost as a session grows (issue 20's http target): in-handle time at 100 /
 * 1k / 10k session records with the running evidence, the first event of a session whose 10k-record ledger
 * is already on disk, and the http round trip at 10k records, each beside its floor measured in the same run
 * (parsing the hook JSON alone; reading and JSON-parsing the ledger alone; a bare node:http server).
 *
 * Usage: deno run -A bench/resident.ts [--sizes 100,1000,10000] [--runs 400]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../bundle.ts";
import { emptyEvidence, type Evidence, foldRecord } from "../lib/guard/evidence.ts";
import { handle } from "../lib/guard/handle.ts";
import { type EventWord, parseHookInput } from "../lib/guard/hook.ts";
import { ledgerFileName, type LedgerRecord } from "../lib/guard/ledger.ts";
import { resolveSettings } from "../lib/guard/profile.ts";
import { SessionStore } from "../lib/guard/sessions.ts";

const SESSION = "bench-resident";
const PROMPT = "# ⚕️ MD Review — Knee arthroscopy for PAT-3f2a9c1b7d4e\n" +
  "- Use only payer namespaces: `review`, `determination`, `p2p`, `payer_letter_center`\n" +
  "- Case CASE-3903B8ED, member MBR-55120, CPT 29881, ICD-10 M23.221\n";

/** One hook event: the route word and the body Claude Code would send. */
export interface HookEvent {
  word: EventWord;
  body: string;
}

function payload(fields: Record<string, unknown>): string {
  return JSON.stringify({ session_id: SESSION, cwd: "/workspace", ...fields });
}

/**
 * The i-th event of a long payer MD-review session after its prompt: pre/post pairs over reads (≈1 KB
 * results that return new document and note ids) and mutations (notes naming ids seen earlier), a
 * terminal finalize every 100 calls (the rules, the critic panel and the closure facts all run), a stop
 * every 1,000 events.
 */
export function sessionEvent(i: number): HookEvent {
  if (i === 0) {
    return { word: "prompt", body: payload({ hook_event_name: "UserPromptSubmit", prompt: PROMPT }) };
  }
  if (i % 1000 === 999) {
    return { word: "stop", body: payload({ hook_event_name: "Stop", stop_hook_active: false }) };
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
  if (i % 2 === 1) return { word: "pre", body: payload({ hook_event_name: "PreToolUse", ...base }) };
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
    }),
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

/** Runs the benchmark and prints the figures. */
export async function main(args: string[]): Promise<number> {
  const flag = (name: string, fallback: string) =>
    args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
  const sizes = flag("--sizes", "100,1000,10000").split(",").map(Number);
  const runs = Number(flag("--runs", "400"));
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
  const file = join(dir, ledgerFileName(SESSION));
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const firsts: number[] = [];
  const floors: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t0 = performance.now();
    const store = new SessionStore({ ledgerDir: dir });
    await handle("pre", sessionEvent(at + 1).body, SETTINGS, { evidence: (s) => store.evidence(s) });
    firsts.push(performance.now() - t0);
    const t1 = performance.now();
    for (const line of readFileSync(file, "utf8").split("\n")) if (line) JSON.parse(line);
    floors.push(performance.now() - t1);
  }
  console.log(
    `  first event of a session with a ${records.length}-record ledger on disk: ${
      ms(quantile(firsts, 0.5))
    } median ` +
      `of 5 (floor: read + JSON.parse every line ${ms(quantile(floors, 0.5))})`,
  );
  const bundle = await bundleGuard(join(dir, "fiable-guard.mjs"));
  const bare = join(dir, "bare.cjs");
  writeFileSync(bare, BARE_SERVER);
  const guard = await startNode([bundle, "serve", "--port", "0"], {
    FIABLE_LEDGER_DIR: dir,
    FIABLE_CC_ARM: "critic",
    FIABLE_SUPERVISE: "0",
  });
  const floorServer = await startNode([bare], {});
  try {
    await roundTrips(guard.url, at, 20);
    await roundTrips(floorServer.url, at, 20);
    const trip = await roundTrips(guard.url, at + 20, runs);
    const floor = await roundTrips(floorServer.url, at + 20, runs);
    console.log(
      `  http round trip at ${records.length + 20}+ records (node bundle): ${ms(trip.p50)} median, ${
        ms(trip.p95)
      } p95 (floor: bare node:http server parsing the body ${ms(floor.p50)} median, ${ms(floor.p95)} p95)`,
    );
  } finally {
    guard.stop();
    floorServer.stop();
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
