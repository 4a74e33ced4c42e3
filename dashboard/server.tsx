/**
 * The dashboard's command line and server: parses the arguments, listens at once, and reads the sources in
 * the background (the first scan shows its progress; later rescans are quiet). The app itself is app.tsx; its
 * pages are pages/<page>/, listed in pages/mod.ts.
 *
 * `deno task dashboard --logs DIR... --results DIR... [--port N] [--host H] [--token T] [--control ARM]
 *  [--recipe A|B|C] [--prices FILE] [--experiments DIR] [--live-window MIN] [--handbook DIR]`
 */
import { resolve } from "node:path";
import { existsSync } from "node:fs";
import { isLoopback } from "../lib/guard/resident/access.ts";
import { type Recipe, RECIPES } from "../lib/results/cost.ts";
import { type CommandSpec, parse, type Parsed, portNumber, runCli } from "../lib/cli.ts";
import { type AppOptions, createApp } from "./app.tsx";
import type { Store } from "./read/store.ts";
import type { Figures } from "./read/figures.ts";
import { readInBackground } from "./read/background.ts";
import { loadPrices } from "./read/prices.ts";
import { loadFactsReader } from "../lib/results/guard_facts_reader.ts";

/** Parsed command line. */
export interface ServeArgs {
  logs: string[];
  /** `--logs NAME=DIR`: the name of every trial's arm below DIR, by DIR. */
  names?: Record<string, string>;
  results: string[];
  port: number;
  /** When the port is taken, listen on a free one instead (the default port); else refuse with one line. */
  portFallback?: boolean;
  host: string;
  token?: string;
  control?: string;
  handbook?: string;
  recipe?: Recipe;
  prices?: string;
  experiments?: string[];
  /** Minutes a trial without a result counts as live after its last write (the Live page). */
  liveWindowMin?: number;
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "dashboard",
  summary: "The Hono + htmx dashboard: arms, matrix, trials, transcripts, rules, live ablation, search; " +
    "`--control`, `--recipe`, `--prices`, `--experiments DIR`, `--live-window MIN`, `--handbook DIR`.",
  usage: ["deno task dashboard --logs [NAME=]DIR... --results DIR... [options]"],
  options: {
    logs: {
      type: "string",
      value: "[NAME=]DIR",
      list: true,
      description: "trial trees and ledgers; NAME= names the arm of every trial below DIR",
    },
    results: { type: "string", value: "DIR", list: true, description: "aggregate and replay output" },
    experiments: {
      type: "string",
      value: "DIR",
      list: true,
      description: "ablation configs for the Live page",
    },
    "live-window": {
      type: "string",
      value: "MIN",
      default: "10",
      description: "minutes since its last write that a trial without a result counts as live (Live page)",
    },
    port: {
      type: "string",
      value: "N",
      default: "8787",
      description: "the port (0: a free one; the default moves to a free one when taken)",
    },
    host: { type: "string", value: "H", default: "127.0.0.1", description: "the host name to bind" },
    token: {
      type: "string",
      value: "T",
      defaultNote: "env FIABLE_LIVE_TOKEN",
      description: "bearer token for POST /ingest (required off loopback)",
    },
    control: { type: "string", value: "ARM", description: "the arm every other arm is compared against" },
    recipe: { type: "string", value: "A|B|C", default: "B", description: "cost/walltime recipe" },
    prices: {
      type: "string",
      value: "FILE",
      default: "data/prices.yaml",
      description: "chi-bench prices.yaml",
    },
    handbook: { type: "string", value: "DIR", description: "the handbook folder, for handbook search" },
  },
  args: [],
  example: "deno task dashboard --logs runs/ --results results/ --control stock",
};

/** Parses the command line (`CLI`); throws a CliError with the fix. */
export function parseArgs(args: string[], env: Record<string, string | undefined> = {}): ServeArgs {
  return serveArgs(parse(CLI, args), env);
}

function serveArgs(p: Parsed, env: Record<string, string | undefined>): ServeArgs {
  if (p.positionals.length) {
    throw p.error(`"${p.positionals[0]}" follows no option. Put directories after --logs or --results.`);
  }
  const out: ServeArgs = {
    ...logRoots(p.strings("logs")),
    results: p.strings("results").map((d) => resolve(d)),
    experiments: p.strings("experiments").map((d) => resolve(d)),
    port: portNumber(p)!,
    portFallback: !p.given("port"),
    host: p.string("host")!,
    token: p.string("token") ?? (env.FIABLE_LIVE_TOKEN || undefined),
    control: p.string("control"),
    handbook: p.given("handbook") ? resolve(p.string("handbook")!) : undefined,
    prices: p.given("prices") ? resolve(p.string("prices")!) : undefined,
  };
  if (p.given("recipe")) {
    const r = p.string("recipe")!.toUpperCase();
    if (!RECIPES.includes(r as Recipe)) {
      throw p.error(`--recipe "${p.string("recipe")}" is unknown. Use one of ${RECIPES.join(", ")}.`);
    }
    out.recipe = r as Recipe;
  }
  if (p.given("live-window")) {
    const text = p.string("live-window")!;
    const minutes = Number(text);
    if (!(minutes > 0 && minutes <= 24 * 60)) {
      throw p.error(`--live-window "${text}" is not a number of minutes. Use one from 1 to 1440, e.g. 30.`);
    }
    out.liveWindowMin = minutes;
  }
  if (!out.logs.length && !out.results.length) {
    throw p.error("no sources. Use --logs DIR (trial trees, ledgers) and/or --results DIR.");
  }
  for (const dir of [...out.logs, ...out.results, ...out.experiments!, ...(out.prices ? [out.prices] : [])]) {
    if (!existsSync(dir)) throw p.error(`${dir} does not exist. Check the path.`);
  }
  return out;
}

