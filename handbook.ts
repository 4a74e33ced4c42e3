/**
 * The handbook command for people: search the Managed-Care Operations Handbook the way the plan arm does,
 * or prebuild the index cache the guard loads beside its ledger.
 *
 *   deno task handbook search "<query>" [--dir DIR] [--limit 10] [--json]
 *   deno task handbook build [--dir DIR] --ledger LEDGER_DIR
 */
import { join } from "node:path";
import process from "node:process";
import { CACHE_NAME, HANDBOOK_DIR, openHandbook, searchHandbook } from "./lib/guard/handbook.ts";
import { CliError, type CommandSpec, type Parsed, runCli, wholeNumber } from "./lib/cli.ts";

/** The command line without a subcommand (its help lists both). */
export const CLI: CommandSpec = {
  name: "handbook",
  summary: "Searches the Managed-Care Operations Handbook index the plan arm uses, or prebuilds its cache.",
  usage: ['deno task handbook search "<query>" --dir DIR', "deno task handbook build --dir DIR --ledger DIR"],
  options: {},
  commands: [
    { name: "search", description: "ranked pages for a query (deno task handbook search --help)" },
    { name: "build", description: "write the index cache the guard loads (deno task handbook build --help)" },
  ],
  example: 'deno task handbook search "sleeve gastrectomy" --dir handbook/',
};

const DIR_OPTION = {
  type: "string",
  value: "DIR",
  defaultNote: `env FIABLE_HANDBOOK_DIR, else ${HANDBOOK_DIR}`,
  description: "the handbook folder",
} as const;

/** `handbook search`. */
export const SEARCH_CLI: CommandSpec = {
  name: "handbook search",
  summary: "Prints the handbook pages that best match a query, ranked as the plan arm ranks them.",
  usage: ['deno task handbook search "<query>" [--dir DIR] [--limit 10] [--json]'],
  options: {
    dir: DIR_OPTION,
    limit: { type: "string", value: "N", default: "10", description: "at most this many pages" },
    json: { type: "boolean", description: "the hits as JSON" },
  },
  args: [{ name: "query", description: "the words to search for (quote them)" }],
  example: 'deno task handbook search "peer-to-peer appeals" --dir handbook/ --limit 3',
};

/** `handbook build`. */
export const BUILD_CLI: CommandSpec = {
  name: "handbook build",
  summary: "Builds the handbook index cache the guard loads beside its ledger.",
  usage: ["deno task handbook build [--dir DIR] --ledger DIR"],
  options: {
    dir: DIR_OPTION,
    ledger: { type: "string", value: "DIR", description: "the guard's ledger dir (required)" },
  },
  args: "none",
  example: "deno task handbook build --dir handbook/ --ledger .fiable/ledger",
};

const IO = { err: (t: string) => void process.stderr.write(`${t}\n`) };

function build(p: Parsed): number {
  const dir = p.string("dir") ?? process.env.FIABLE_HANDBOOK_DIR ?? HANDBOOK_DIR;
  const ledger = p.string("ledger");
  if (!ledger) throw p.error("--ledger is missing. Use --ledger DIR, the guard's ledger dir.");
  const opened = openHandbook({ dir, cacheFile: join(ledger, CACHE_NAME), budgetMs: 600_000 });
  if (!opened.index) {
    process.stderr.write(`${opened.note}\n`);
    return 1;
  }
  console.log(
    `${opened.pages} pages indexed in ${opened.ms} ms (${opened.note}); cache ${join(ledger, CACHE_NAME)}`,
  );
  return 0;
}

function search(p: Parsed): number {
  const dir = p.string("dir") ?? process.env.FIABLE_HANDBOOK_DIR ?? HANDBOOK_DIR;
  const query = p.positionals.join(" ").trim();
  if (!query) throw p.error('the query is empty. Quote it: search "sleeve gastrectomy".');
  const limit = wholeNumber(p, "limit", 1)!;
  const opened = openHandbook({ dir, budgetMs: 600_000 });
  if (!opened.index) {
    process.stderr.write(`${opened.note}\n`);
    return 1;
  }
  const hits = searchHandbook(opened.index, query, { limit });
  if (p.flag("json")) {
    console.log(JSON.stringify(hits, null, 2));
    return 0;
  }
  if (!hits.length) console.log(`No page matches "${query}" in ${opened.pages} pages.`);
  hits.forEach((h, i) => console.log(`${i + 1}. ${h.path}  ${h.score}\n   ${h.title} (${h.why})`));
  return 0;
}

/** Entry: `search` prints ranked pages; `build` writes the cache the guard loads. Returns the exit code. */
export function main(args: string[]): number {
  const [command, ...rest] = args;
  if (command === "search") return runCli(SEARCH_CLI, rest, search, IO);
  if (command === "build") return runCli(BUILD_CLI, rest, build, IO);
  return runCli(CLI, args, () => {
    throw new CliError(
      `Cannot run handbook: the command "${command ?? ""}" is unknown. Use search or build (see --help).`,
    );
  }, IO);
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
