/**
 * Aggregate χ-Bench trial roots into per-arm figures: `deno task aggregate --arm stock=DIR --arm guarded=DIR
 * --control stock [--compare A:B] [--protocol] [--recipe A|B|C] [--prices FILE] [--out results/<name>/]`.
 * Checks every argument and path, then writes results.csv, comparisons.csv, aggregate.json, summary.md and
 * the Parquet summary (trials.parquet, decisions.parquet); exits 1 on a guard-integrity failure or an
 * unreadable trial (the outputs are still written), 0 when a packet's own bookkeeping only warns (unless
 * --strict), 2 on bad usage (nothing written).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
  aggregateArms,
  aggregateArmsParallel,
  type AggregateResult,
  type ArmInput,
  jsonlBelow,
  type TrialRead,
} from "./lib/results/aggregate.ts";
import { comparisonsCsv, terminalLines, toCsv, toMarkdown } from "./lib/results/aggregate_report.ts";
import { type Pair, REGISTERED, registeredAmong } from "./lib/results/protocol.ts";
import { PILOT, VERDICT_FILE } from "./lib/results/pilot.ts";
import {
  columnarLine,
  type ColumnarOutcome,
  type DuckLoader,
  type LedgerSource,
  type TrialColumns,
  trialColumns,
  writeColumnar,
} from "./lib/results/columnar.ts";
import { packetName, packetOf } from "./lib/results/trials.ts";
import { parsePrices, type Recipe, RECIPE_NOTES, RECIPES } from "./lib/results/cost.ts";
import { terminalProgress } from "./lib/progress.ts";
import { type CommandSpec, parse, type Parsed, runCli, wholeNumber } from "./lib/cli.ts";
import { exitCode, exitNotes, isWarning, STRICT_OPTION } from "./lib/results/severity.ts";
import { ensurePackages } from "./lib/packages.ts";
import { loadFactsReader } from "./lib/results/guard_facts_reader.ts";

const ROOT = import.meta.dirname ?? ".";

export { aggregateArms, aggregateArmsParallel };

/** The command line. */
export const CLI: CommandSpec = {
  name: "aggregate",
  summary: "pass@1, pass^k, pass@k with bootstrap CIs, cost, tool calls, walltime, guard statistics, run " +
    "integrity, paired tests against the control; CSV, JSON, Markdown and a Parquet summary in `results/`; " +
    "exit 1 on a guard-integrity failure or an unreadable trial, while a packet's own bookkeeping only warns " +
    "(exit 1 with `--strict`).",
  usage: [
    "deno task aggregate --arm NAME=DIR ... [--control NAME] [--compare A:B ...] [--protocol] [--pilot]",
    "deno task aggregate DIR... [options]",
  ],
  options: {
    arm: {
      type: "string",
      value: "NAME=DIR",
      multiple: true,
      description: "an arm and one of its trial roots (a repeated NAME adds a root)",
    },
    ledgers: {
      type: "string",
      value: "NAME=DIR",
      multiple: true,
      description: "replay ledgers (*.jsonl, written by replay --ledgers) for arm NAME",
    },
    control: { type: "string", value: "NAME", description: "the arm every other arm is compared against" },
    compare: {
      type: "string",
      value: "A:B",
      multiple: true,
      description: "also compare arm A against arm B; the overall McNemar p-values of all comparisons are " +
        "Holm-adjusted together",
    },
    pilot: {
      type: "boolean",
      description:
        `the protocol's pilot: ${PILOT.arm} against ${PILOT.control} on ${PILOT.domain}, and the ` +
        `go / no-go verdict (printed, in summary.md, and as one word in ${VERDICT_FILE})`,
    },
    protocol: {
      type: "boolean",
      description: `every pre-registered comparison among the arms given (${
        REGISTERED.map((r) => `${r.id} ${r.arm}:${r.control}`).join(", ")
      }), Holm across H1–H3 (docs/EVALUATION_PROTOCOL.md)`,
    },
    recipe: {
      type: "string",
      value: "A|B|C",
      default: "B",
      description: "cost/walltime recipe:\n" + RECIPES.map((r) => `${r}: ${RECIPE_NOTES[r]}`).join("\n"),
    },
    prices: {
      type: "string",
      value: "FILE",
      default: "data/prices.yaml",
      description: "chi-bench prices.yaml",
    },
    out: { type: "string", value: "DIR", defaultNote: "results/<arm names>/", description: "output dir" },
    "no-out": { type: "boolean", description: "write nothing; print the tables and comparisons only" },
    iters: { type: "string", value: "N", default: "1000", description: "bootstrap iterations" },
    seed: { type: "string", value: "N", default: "0", description: "bootstrap seed" },
    workers: {
      type: "string",
      value: "N",
      default: "1",
      description: "trajectory-reading Web Workers (1: this thread)",
    },
    "no-tool-calls": { type: "boolean", description: "skip trajectory reading" },
    strict: STRICT_OPTION,
  },
  args: [{ name: "DIR", description: "an arm named after the directory" }],
  notes: [
    "Every argument is checked before anything is written.",
    ...exitNotes(" (the outputs are written whatever the code but 2)"),
  ],
  example: "deno task aggregate --arm stock=runs/stock --arm plan=runs/plan --arm checklist=runs/checklist " +
    "--arm critic=runs/critic --protocol",
};

