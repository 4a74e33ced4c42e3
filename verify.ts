/**
 * Proves the guard ran in every trial: `deno task verify DIR... [--json] [--trials] [--prices FILE]`.
 * DIR is any trial tree (a trial, a chi-bench job or trials dir, a packet); trials are grouped by the arm
 * they ran. Prints one line per problem and a summary table; exits 1 when a guarded arm has a trial without
 * a ledger or below full coverage, a stock arm has hooks, or any input is bad; a packet's own bookkeeping
 * only warns (exit 0) unless --strict; 2 on bad usage.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CommandSpec, parse, type Parsed, runCli } from "./lib/cli.ts";
import { parsePrices, type Prices } from "./lib/results/cost.ts";
import { renderVerify, verified, verifyTrees } from "./lib/results/verify.ts";
import { exitNotes, STRICT_OPTION } from "./lib/results/severity.ts";
import { ensurePackages } from "./lib/packages.ts";
import { loadFactsReader } from "./lib/results/guard_facts_reader.ts";

const ROOT = import.meta.dirname ?? ".";

/** The command line. */
export const CLI: CommandSpec = {
  name: "verify",
  summary: "Proves the guard ran in every trial (ledger and its chain, guard coverage of the trajectory's " +
    "χ-World calls, plan, hook mode, fail-open errors, arm, tampering); one line per problem, exit 1 on a " +
    "guard-integrity failure (a ledger tampered with among them) or an unreadable trial, while a packet's own " +
    "bookkeeping only warns (exit 1 with `--strict`).",
  usage: ["deno task verify DIR... [--trials] [--json] [--prices FILE] [--strict]"],
  options: {
    json: { type: "boolean", description: "the full report as JSON on stdout" },
    trials: { type: "boolean", description: "also one row per trial" },
    prices: {
      type: "string",
      value: "FILE",
      default: "data/prices.yaml",
      description: "prices.yaml for packet cost checks",
    },
    strict: STRICT_OPTION,
  },
  args: [{
    name: "DIR",
    description: "trial dirs, chi-bench job or trials dirs, packets (ledgers at <trial>/agent/fiable/)",
  }],
  notes: exitNotes(" (the guard provably ran in every trial)"),
  example: "deno task verify jobs/2026-06-01__checklist",
};

/** Parsed command line. */
export interface VerifyArgs {
  roots: string[];
  json: boolean;
  trials: boolean;
  prices: string;
  strict: boolean;
}

/** Parses the command line; throws a CliError with the fix on bad input. */
export function parseArgs(args: string[]): VerifyArgs {
  return verifyArgs(parse(CLI, args));
}

function verifyArgs(p: Parsed): VerifyArgs {
  if (!p.positionals.length) throw p.error("no DIR given. Use deno task verify DIR... (see --help).");
  const missing = p.positionals.find((d) => !existsSync(d));
  if (missing) throw p.error(`${missing} does not exist. Pass a trial tree.`);
  return {
    roots: p.positionals,
    json: p.flag("json"),
    trials: p.flag("trials"),
    prices: p.given("prices") ? p.string("prices")! : join(ROOT, "data", "prices.yaml"),
    strict: p.flag("strict"),
  };
}

/** Entry: returns the exit code (0 verified, 1 a guard-integrity failure or unreadable trial, 2 bad usage). */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => run(verifyArgs(p)));
}

async function run(parsed: VerifyArgs): Promise<number> {
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
  await loadFactsReader();
  const report = verifyTrees(parsed.roots, { prices });
  if (parsed.json) console.log(JSON.stringify(report, null, 2));
  else for (const line of renderVerify(report, { trials: parsed.trials })) console.log(line);
  return verified(report, { strict: parsed.strict }) ? 0 : 1;
}

if (import.meta.main) {
  await ensurePackages(import.meta.url);
  Deno.exit(await main(Deno.args));
}
