/**
 * Where redaction markers sit in replay ledgers (`<out>/<arm>/<packet>/<trial>.jsonl`), per arm and packet:
 * deny reasons, rule messages, the case key, the call's arguments, the recorded ids, and anywhere in a
 * record. On packets that hold no credentials every figure should be 0: a marker there hid an id the model
 * or a rule needed.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { LedgerRecord } from "../guard/engine/record.ts";
import { walkTree } from "../walk.ts";

/** What a marker looks like: `[redacted]` and `[redacted: long token]`. */
const MARK = "[redacted";

/** One arm's ledgers of one packet: how many of each kind of field, and how many hold a marker. */
export interface RedactionMarks {
  arm: string;
  packet: string;
  records: number;
  /** Deny and stop-block records, and those whose reason holds a marker. */
  denies: number;
  deniesMarked: number;
  /** Rule and critic hits (enforced or shadow), and those whose message holds a marker. */
  messages: number;
  messagesMarked: number;
  /** Records whose case key, a string argument, or an extracted id holds a marker. */
  casesMarked: number;
  inputsMarked: number;
  idsMarked: number;
  /** Records with a marker anywhere, and the markers in all. */
  recordsMarked: number;
  markers: number;
}

/** A row with nothing counted yet, for one arm and packet. */
export function noMarks(arm: string, packet: string): RedactionMarks {
  return {
    arm,
    packet,
    records: 0,
    denies: 0,
    deniesMarked: 0,
    messages: 0,
    messagesMarked: 0,
    casesMarked: 0,
    inputsMarked: 0,
    idsMarked: 0,
    recordsMarked: 0,
    markers: 0,
  };
}

/** Every string inside a value (objects and arrays walked). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) { for (const v of value) strings(v, out); }
  else if (value && typeof value === "object") { for (const v of Object.values(value)) strings(v, out); }
  return out;
}

/** The marks in one ledger's records, added to `into`. */
export function countMarks(lines: readonly string[], into: RedactionMarks): RedactionMarks {
  for (const line of lines) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as LedgerRecord;
    into.records++;
    if (r.decision === "deny" || r.decision === "block") {
      into.denies++;
      if (r.reason?.includes(MARK)) into.deniesMarked++;
    }
    for (const hit of r.rules ?? []) {
      into.messages++;
      if (hit.message.includes(MARK)) into.messagesMarked++;
    }
    if (r.case?.includes(MARK)) into.casesMarked++;
    if (strings(r.input).some((s) => s.includes(MARK))) into.inputsMarked++;
    if ((r.ids ?? []).some((id) => id.toLowerCase().includes("redacted"))) into.idsMarked++;
    const n = line.split(MARK).length - 1;
    if (n) {
      into.recordsMarked++;
      into.markers += n;
    }
  }
  return into;
}

/** Every `.jsonl` file below a directory, at any depth. */
function ledgersUnder(dir: string): Generator<string> {
  return walkTree([dir], { depth: Infinity, file: (name) => name.endsWith(".jsonl") });
}

/** The marks in a replay's ledgers, one row per arm and packet. */
export function scanReplay(out: string): RedactionMarks[] {
  const rows: RedactionMarks[] = [];
  for (const arm of readdirSync(out).sort()) {
    if (!statSync(join(out, arm)).isDirectory()) continue;
    for (const packet of readdirSync(join(out, arm)).sort()) {
      if (!statSync(join(out, arm, packet)).isDirectory()) continue;
      const row = noMarks(arm, packet);
      for (const file of ledgersUnder(join(out, arm, packet))) {
        countMarks(readFileSync(file, "utf8").split("\n"), row);
      }
      rows.push(row);
    }
  }
  return rows;
}
