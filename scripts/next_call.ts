/**
 * Grades the block reasons in guard ledgers (a trial's `agent/fiable/`, or a replay's `--ledgers` output) by
 * how complete the next call they name is (lib/trajectories/next_call.ts, the grading replay prints): per
 * protector and per folder of ledgers (a replay's `<arm>/<packet>/`), complete / partial / none. It reads
 * what the model was told, so ledgers written by any version of the guard are graded the same way — which is
 * how the figures before issue 37 were taken (a replay of the commit before it, `--ledgers`).
 *
 *   deno run -A scripts/next_call.ts DIR... [--json]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { ledgerFileName, parseLedger } from "../lib/guard/ledger/ledger.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import {
  addCounts,
  completeShares,
  countGrade,
  gradeRecord,
  type NextCallCounts,
  nextCallCounts,
} from "../lib/trajectories/next_call.ts";
import { type CommandSpec, type Parsed, runCli } from "../lib/cli.ts";

/** The command line. */
export const CLI: CommandSpec = {
  name: "next_call",
  summary:
    "Grades the block reasons in guard ledgers (live or replayed) by how complete the next call they " +
    "name is: per protector and folder, complete / partial / none.",
  usage: ["deno run -A scripts/next_call.ts DIR... [--json]"],
  options: { json: { type: "boolean", description: "print the counts as JSON" } },
  args: [{ name: "DIR", description: "folders holding ledgers (*.jsonl), searched below" }],
  example: "deno run -A scripts/next_call.ts results/replay/replay/critic",
};

/** Every ledger file below a path (checkpoint files and the like are not `.jsonl`). */
function ledgers(path: string, out: string[] = []): string[] {
  if (statSync(path).isFile()) return path.endsWith(".jsonl") ? [...out, path] : out;
  for (const name of readdirSync(path).sort()) {
    const full = join(path, name);
    if (statSync(full).isDirectory()) ledgers(full, out);
    else if (name.endsWith(".jsonl")) out.push(full);
  }
  return out;
}

/**
 * Ledger files of trials a replay found not observable (the agent reached the simulator outside MCP), from the
 * replay's summary.json above the ledgers: replay counts them in no figure, and neither does this.
 */
function unobservable(root: string): Set<string> {
  for (const dir of [root, dirname(root), dirname(dirname(root))]) {
    try {
      const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as {
        trials?: { name: string; observable?: boolean }[];
      };
      return new Set(
        (summary.trials ?? []).filter((t) => t.observable === false).map((t) => ledgerFileName(t.name)),
      );
    } catch {
      // No replay summary here: every ledger counts.
    }
  }
  return new Set();
}

/** Folder (its root's name, then the path below it) → protector → counts, over every block in the ledgers. */
export function gradeLedgers(roots: readonly string[]): Map<string, Record<string, NextCallCounts>> {
  const out = new Map<string, Record<string, NextCallCounts>>();
  for (const root of roots) {
    const skip = unobservable(root);
    for (const file of ledgers(root)) {
      if (skip.has(basename(file))) continue;
      const folder = join(basename(root), relative(root, dirname(file)));
      const row = out.get(folder) ?? {};
      out.set(folder, row);
      const bySession = new Map<string, LedgerRecord[]>();
      for (const record of parseLedger(readFileSync(file, "utf8")).records) {
        const before = bySession.get(record.session) ?? [];
        bySession.set(record.session, before);
        for (const [id, graded] of gradeRecord(record, before)) {
          countGrade(row[id] ??= nextCallCounts(), graded);
        }
        before.push(record);
      }
    }
  }
  return out;
}

function run(p: Parsed): number {
  if (!p.positionals.length) throw p.error("no folder given. Use scripts/next_call.ts DIR... (see --help).");
  const graded = gradeLedgers(p.positionals);
  if (p.flag("json")) {
    console.log(JSON.stringify(Object.fromEntries(graded), null, 1));
    return 0;
  }
  const all = nextCallCounts();
  for (const [folder, row] of graded) {
    const total = nextCallCounts();
    const lines = Object.entries(row).sort(([a], [b]) => a.localeCompare(b)).map(([id, n]) => {
      addCounts(total, n);
      return `  ${id}: ${n.complete}/${n.partial}/${n.none} (${n.unheld} unheld)`;
    });
    addCounts(all, total);
    console.log([`${folder}: ${line(total)}`, ...lines].join("\n"));
  }
  console.log(`all: ${line(all)}`);
  return 0;
}

function line(n: NextCallCounts): string {
  const share = completeShares(n);
  const pct = (x: number | null) => x === null ? "·" : `${Math.round(100 * x)}%`;
  return `${n.complete} complete, ${n.partial} partial (${n.unheld} where the evidence held no such id), ` +
    `${n.none} none: ${pct(share.all)} complete, ${pct(share.held)} where the evidence held the ids`;
}

/** Entry: returns the exit status. */
export function main(args: string[]): number {
  return runCli(CLI, args, run);
}

if (import.meta.main) Deno.exit(main(Deno.args));