/** Parsed command line. */
export interface AggregateArgs {
  arms: ArmInput[];
  control?: string;
  /** --compare pairs and, with --protocol, the registered ones. */
  compare: (Pair & { family?: boolean })[];
  /** --pilot: the pilot comparison and its verdict. */
  pilot: boolean;
  recipe: Recipe;
  prices: string;
  out?: string;
  /** --no-out: write nothing. */
  noOut: boolean;
  iters: number;
  seed: number;
  toolCalls: boolean;
  workers?: number;
  /** Warnings fail the command too. */
  strict: boolean;
}

/** Parses the command line and checks every path; throws a CliError with the fix on bad input. */
export function parseArgs(args: string[]): AggregateArgs {
  return aggregateArgs(parse(CLI, args));
}

function aggregateArgs(p: Parsed): AggregateArgs {
  const arms: ArmInput[] = [];
  const arm = (name: string) => {
    let a = arms.find((x) => x.name === name);
    if (!a) arms.push(a = { name, roots: [], ledgerDirs: [] });
    return a;
  };
  const pair = (flag: string, value: string): [string, string] => {
    const at = value.indexOf("=");
    if (at <= 0 || at === value.length - 1) {
      throw p.error(
        `--${flag} ${JSON.stringify(value)} is not NAME=DIR. Use e.g. --${flag} stock=runs/stock.`,
      );
    }
    return [value.slice(0, at), value.slice(at + 1)];
  };
  const recipe = p.string("recipe")!.toUpperCase();
  if (!RECIPES.includes(recipe as Recipe)) {
    throw p.error(`--recipe "${p.string("recipe")}" is unknown. Use one of ${RECIPES.join(", ")}.`);
  }
  const iters = Math.max(1, wholeNumber(p, "iters")!);
  const seed = wholeNumber(p, "seed")!;
  const workers = p.given("workers") ? Math.max(1, wholeNumber(p, "workers")!) : undefined;
  // Arms in order: the --arm pairs, then the bare directories.
  for (const v of p.strings("arm")) {
    const [name, dir] = pair("arm", v);
    arm(name).roots.push(dir);
  }
  for (const dir of p.positionals) arm(basename(resolve(dir))).roots.push(dir);
  for (const v of p.strings("ledgers")) {
    const [name, dir] = pair("ledgers", v);
    arm(name).ledgerDirs!.push(dir);
  }
  if (!arms.length) {
    throw p.error("no arm given. Use --arm NAME=DIR (or a DIR per arm) (see --help).");
  }
  for (const a of arms) {
    if (!a.roots.length) {
      throw p.error(`arm "${a.name}" has --ledgers but no trials. Use --arm ${a.name}=DIR as well.`);
    }
    for (const dir of [...a.roots, ...a.ledgerDirs!]) {
      if (!existsSync(dir)) throw p.error(`${dir} (arm "${a.name}") does not exist. Use a trial root.`);
    }
    const empty = a.ledgerDirs!.find((dir) => !jsonlBelow(dir).length);
    if (empty) {
      throw p.error(
        `--ledgers ${a.name}=${empty} holds no ledger (*.jsonl): replay keeps them only when asked. ` +
          `Use deno task replay PATH --ledgers --out ${empty} first.`,
      );
    }
  }
  const names = arms.map((a) => a.name);
  const control = p.string("control");
  if (control !== undefined && !names.includes(control)) {
    throw p.error(`--control "${control}" is no arm. Use one of ${names.join(", ")}.`);
  }
  const compare: (Pair & { family?: boolean })[] = p.strings("compare").map((v) => {
    const [arm, control, ...rest] = v.split(":");
    if (!arm || !control || rest.length) {
      throw p.error(`--compare ${JSON.stringify(v)} is not A:B. Use e.g. --compare critic:checklist.`);
    }
    for (const a of [arm, control]) {
      if (!names.includes(a)) {
        throw p.error(`--compare ${v}: "${a}" is no arm. Use one of ${names.join(", ")}.`);
      }
    }
    return { arm, control };
  });
  const pilot = p.flag("pilot");
  if (pilot) {
    const absent = [PILOT.arm, PILOT.control].filter((a) => !names.includes(a));
    if (absent.length) {
      throw p.error(
        `--pilot needs arms ${PILOT.control} and ${PILOT.arm}; ${absent.join(" and ")} ${
          absent.length > 1 ? "are" : "is"
        } missing. Use --arm ${absent[0]}=DIR.`,
      );
    }
  }
  if (p.flag("protocol")) {
    const { pairs } = registeredAmong(names);
    if (!pairs.length) {
      throw p.error(
        `--protocol found no registered comparison among arms ${names.join(", ")}. Name the arms ` +
          `${[...new Set(REGISTERED.flatMap((r) => [r.arm, r.control]))].join(", ")} with --arm.`,
      );
    }
    compare.push(...pairs);
  }
  const prices = p.given("prices") ? p.string("prices")! : join(ROOT, "data", "prices.yaml");
  if (!existsSync(prices)) throw p.error(`--prices ${prices} does not exist. Use a prices.yaml file.`);
  const out = p.string("out");
  if (p.flag("no-out") && out !== undefined) {
    throw p.error("--no-out writes nothing, so --out means nothing with it. Drop one of them.");
  }
  if (out !== undefined && existsSync(out) && !statSync(out).isDirectory()) {
    throw p.error(`--out ${out} is a file. Use a directory.`);
  }
  return {
    arms,
    control,
    compare,
    pilot,
    recipe: recipe as Recipe,
    prices,
    out,
    noOut: p.flag("no-out"),
    iters,
    seed,
    toolCalls: !p.flag("no-tool-calls"),
    workers,
    strict: p.flag("strict"),
  };
}

