/**
 * The resident guard under load (issue 39's http and memory targets): `--events` hook events spread over
 * `--sessions` sessions that all post at once (one event in flight per session, each session's events in
 * order, a Stop last), against the Node bundle over http. Reports the round trip's median, p99 and slowest
 * beside a bare node:http server's under the same load, the peak RSS and heap (polled from /health), and the
 * sessions the guard released early to stay within its caps (evictions) and loaded again (rebuilds).
 *
 * `--heap-snapshot FILE` writes a V8 heap snapshot of the guard when its RSS peaks (signal SIGUSR2): open it in
 * Chrome's DevTools (Memory, Load) to see which objects hold the memory.
 *
 * Usage: deno run -A bench/load.ts [--events 100000] [--sessions 64] [--heap-snapshot FILE]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleGuard } from "../bundle.ts";
import { SERVE_HEAP_FLAGS } from "../lib/guard/resident/resident.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";
import { sessionEvent } from "./resident.ts";

/** The targets (issue 39): http round trip under 64 sessions at once, and the peak RSS over 100k events. */
export const TARGETS = { httpMedianMs: 2, httpP99Ms: 10, peakRssMb: 150 };

/** A started server: its URL, pid and a stop. */
interface Started {
  url: string;
  pid: number;
  stop: () => void;
}

/** Starts `node <args>` and waits for its "serving on" line. */
export function startNode(args: string[], env: Record<string, string>, cwd?: string): Promise<Started> {
  const child = spawn("node", args, {
    env: { ...Deno.env.toObject(), ...env },
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      const m = /serving on (http:\/\/\S+)/.exec(err);
      if (m) resolve({ url: m[1], pid: child.pid!, stop: () => child.kill() });
    });
    child.on("exit", (code) => reject(new Error(`node ${args.join(" ")} exited ${code}: ${err}`)));
  });
}

