/**
 * The demo: writes the built-in sample trials, verifies the guard ran in them, replays them through the guard,
 * aggregates the two arms and serves the dashboard over all of it, printing each step as the command that does
 * the same and the URL. No network, no keys, no data from outside the repo. The sample pass rates are
 * illustrative only.
 *
 * `deno task demo [--out DIR] [--port N] [--no-serve]`
 */
import { rmSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { writeSamples } from "./lib/samples/trials.ts";
import { aggregateArms } from "./lib/results/aggregate.ts";
import { writeOutputs } from "./aggregate.ts";
import { serve } from "./dashboard/server.tsx";
import { loadPrices } from "./dashboard/read/prices.ts";
import { replayTrees } from "./lib/trajectories/replay.ts";
import { verifyTrees } from "./lib/results/verify.ts";
import { type CommandSpec, parse, type Parsed, portNumber, runCli } from "./lib/cli.ts";
import { DENO } from "./lib/install/experiments.ts";

/** The command line. */
export const CLI: CommandSpec = {
  name: "demo",
  summary:
    "Writes sample trials, verifies, replays and aggregates them, and serves the dashboard over them " +
    "(no network, no keys).",
  usage: ["deno task demo [--out DIR] [--port N] [--no-serve]"],
  options: {
    out: { type: "string", value: "DIR", default: ".fiable/demo", description: "where the demo data goes" },
    port: {
      type: "string",
      value: "N",
      default: "8787",
      description: "the dashboard's port (a free one when it is taken)",
    },
    "no-serve": { type: "boolean", description: "prepare the data and exit without serving" },
  },
  args: "none",
  example: "deno task demo --out /tmp/demo --no-serve",
};

/** Demo settings. */
export interface DemoArgs {
  out: string;
  port: number;
  serve: boolean;
}

/** Parses `--out DIR --port N --no-serve`; throws a CliError on bad input. */
export function parseArgs(args: string[]): DemoArgs {
  return demoArgs(parse(CLI, args));
}

function demoArgs(p: Parsed): DemoArgs {
  return { out: resolve(p.string("out")!), port: portNumber(p)!, serve: !p.flag("no-serve") };
}

/** Where the demo put its data. */
export interface DemoData {
  samples: string;
  results: string;
  replay: string;
  trials: number;
  lines: string[];
  /** The commands that reproduce each step from a shell (verify, replay, aggregate, dashboard). */
  commands: string[];
}

const ROOT = import.meta.dirname ?? ".";

/**
 * How deno.json's `demo` task runs Deno, after `-A -q`: no node_modules and its own lockfile, so a first run
 * fetches only the demo's packages, not every import the tests and the research loop use. Its figures child
 * runs the same way.
 */
export const DEMO_DENO_FLAGS = ["--node-modules-dir=none", "--lock=deno.demo.lock", "--frozen"];

/** The demo's flags for a child process, its lockfile by absolute path (a child may run elsewhere). */
function childFlags(): string[] {
  return DEMO_DENO_FLAGS.map((f) => f.startsWith("--lock=") ? `--lock=${join(ROOT, f.slice(7))}` : f);
}

/** A path as `deno task` (which runs in the repository root) takes it: relative to the root when below it. */
function shown(path: string): string {
  const rel = relative(ROOT, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/**
 * The commands equivalent to what `prepare` did, and the dashboard it serves, in the README's form: they run on
 * a machine with only Node and npm, as the demo itself did.
 */
export function demoCommands(
  data: Omit<DemoData, "commands" | "lines" | "trials">,
  arms: string[],
): string[] {
  return [
    `${DENO} task verify ${shown(data.samples)}`,
    `${DENO} task replay ${shown(join(data.samples, "stock"))} --arm checklist,critic --out ${
      shown(data.replay)
    } --ledgers`,
    `${DENO} task aggregate ${arms.map((a) => `--arm ${a}=${shown(join(data.samples, a))}`).join(" ")} ` +
    `--control stock --out ${shown(data.results)}`,
    `${DENO} task dashboard --logs ${shown(data.samples)} --results ${shown(data.results)} ${
      shown(data.replay)
    } --control stock`,
  ];
}

/** Writes samples, replays them (arms checklist and critic) and aggregates stock vs checklist; no server. */
export async function prepare(out: string): Promise<DemoData> {
  rmSync(out, { recursive: true, force: true });
  const samples = join(out, "samples");
  const results = join(out, "aggregate");
  const replay = join(out, "replay");
  const written = writeSamples(samples);
  const lines = [
    `wrote ${written.trials} sample trials (${Object.keys(written.arms).join(", ")}) to ${samples}`,
  ];
  const checked = verifyTrees([samples]);
  lines.push(
    `verified the guard ran: ${
      checked.arms.map((a) =>
        `${a.name} ${a.verdict}` +
        (a.kind === "guarded"
          ? ` (${a.integrity.full_coverage}/${a.integrity.trials} full coverage)`
          : " (no hooks)")
      ).join(", ")
    }` +
      (checked.problems.length ? `; ${checked.problems.length} problems (deno task verify ${samples})` : ""),
  );
  const report = await replayTrees([written.arms.stock], {
    arms: ["checklist", "critic"],
    out: replay,
    ledgers: true, // the transcripts' replay overlay reads them
    workers: 1,
    // No Parquet summary: it needs DuckDB's native module (≈ 140 MB), which the demo would fetch for nothing;
    // the dashboard reads these 18 trials' ledgers instead. `task replay` from a shell writes it.
    columnar: false,
  });
  lines.push(
    `replayed the ${report.trials.length} stock trials through the guard (arms ${
      report.arms.join(", ")
    }) into ${replay}` +
      (report.unreadable.length ? `; ${report.unreadable.length} unreadable` : ""),
  );
  const result = aggregateArms(
    Object.entries(written.arms).map(([name, dir]) => ({ name, roots: [dir] })),
    { control: "stock", prices: loadPrices().prices },
  );
  writeOutputs(results, result);
  lines.push(`aggregated ${Object.keys(written.arms).join(" vs ")} into ${results}`);
  const commands = demoCommands({ samples, results, replay }, Object.keys(written.arms));
  return { samples, results, replay, trials: written.trials, lines, commands };
}

/** Entry. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => run(demoArgs(p)));
}

async function run(parsed: DemoArgs): Promise<number> {
  const data = await prepare(parsed.out);
  for (const line of data.lines) console.log(line);
  console.log("\nThe same steps from a shell:");
  for (const command of data.commands) console.log(`  ${command}`);
  console.log(
    "\nThe sample trials are synthetic (scripted agents, some run through the guard itself): their pass rates\n" +
      "only illustrate the dashboard and say nothing about the guard on χ-Bench.\n",
  );
  if (!parsed.serve) return 0;
  const sources = { logs: [data.samples], results: [data.results, data.replay], control: "stock" };
  const started = serve({ ...sources, port: parsed.port, portFallback: true, host: "127.0.0.1" }, {
    figuresDenoFlags: childFlags(),
  });
  console.log(`fiable dashboard: ${started.url}  (Ctrl-C to stop)`);
  await started.server.finished;
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
