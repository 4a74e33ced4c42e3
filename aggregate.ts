/**
 * Aggregate χ-Bench trial roots into per-arm figures: `deno task aggregate --arm stock=DIR --arm guarded=DIR
 * --control stock [--recipe A|B|C] [--prices FILE] [--out results/<name>/]`. Writes results.csv,
 * aggregate.json, summary.md and the Parquet summary (trials.parquet, decisions.parquet); exits 1 when an input problem was found (the outputs are still written).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
  aggregateArms,
  aggregateArmsParallel,
  type AggregateResult,
  type ArmInput,
  jsonlBelow,
  type TrialRead,
} from "./lib/results/aggregate.ts";
import { toCsv, toMarkdown } from "./lib/results/aggregate_report.ts";
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

export { aggregateArms, aggregateArmsParallel };

const USAGE = `Usage: deno task aggregate [--arm NAME=DIR]... [DIR]... [options]
  --arm NAME=DIR      an arm and one of its trial roots (repeat; a repeated NAME adds a root)
  DIR                 an arm named after the directory
  --ledgers NAME=DIR  replay ledgers (*.jsonl) for arm NAME
  --control NAME      the arm every other arm is compared against
  --recipe A|B|C      cost/walltime recipe; default B
${RECIPES.map((r) => `                        ${r}: ${RECIPE_NOTES[r]}`).join("\n")}
  --prices FILE       chi-bench prices.yaml; default data/prices.yaml
  --out DIR           output dir; default results/<arm names>/
  --iters N --seed N  bootstrap iterations (1000) and seed (0)
  --workers N         trajectory-reading Web Workers (default 1: this thread)
  --no-tool-calls     skip trajectory reading`;

/** Parsed command line. */
export interface AggregateArgs {
  arms: ArmInput[];
  control?: string;
  recipe: Recipe;
  prices: string;
  out?: string;
  iters: number;
  seed: number;
  toolCalls: boolean;
  workers?: number;
  help: boolean;
}

function pair(flag: string, value: string | undefined): [string, string] {
  const at = value?.indexOf("=") ?? -1;
  if (!value || at <= 0 || at === value.length - 1) {
    throw new Error(
      `Cannot read ${flag} ${
        JSON.stringify(value ?? "")
      }: expected NAME=DIR. Example: ${flag} stock=runs/stock.`,
    );
  }
  return [value.slice(0, at), value.slice(at + 1)];
}

function int(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(`Cannot read ${flag} ${JSON.stringify(value ?? "")}: expected a whole number.`);
  }
  return n;
}

/** Parses the command line; throws with the fix on bad input. */
export function parseArgs(args: string[]): AggregateArgs {
  const out: AggregateArgs = {
    arms: [],
    recipe: "B",
    prices: join(import.meta.dirname ?? ".", "data", "prices.yaml"),
    iters: 1000,
    seed: 0,
    toolCalls: true,
    help: false,
  };
  const arm = (name: string) => {
    let a = out.arms.find((x) => x.name === name);
    if (!a) out.arms.push(a = { name, roots: [], ledgerDirs: [] });
    return a;
  };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = () => {
      if (i + 1 >= args.length) throw new Error(`Cannot read ${flag}: it needs a value. Run with --help.`);
      return args[++i];
    };
    if (flag === "--help" || flag === "-h") out.help = true;
    else if (flag === "--arm") {
      const [name, dir] = pair(flag, value());
      arm(name).roots.push(dir);
    } else if (flag === "--ledgers") {
      const [name, dir] = pair(flag, value());
      arm(name).ledgerDirs!.push(dir);
    } else if (flag === "--control") out.control = value();
    else if (flag === "--recipe") {
      const r = value().toUpperCase();
      if (!RECIPES.includes(r as Recipe)) {
        throw new Error(
          `Cannot use --recipe ${JSON.stringify(r)}: it is unknown. Use one of ${RECIPES.join(", ")}.`,
        );
      }
      out.recipe = r as Recipe;
    } else if (flag === "--prices") out.prices = value();
    else if (flag === "--out") out.out = value();
    else if (flag === "--iters") out.iters = Math.max(1, int(flag, value()));
    else if (flag === "--seed") out.seed = int(flag, value());
    else if (flag === "--no-tool-calls") out.toolCalls = false;
    else if (flag === "--workers") out.workers = Math.max(1, int(flag, value()));
    else if (flag.startsWith("-")) {
      throw new Error(`Cannot use option ${flag}: it is unknown. Run with --help.`);
    } else arm(basename(resolve(flag))).roots.push(flag);
  }
  for (const a of out.arms) {
    if (!a.roots.length && a.ledgerDirs!.length) {
      throw new Error(
        `Cannot aggregate arm "${a.name}": it has --ledgers but no trials. Add --arm ${a.name}=DIR.`,
      );
    }
  }
  return out;
}

function progressBar(): ((done: number, total: number, what: string) => void) | undefined {
  if (!Deno.stderr.isTerminal()) return undefined;
  const enc = new TextEncoder();
  return (done, total, what) => {
    const width = 30, filled = Math.round(width * done / Math.max(1, total));
    const line = `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${what}`;
    Deno.stderr.writeSync(enc.encode(line + (done === total ? "\n" : "")));
  };
}

/** Writes results.csv, aggregate.json and summary.md into `dir`. */
export function writeOutputs(dir: string, result: AggregateResult): string[] {
  mkdirSync(dir, { recursive: true });
  const files = [
    [join(dir, "results.csv"), toCsv(result)],
    [join(dir, "aggregate.json"), JSON.stringify(result, null, 2) + "\n"],
    [join(dir, "summary.md"), toMarkdown(result)],
  ];
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

/** Entry: returns the exit code (0 clean, 1 input problems found, 2 bad usage). */
export async function main(args: string[]): Promise<number> {
  let parsed: AggregateArgs;
  try {
    parsed = parseArgs(args);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  if (parsed.help || !parsed.arms.length) {
    console.error(USAGE);
    return parsed.help ? 0 : 2;
  }
  let result: AggregateResult;
  const columnar = new ColumnarCollector(parsed.recipe);
  try {
    const prices = await parsePrices(readFileSync(parsed.prices, "utf8"));
    const bar = progressBar();
    result = await aggregateArmsParallel(parsed.arms, {
      recipe: parsed.recipe,
      prices,
      control: parsed.control,
      iters: parsed.iters,
      seed: parsed.seed,
      toolCalls: parsed.toolCalls,
      workers: parsed.workers,
      onTrial: columnar.add,
      onProgress: bar && ((done, total) => bar(done, total, parsed.toolCalls ? "trajectories" : "trials")),
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
  const dir = parsed.out ?? join("results", parsed.arms.map((a) => a.name).join("-vs-").slice(0, 100));
  for (const path of writeOutputs(dir, result)) console.log(path);
  console.log(columnarLine(await columnar.write(dir, parsed.arms)));
  for (const p of result.problems) console.error(`[${p.arm}] ${p.message}`);
  if (result.unpriced_models.length) {
    console.error(
      `Unpriced models: ${result.unpriced_models.join(", ")}` +
        (result.recipe === "A"
          ? " (counted at $0, as chi-bench does)."
          : " (cost unknown; add them to the prices file)."),
    );
  }
  return result.problems.length ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