/** Writes results.csv, comparisons.csv, aggregate.json, summary.md (and the pilot's verdict) into `dir`. */
export function writeOutputs(dir: string, result: AggregateResult): string[] {
  mkdirSync(dir, { recursive: true });
  const files = [
    [join(dir, "results.csv"), toCsv(result)],
    [join(dir, "comparisons.csv"), comparisonsCsv(result)],
    [join(dir, "aggregate.json"), JSON.stringify(result, null, 2) + "\n"],
    [join(dir, "summary.md"), toMarkdown(result)],
  ];
  if (result.pilot) files.push([join(dir, VERDICT_FILE), `${result.pilot.verdict}\n`]);
  for (const [path, text] of files) writeFileSync(path, text);
  return files.map(([path]) => path);
}

/** Collects aggregate's trials as trials.parquet rows and their guard ledgers (and --ledgers files). */
export class ColumnarCollector {
  readonly trials: TrialColumns[] = [];
  readonly ledgers: LedgerSource[] = [];

  constructor(private recipe: Recipe) {}

  /** The `onTrial` callback for aggregateArms. */
  add = (t: TrialRead): void => {
    const packet = packetName(packetOf(t.summary.ref, t.arm.roots));
    this.trials.push(trialColumns(t.summary, {
      packet,
      arm: t.arm.name,
      toolCalls: t.toolCalls,
      cost: t.cost,
      recipe: this.recipe,
    }));
    for (const path of t.summary.ref.ledgers) {
      this.ledgers.push({ path, packet, trial: t.summary.ref.name, arm: t.arm.name });
    }
  };

