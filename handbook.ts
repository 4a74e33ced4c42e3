/**
 * The handbook command for people: search the Managed-Care Operations Handbook the way the plan arm does,
 * or prebuild the index cache the guard loads beside its ledger.
 *
 *   deno task handbook search "<query>" --dir DIR [--limit 10] [--json]
 *   deno task handbook build --dir DIR --ledger LEDGER_DIR
 */
import { join } from "node:path";
import process from "node:process";
import { CACHE_NAME, HANDBOOK_DIR, openHandbook, searchHandbook } from "./lib/guard/handbook.ts";

const USAGE = 'Usage: handbook.ts search "<query>" --dir DIR [--limit 10] [--json]\n' +
  "       handbook.ts build --dir DIR --ledger LEDGER_DIR";

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

function positional(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--json") continue;
    if (args[i].startsWith("--")) i++;
    else out.push(args[i]);
  }
  return out;
}

/** Entry: `search` prints ranked pages; `build` writes the cache the guard loads. Returns the exit code. */
export function main(args: string[]): number {
  const [command, ...rest] = args;
  const dir = flag(rest, "--dir") ?? process.env.FIABLE_HANDBOOK_DIR ?? HANDBOOK_DIR;
  if (command !== "search" && command !== "build") {
    process.stderr.write(
      `Cannot run handbook: the command "${command ?? ""}" is unknown. Use search or build.\n${USAGE}\n`,
    );
    return 2;
  }
  if (command === "build") {
    const ledger = flag(rest, "--ledger");
    if (!ledger) {
      process.stderr.write(
        `Cannot build the handbook cache: --ledger is missing. Pass the guard's ledger dir.\n${USAGE}\n`,
      );
      return 2;
    }
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
  const query = positional(rest).join(" ").trim();
  if (!query) {
    process.stderr.write(
      `Cannot search the handbook: the query is empty. Quote it: search "sleeve gastrectomy".\n`,
    );
    return 2;
  }
  const limit = Number(flag(rest, "--limit") ?? 10);
  if (!Number.isInteger(limit) || limit < 1) {
    process.stderr.write(
      `Cannot search the handbook: --limit "${flag(rest, "--limit")}" is not a whole number >= 1.\n`,
    );
    return 2;
  }
  const opened = openHandbook({ dir, budgetMs: 600_000 });
  if (!opened.index) {
    process.stderr.write(`${opened.note}\n`);
    return 1;
  }
  const hits = searchHandbook(opened.index, query, { limit });
  if (rest.includes("--json")) {
    console.log(JSON.stringify(hits, null, 2));
    return 0;
  }
  if (!hits.length) console.log(`No page matches "${query}" in ${opened.pages} pages.`);
  hits.forEach((h, i) => console.log(`${i + 1}. ${h.path}  ${h.score}\n   ${h.title} (${h.why})`));
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