/** A bare node:http server that parses each body as JSON: the floor of an http hook. */
export const BARE_SERVER = `
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

/** The value at quantile `q` of `values`. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

/** What one load run measured. */
export interface LoadFigures {
  p50: number;
  p99: number;
  max: number;
  peakRssMb: number;
  peakHeapMb: number;
  peakHeapTotalMb: number;
  peakExternalMb: number;
  evicted: number;
  rebuilt: number;
  seconds: number;
}

/**
 * Drives `events` events over `sessions` sessions, all at once, against the server at `url`; polls its
 * /health (when it has one) for memory and releases, and calls `atPeak` once when the RSS first passes
 * `peakAt` MB.
 */
export async function drive(
  url: string,
  opts: {
    events: number;
    sessions: number;
    health: boolean;
    thinkMs: number;
    atPeak?: (rssMb: number) => void;
    peakAt?: number;
  },
): Promise<LoadFigures> {
  const per = Math.ceil(opts.events / opts.sessions);
  const times: number[] = [];
  let peakRssMb = 0, peakHeapMb = 0, peakHeapTotalMb = 0, peakExternalMb = 0;
  let evicted = 0, rebuilt = 0, snapped = false;
  const poll = opts.health
    ? setInterval(async () => {
      const h = await (await fetch(`${url}/health`)).json().catch(() => null);
      if (!h) return;
      peakRssMb = Math.max(peakRssMb, h.rss_mb);
      peakHeapMb = Math.max(peakHeapMb, h.heap_mb);
      peakHeapTotalMb = Math.max(peakHeapTotalMb, h.heap_total_mb);
      peakExternalMb = Math.max(peakExternalMb, h.external_mb);
      evicted = h.held.releases.evicted;
      rebuilt = h.held.releases.rebuilt;
      if (!snapped && opts.atPeak && h.rss_mb >= (opts.peakAt ?? Infinity)) {
        snapped = true;
        opts.atPeak(h.rss_mb);
      }
    }, 200)
    : undefined;
  const started = performance.now();
  await Promise.all(Array.from({ length: opts.sessions }, async (_, k) => {
    const session = `load-${k}`;
    for (let i = 0; i < per; i++) {
      const { word, body } = i === per - 1
        ? {
          word: "stop",
          body: JSON.stringify({ session_id: session, hook_event_name: "Stop", stop_hook_active: false }),
        }
        : sessionEvent(i, session);
      const t0 = performance.now();
      await (await fetch(`${url}/hook/${word}`, { method: "POST", body })).text();
      times.push(performance.now() - t0);
      if (opts.thinkMs) await new Promise((r) => setTimeout(r, opts.thinkMs * (0.5 + Math.random())));
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  if (poll) clearInterval(poll);
  if (opts.health) {
    const h = await (await fetch(`${url}/health`)).json();
    evicted = h.held.releases.evicted;
    rebuilt = h.held.releases.rebuilt;
  }
  return {
    p50: quantile(times, 0.5),
    p99: quantile(times, 0.99),
    max: Math.max(...times),
    peakRssMb,
    peakHeapMb,
    peakHeapTotalMb,
    peakExternalMb,
    evicted,
    rebuilt,
    seconds,
  };
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench load",
  summary:
    "The resident guard with many sessions posting at once: http round trip median and p99, peak RSS, evictions.",
  usage: [
    "deno run -A bench/load.ts [--events 100000] [--sessions 64] [--heap-snapshot FILE] [--peak-mb 120]",
  ],
  options: {
    events: numberOption(100000, "hook events in all"),
    sessions: numberOption(64, "sessions posting at once"),
    "think-ms": numberOption(
      100,
      "each session's pause between an answer and its next event, on average (0: the next at once, a flood)",
    ),
    "heap-snapshot": {
      type: "string",
      value: "FILE",
      description: "write a heap snapshot of the guard at its peak",
    },
    "peak-mb": numberOption(120, "the RSS at which the heap snapshot is taken"),
  },
  args: "none",
  example: "deno run -A bench/load.ts --events 100000 --sessions 64",
};

/** Entry: the command line, then the measurement. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

const ms = (v: number) => `${v.toFixed(2)} ms`;

async function measure(p: Parsed): Promise<number> {
  const events = wholeNumber(p, "events", 1)!;
  const sessions = wholeNumber(p, "sessions", 1)!;
  const snapshot = p.string("heap-snapshot");
  const thinkMs = wholeNumber(p, "think-ms", 0)!;
  const dir = mkdtempSync(join(tmpdir(), "fiable-load-"));
  const bundle = await bundleGuard(join(dir, "fiable-guard.cjs"));
  const bare = join(dir, "bare.cjs");
  writeFileSync(bare, BARE_SERVER);
  const floorServer = await startNode([bare], {});
  let floor: LoadFigures;
  try {
    floor = await drive(floorServer.url, { events, sessions, health: false, thinkMs });
  } finally {
    floorServer.stop();
  }
  const ledgers = join(dir, "ledgers");
  const flags = [...SERVE_HEAP_FLAGS, ...(snapshot ? ["--heapsnapshot-signal=SIGUSR2"] : [])];
  const guard = await startNode([...flags, bundle, "serve", "--port", "0"], {
    FIABLE_LEDGER_DIR: ledgers,
    FIABLE_CC_ARM: "critic",
    FIABLE_SUPERVISE: "0",
    FIABLE_SESSION_ENDED_MS: "1000",
  }, dir);
  let m: LoadFigures;
  try {
    const idle = (await (await fetch(`${guard.url}/health`)).json()).rss_mb;
    m = await drive(guard.url, {
      events,
      sessions,
      health: true,
      thinkMs,
      peakAt: wholeNumber(p, "peak-mb", 1)!,
      atPeak: snapshot ? () => Deno.kill(guard.pid, "SIGUSR2") : undefined,
    });
    const load = Deno.loadavg().map((l) => l.toFixed(1)).join(" ");
    const verdict = (met: boolean) => (met ? "met" : "MISSED");
    console.log(
      `resident guard (node bundle, critic arm), ${events} events over ${sessions} sessions posting at once, ` +
        `in ${m.seconds.toFixed(0)} s (load ${load}, ${navigator.hardwareConcurrency} cores):`,
    );
    console.log(
      `  http round trip: ${ms(m.p50)} median, ${ms(m.p99)} p99, ${ms(m.max)} slowest ` +
        `(floor, a bare node:http server parsing the body: ${ms(floor.p50)}, ${ms(floor.p99)}, ${
          ms(floor.max)
        })`,
    );
    console.log(
      `  memory: peak RSS ${m.peakRssMb} MB (idle ${idle} MB), peak heap used ${m.peakHeapMb} MB (reserved ${m.peakHeapTotalMb} MB, outside the heap ${m.peakExternalMb} MB); ` +
        `${m.evicted} sessions evicted, ${m.rebuilt} loaded again`,
    );
    console.log(
      `  targets: median ≤ ${TARGETS.httpMedianMs} ms ${
        verdict(m.p50 <= TARGETS.httpMedianMs)
      }, p99 ≤ ${TARGETS.httpP99Ms} ms ` +
        `${verdict(m.p99 <= TARGETS.httpP99Ms)}, peak RSS ≤ ${TARGETS.peakRssMb} MB ${
          verdict(m.peakRssMb <= TARGETS.peakRssMb)
        }`,
    );
  } finally {
    guard.stop();
  }
  if (snapshot) {
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".heapsnapshot"));
    if (file) {
      renameSync(join(dir, file), snapshot);
      console.log(`  heap snapshot: ${snapshot}`);
    } else console.log(`  no heap snapshot: the RSS never reached ${p.string("peak-mb") ?? 120} MB`);
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