  /** Writes the summary into `dir`, the --ledgers dirs' files included (their trial named by the file). */
  write(dir: string, arms: readonly ArmInput[], load?: DuckLoader): Promise<ColumnarOutcome> {
    for (const arm of arms) {
      for (const ledgerDir of arm.ledgerDirs ?? []) {
        for (const path of jsonlBelow(ledgerDir)) {
          this.ledgers.push({
            path,
            packet: basename(resolve(path, "..")),
            trial: basename(path, ".jsonl"),
            arm: arm.name,
          });
        }
      }
    }
    return writeColumnar(dir, this.trials, this.ledgers, { load });
  }
}

/** Entry: returns the exit code (0 no failure, 1 a guard-integrity failure or unreadable trial, 2 bad usage). */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => run(aggregateArgs(p)));
}

async function run(parsed: AggregateArgs): Promise<number> {
  await loadFactsReader();
  let result: AggregateResult;
  const columnar = new ColumnarCollector(parsed.recipe);
  try {
    const prices = await parsePrices(readFileSync(parsed.prices, "utf8"));
    result = await aggregateArmsParallel(parsed.arms, {
      recipe: parsed.recipe,
      prices,
      control: parsed.control,
      compare: parsed.compare,
      pilot: parsed.pilot,
      iters: parsed.iters,
      seed: parsed.seed,
      toolCalls: parsed.toolCalls,
      workers: parsed.workers,
      onTrial: columnar.add,
      onProgress: terminalProgress("aggregate", parsed.toolCalls ? "trajectories" : "trials"),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    console.error(
      e.code === "ENOENT"
        ? `Cannot read prices ${parsed.prices}: it is missing. Pass --prices FILE.`
        : e.message,
    );
    return 2;
  }
  for (const line of terminalLines(result)) console.log(line);
  if (result.pilot) console.log(`\nPilot verdict: ${result.pilot.verdict}. ${result.pilot.reason}`);
  if (!parsed.noOut) {
    const dir = parsed.out ?? join("results", parsed.arms.map((a) => a.name).join("-vs-").slice(0, 100));
    console.log("");
    for (const path of writeOutputs(dir, result)) console.log(path);
    console.log(columnarLine(await columnar.write(dir, parsed.arms)));
  }
  for (const p of result.problems) {
    console.error(`${isWarning(p) ? `warning (${p.kind}): ` : ""}[${p.arm}] ${p.message}`);
  }
  if (result.unpriced_models.length) {
    console.error(
      `Unpriced models: ${result.unpriced_models.join(", ")}` +
        (result.recipe === "A"
          ? " (counted at $0, as chi-bench does)."
          : " (cost unknown; add them to the prices file)."),
    );
  }
  return exitCode(result.problems, parsed.strict);
}

if (import.meta.main) {
  await ensurePackages(import.meta.url);
  Deno.exit(await main(Deno.args));
}
