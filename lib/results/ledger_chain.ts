/**
 * A trial's ledger file as run integrity reads it (issue 40): its records, and what its chain says of each line
 * (lib/guard/ledger/chain.ts), under the trial's key when its `guard.key` is there. Only the records the chain
 * trusts are returned, so a forged `pre` never counts as coverage and a forged deny never as a block; the lines
 * it does not trust are counted by kind with the first line number, for `verify` to name. A ledger from before
 * the chain (format 1 only) is read as it was.
 */
import { ChainCheck, type LineKind } from "../guard/ledger/chain.ts";
import { recordOfLine } from "../guard/ledger/ledger.ts";
import type { LedgerRecord } from "../guard/engine/record.ts";

/** Lines of a kind the chain does not trust: how many, and the first one's number (from 1). */
export interface Breaks {
  lines: number;
  first: number;
}

/** What a ledger file's chain says. */
export interface ChainReport {
  /** It holds chained lines (ledger format 2). */
  chained: boolean;
  /** Checked under the trial's key (its `guard.key`); false: under none, which proves order, not authorship. */
  keyed: boolean;
  /** The lines not trusted, by kind (`forged` includes format-1 records in a chained file). */
  breaks: Partial<Record<Exclude<LineKind, "linked" | "legacy">, Breaks>>;
}

/** A ledger file read: the records the chain trusts, lines that were no record, and the chain's report. */
export interface ChainedLedger {
  records: LedgerRecord[];
  corrupt: number;
  chain: ChainReport;
}

/**
 * Reads a ledger file's text against its chain under `key` (`chainKey` of the trial key, else `UNKEYED`).
 * `keyed` says which it was, for the report.
 */
export function readChainedLedger(text: string, key: string, keyed: boolean): ChainedLedger {
  const check = new ChainCheck(key);
  const records: LedgerRecord[] = [];
  const legacy: [number, LedgerRecord][] = [];
  const breaks: ChainReport["breaks"] = {};
  const note = (kind: keyof ChainReport["breaks"], line: number) => {
    const b = breaks[kind] ??= { lines: 0, first: line };
    b.lines++;
    b.first = Math.min(b.first, line);
  };
  let corrupt = 0;
  const junk: number[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  lines.forEach((line, i) => {
    const record = recordOfLine(line);
    const kind = check.line(line, { record: record !== null });
    if (!record) {
      if (line.trim()) corrupt++;
      junk.push(i + 1);
    } else if (kind === "linked") records.push(record);
    else if (kind === "legacy") legacy.push([i + 1, record]);
    else note(kind, i + 1);
  });
  // A ledger from before the chain: its records as they are (its lines that are no record: `corrupt`).
  if (!check.chained) {
    return { records: legacy.map(([, r]) => r), corrupt, chain: { chained: false, keyed, breaks } };
  }
  for (const [line] of legacy) note("forged", line);
  for (const line of junk) note("junk", line);
  return { records, corrupt, chain: { chained: true, keyed, breaks } };
}

const WHAT: Record<keyof ChainReport["breaks"], [string, string]> = {
  forged: ["forged", "not sealed with the trial's key: edited, or written by another hand"],
  unlinked: [
    "unlinked",
    "the lines before it are not the ones its writer found: deleted, cut, moved or copied",
  ],
  duplicate: ["repeated", "a copy of a line just before it"],
  junk: ["junk", "no record"],
};

/** The breaks in words: `2 lines forged (first: line 12, not sealed …), 1 junk line (line 41, no record)`. */
export function describeBreaks(breaks: ChainReport["breaks"]): string {
  return (Object.keys(WHAT) as (keyof ChainReport["breaks"])[]).filter((k) => breaks[k]).map((k) => {
    const { lines, first } = breaks[k]!;
    const [word, why] = WHAT[k];
    return `${lines} line${lines > 1 ? "s" : ""} ${word} (${
      lines > 1 ? "first: " : ""
    }line ${first}, ${why})`;
  }).join(", ");
}

/** Untrusted lines in a report. */
export function brokenLines(report: ChainReport): number {
  return Object.values(report.breaks).reduce((n, b) => n + (b?.lines ?? 0), 0);
}
