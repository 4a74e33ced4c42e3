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
import { loadPrices, serve } from "./dashboard/server.tsx";
import { replayTrees } from "./lib/trajectories/replay.ts";
import { verifyTrees } from "./lib/results/verify.ts";

/** Demo settings. */
export interface DemoArgs {
  out: string;
  port: number;
  serve: boolean;
}

/** Parses `--out DIR --port N --no-serve`. */
export function parseArgs(args: string[]): DemoArgs {
  const out: DemoArgs = { out: resolve(".fiable", "demo"), port: 8787, serve: true };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--no-serve") out.serve = false;
    else if (a === "--out" && args[i + 1]) out.out = resolve(args[++i]);
    else if (a === "--port" && args[i + 1]) {
      out.port = Number(args[++i]);
      if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535) {
        throw new Error(`Cannot start the demo: --port "${args[i]}" is not a port number. Use 0–65535.`);
      }
    } else throw new Error(`Cannot start the demo: ${a} is unknown. Use --out DIR, --port N or --no-serve.`);
  }
  return out;
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

/** A path as `deno task` (which runs in the repository root) takes it: relative to the root when below it. */
function shown(path: string): string {
  const rel = relative(ROOT, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** The commands equivalent to what `prepare` did, and the dashboard it serves. */
export function demoCommands(
  data: Omit<DemoData, "commands" | "lines" | "trials">,
  arms: string[],
): string[] {
  return [
    `deno task verify ${shown(data.samples)}`,
    `deno task replay ${shown(join(data.samples, "stock"))} --arm checklist,critic --out ${
      shown(data.replay)
    }`,
    `deno task aggregate ${arms.map((a) => `--arm ${a}=${shown(join(data.samples, a))}`).join(" ")} ` +
    `--control stock --out ${shown(data.results)}`,
    `deno task dashboard --logs ${shown(data.samples)} --results ${shown(data.results)} ${
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
    workers: 1,
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
export async function main(args: string[]): Promise<number> {
  let parsed: DemoArgs;
  try {
    parsed = parseArgs(args);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const data = await prepare(parsed.out);
  for (const line of data.lines) console.log(line);
  console.log("\nThe same steps from a shell:");
  for (const command of data.commands) console.log(`  ${command}`);
  console.log(
    "\nThe sample trials are synthetic (scripted agents, some run through the guard itself): their pass rates\n" +
      "only illustrate the dashboard and say nothing about the guard on χ-Bench.\n",
  );
  if (!parsed.serve) return 0;
  let started;
  const sources = { logs: [data.samples], results: [data.results, data.replay], control: "stock" };
  try {
    started = serve({ ...sources, port: parsed.port, host: "127.0.0.1" });
  } catch (err) {
    if (!(err instanceof Deno.errors.AddrInUse)) throw err;
    started = serve({ ...sources, port: 0, host: "127.0.0.1" });
  }
  console.log(`fiable dashboard: ${started.url}  (Ctrl-C to stop)`);
  await started.server.finished;
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
