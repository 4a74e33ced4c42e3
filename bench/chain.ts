/**
 * What the ledger's chain (issue 40: lib/guard/ledger/chain.ts) costs a hook, in process, as medians of
 * interleaved runs: one record appended chained (the tail read, the HMAC) against the same line appended plain;
 * the bench's 500-record ledger read whole and checked (every record's HMAC) against the same records unchained
 * (a ledger from before the chain, read as it was); and a command-mode load from a checkpoint and a 32-record
 * tail, chained against unchained. The hook path's figure is `bench/latency.ts`; this one isolates the chain.
 *
 * Usage: deno run -A bench/chain.ts [--runs 200]
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchLedger } from "./latency.ts";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";
import { appendRecord, ledgerFileName, ledgerText, readLedger } from "../lib/guard/ledger/ledger.ts";
import { chainKey } from "../lib/guard/ledger/chain.ts";
import { loadEvidence, writeCheckpoint } from "../lib/guard/ledger/checkpoint.ts";
import { foldsToNothing } from "../lib/guard/engine/evidence.ts";
import { trialKey } from "../lib/guard/resident/key.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench chain",
  summary: "What the ledger's chain costs: append, whole read, checkpoint and tail; chained against plain.",
  usage: ["deno run -A bench/chain.ts [--runs N]"],
  options: { runs: numberOption(200, "interleaved runs of each") },
  args: [],
  example: "deno run -A bench/chain.ts --runs 200",
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Medians (ms) of each case, run in turn `runs` times. */
function interleaved(runs: number, cases: Record<string, () => void>): Record<string, number> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, run] of Object.entries(cases)) {
      const t = performance.now();
      run();
      times[name].push(performance.now() - t);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

/** A ledger dir holding the records, chained under a trial key, or plain (format 1, no key). */
function ledgerDir(records: readonly LedgerRecord[], chained: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "fiable-bench-chain-"));
  const file = join(dir, ledgerFileName(records[0].session));
  if (chained) writeFileSync(file, ledgerText(records, chainKey(trialKey(dir))));
  else writeFileSync(file, records.map((r) => JSON.stringify(r) + "\n").join(""));
  return dir;
}

function measure(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const records = benchLedger();
  const session = records[0].session;
  const dirs: string[] = [];
  const made = (d: string) => (dirs.push(d), d);
  try {
    // Appends: a fresh 500-record ledger each, so the file does not grow across the series.
    const appendChained = made(ledgerDir(records, true));
    const appendPlain = made(ledgerDir(records, false));
    const one = records[records.length - 2];
    const appends = interleaved(runs, {
      chained: () => void appendRecord(appendChained, one),
      plain: () => appendFileSync(join(appendPlain, ledgerFileName(session)), JSON.stringify(one) + "\n"),
    });
    const readChained = made(ledgerDir(records, true));
    const readPlain = made(ledgerDir(records, false));
    const reads = interleaved(Math.max(10, runs / 10), {
      chained: () => void readLedger(readChained, session, { skip: foldsToNothing }),
      plain: () => void readLedger(readPlain, session, { skip: foldsToNothing }),
    });
    // A checkpoint of the first 468 records and a tail of 32: what a command-mode hook folds at worst.
    const tails: Record<string, () => void> = {};
    for (const chained of [true, false]) {
      const dir = made(ledgerDir(records.slice(0, 468), chained));
      const loaded = loadEvidence(dir, session);
      writeCheckpoint(dir, session, { ...loaded, bytes: loaded.bytes! });
      const file = join(dir, ledgerFileName(session));
      if (chained) { for (const r of records.slice(468)) appendRecord(dir, r); }
      else appendFileSync(file, records.slice(468).map((r) => JSON.stringify(r) + "\n").join(""));
      tails[chained ? "chained" : "plain"] = () => {
        if (!loadEvidence(dir, session).from) throw new Error("the checkpoint was not used");
      };
    }
    const resumed = interleaved(Math.max(10, runs / 10), tails);
    const row = (label: string, m: Record<string, number>) =>
      `  ${label.padEnd(46)} ${m.chained.toFixed(3)} ms chained, ${m.plain.toFixed(3)} ms plain, +${
        (m.chained - m.plain).toFixed(3)
      } ms`;
    console.log(`the ledger's chain, medians of interleaved runs (${runs} appends)`);
    console.log(row("one record appended", appends));
    console.log(row(`${records.length}-record ledger read whole`, reads));
    console.log(row("checkpoint + 32-record tail (command mode)", resumed));
    return Promise.resolve(0);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** Entry. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, measure);
}

if (import.meta.main) Deno.exit(await main(Deno.args));