/** `--logs DIR` or `--logs NAME=DIR` (a DIR of that name on disk wins), as absolute paths and their names. */
function logRoots(values: string[]): { logs: string[]; names: Record<string, string> } {
  const names: Record<string, string> = {};
  const logs = values.map((v) => {
    const named = /^([^=/\\]+)=(.+)$/.exec(v);
    if (!named || existsSync(v)) return resolve(v);
    names[resolve(named[2])] = named[1];
    return resolve(named[2]);
  });
  return { logs, names };
}

/**
 * Starts the server and returns at once with the URL it serves; the sources are scanned in the background
 * (`scanned` resolves when the first scan is done; rescans follow every `scanMs`), big ledgers too.
 */
export function serve(
  a: ServeArgs,
  opts: AppOptions = {},
): {
  server: Deno.HttpServer;
  url: string;
  store: Store;
  figures: Figures;
  scanned: Promise<void>;
  /** True when the asked port was taken and a free one was used instead. */
  moved: boolean;
} {
  const remote = !isLoopback(a.host);
  if (remote && !a.token) {
    throw new Error(
      `Cannot bind ${a.host} without a token: every request must carry one off loopback. Pass --token or set FIABLE_LIVE_TOKEN.`,
    );
  }
  const priced = a.prices ? loadPrices(a.prices) : undefined;
  if (priced?.note) throw new Error(priced.note);
  const scanMs = opts.scanMs ?? 3000;
  const { app, store, figures, search } = createApp({
    logs: a.logs,
    names: a.names,
    results: a.results,
    liveWindow: a.liveWindowMin === undefined ? undefined : a.liveWindowMin * 60,
  }, {
    token: a.token,
    requireToken: remote,
    hosts: [a.host],
    control: a.control,
    handbook: a.handbook,
    recipe: a.recipe,
    prices: priced?.prices,
    experiments: a.experiments,
    tailBudget: 256 << 10,
    tailTimeMs: 30,
    ...opts,
    // Requests never rescan the trees; the background below does, so no request pays for a walk of 10,000 dirs.
    scanMs: Infinity,
  });
  // Listen first: the sources are read in the background, in slices, and pages show what is read so far.
  const server = listen(a, app.fetch);
  const reading = readInBackground({ store, figures, search }, {
    sliceMs: opts.sliceMs ?? 20,
    scanMs,
    // Once computed, the Arms figures are rendered here, so no visitor waits for hundreds of KB of HTML.
    figuresReady: async () => {
      const headers: Record<string, string> = a.token ? { authorization: `Bearer ${a.token}` } : {};
      await (await app.request("http://127.0.0.1/?part=figures", { headers })).body?.cancel();
    },
  });
  server.finished.then(reading.stop);
  const scanned = reading.scanned;
  const port = (server.addr as Deno.NetAddr).port;
  const url = `http://${a.host.includes(":") ? `[${a.host}]` : a.host}:${port}/`;
  return { server, url, store, figures, scanned, moved: port !== a.port && a.port !== 0 };
}

/** Listens on the asked port; when it is taken, on a free one if `portFallback`, else refuses in one line. */
function listen(a: ServeArgs, handler: Deno.ServeHandler): Deno.HttpServer {
  const at = (port: number) => Deno.serve({ hostname: a.host, port, onListen: () => {} }, handler);
  try {
    return at(a.port);
  } catch (err) {
    if (!(err instanceof Deno.errors.AddrInUse)) throw err;
    if (a.portFallback) return at(0);
    throw new Error(
      `Cannot listen on ${a.host}:${a.port}: another process uses that port. ` +
        "Pass --port 0 for a free one, or another --port.",
    );
  }
}

/** Entry: parse args, serve, print the URL. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => run(serveArgs(p, Deno.env.toObject())));
}

async function run(parsed: ServeArgs): Promise<number> {
  await loadFactsReader();
  try {
    const { server, url, moved } = serve(parsed);
    console.log(
      `fiable dashboard: ${url}${parsed.token && !isLoopback(parsed.host) ? "?token=<token>" : ""}` +
        (moved ? ` (port ${parsed.port} is in use; --port N picks another)` : ""),
    );
    await server.finished;
    return 0;
  } catch (err) {
    console.error((err as Error).message);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
