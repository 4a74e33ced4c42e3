/**
 * Proves the guard ran in every trial: `deno task verify DIR... [--json] [--trials] [--prices FILE]`.
 * DIR is any trial tree (a trial, a chi-bench job or trials dir, a packet); trials are grouped by the arm
 * they ran. Prints one line per problem and a summary table; exits 1 when a guarded arm has a trial without
 * a ledger or below full coverage, a stock arm has hooks, or any input is bad; 2 on bad usage.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePrices, type Prices } from "./lib/results/cost.ts";
import { renderVerify, verified, verifyTrees } from "./lib/results/verify.ts";

const USAGE = `Usage: deno task verify DIR... [--json] [--trials] [--prices FILE]
  DIR             trial dirs, chi-bench job or trials dirs, packets (ledgers at <trial>/agent/fiable/)
  --json          the full report as JSON on stdout
  --trials        also one row per trial
  --prices FILE   prices.yaml for packet cost checks; default data/prices.yaml`;

/** Parsed command line. */
export interface VerifyArgs {
  roots: string[];
  json: boolean;
  trials: boolean;
  prices: string;
  help: boolean;
}

/** Parses the command line; throws with the fix on bad input. */
export function parseArgs(args: string[]): VerifyArgs {
  const out: VerifyArgs = {
    roots: [],
    json: false,
    trials: false,
    prices: join(import.meta.dirname ?? ".", "data", "prices.yaml"),
    help: false,
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--help" || a === "-h") out.help = true;
    else if (a === "--json") out.json = true;
    else if (a === "--trials") out.trials = true;
    else if (a === "--prices") {
      if (i + 1 >= args.length) throw new Error("Cannot read --prices: it needs a value. Run with --help.");
      out.prices = args[++i];
    } else if (a.startsWith("-")) throw new Error(`Cannot use option ${a}: it is unknown. Run with --help.`);
    else out.roots.push(a);
  }
  return out;
}

/** Entry: returns the exit code (0 verified, 1 a problem found, 2 bad usage). */
export async function main(args: string[]): Promise<number> {
  let parsed: VerifyArgs;
  try {
    parsed = parseArgs(args);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  if (parsed.help || !parsed.roots.length) {
    console.error(USAGE);
    return parsed.help ? 0 : 2;
  }
  let prices: Prices;
  try {
    prices = await parsePrices(readFileSync(parsed.prices, "utf8"));
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
    console.error(
      missing
        ? `Cannot read prices ${parsed.prices}: it is missing. Pass --prices FILE.`
        : (err as Error).message,
    );
    return 2;
  }
  const report = verifyTrees(parsed.roots, { prices });
  if (parsed.json) console.log(JSON.stringify(report, null, 2));
  else for (const line of renderVerify(report, { trials: parsed.trials })) console.log(line);
  return verified(report) ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
