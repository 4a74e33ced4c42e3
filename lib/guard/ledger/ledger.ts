/** The evidence ledger: one JSONL file per session, one record per hook event, append-only. */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import * as io from "../io.ts";
import type { Arm, LedgerRecord } from "../engine/record.ts";
import {
  ChainCheck,
  chainKeyOf,
  type ChainStart,
  GENESIS,
  hmacOf,
  LEDGER_VERSION,
  type LineKind,
  seal,
  TAIL_BYTES,
  tailLink,
  trusted,
} from "./chain.ts";

/** A session id used as a file name as it is: safe characters, not starting with a dot, at most 120. */
const PLAIN_SESSION = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,119}$/;

/** 64 bits of two 32-bit FNV-1a-style hashes of a string, as 16 hex digits (stable across runtimes). */
export function idHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/**
 * The file name for a session, collision-free: a safe id is its own name; any other id (`col/1`, `../x`,
 * empty, over 120 characters) is a safe prefix, `~` (never in a plain name) and a hash of the whole id.
 */
export function ledgerFileName(session: string): string {
  if (PLAIN_SESSION.test(session)) return `${session}.jsonl`;
  const prefix = session.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60) || "session";
  return `${prefix}~${idHash(session)}.jsonl`;
}

/** The file name versions before 2026-12 used (ids with unsafe characters collided): still read. */
export function legacyFileName(session: string): string {
  return `${session.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120) || "session"}.jsonl`;
}

/** What an append did: the bytes it wrote, the file's size before, the link it chained to and its own. */
export interface Appended {
  bytes: number;
  size: number;
  p: string;
  c: string;
}

/**
 * Appends one record as one line with a single write (O_APPEND), so concurrent hook processes never interleave,
 * chained to the line it finds last (lib/guard/ledger/chain.ts) and in the ledger format of this guard. Never
 * through a symbolic link, and never onto a half line a failed write left (`io.appendAfter`).
 */
export function appendRecord(dir: string, record: LedgerRecord): Appended {
  // Created `rw-r--r--` under Deno as under Node (Deno's default create mode ignores the umask).
  io.makeDir(dir);
  const key = chainKeyOf(dir);
  let p = "", c = "";
  const { bytes, size } = io.appendAfter(
    io.joinPath(dir, ledgerFileName(record.session)),
    TAIL_BYTES,
    (end) => {
      p = tailLink(end);
      const sealed = recordLine(record, p, key);
      c = sealed.c;
      return sealed.line + "\n";
    },
  );
  return { bytes, size, p, c };
}

/** A record's line (no newline) in this guard's ledger format, chained after the link `p` under `key`. */
export function recordLine(record: LedgerRecord, p: string, key: string): { line: string; c: string } {
  // A record read back from a ledger keeps its old links out of the new line.
  return seal(JSON.stringify({ ...record, v: LEDGER_VERSION, p: undefined, c: undefined }), p, key);
}

/** Records as the text of a new ledger that a guard appended them to one after another (`appendRecord`). */
export function ledgerText(records: readonly LedgerRecord[], key: string): string {
  let p = GENESIS;
  let text = "";
  for (const record of records) {
    const { line, c } = recordLine(record, p, key);
    text += line + "\n";
    p = c;
  }
  return text;
}

/** The name of a file beside a session's ledger: the ledger's name with `suffix` for `.jsonl`. */
export function besideLedger(session: string, suffix: string): string {
  return ledgerFileName(session).replace(/\.jsonl$/, suffix);
}

/**
 * The file beside a session's ledger that says a record of it was lost (`markLost`): named with a tag keyed by
 * the trial's chain key, so a `.lost` file the agent plants (without the key) is not one.
 */
export function lostFileName(session: string, key: string): string {
  const tag = hmacOf(key).hex(`lost\n${session}`).slice(0, 16);
  return besideLedger(session, `.${tag}.lost`);
}

/**
 * Where a `.lost` mark goes when the ledger dir refuses it too (a read-only file system): a per-user folder
 * in the system's temp dir, the mark named for the ledger dir and the session, so an EROFS post never becomes
 * a later deny (issue 40).
 */
export function fallbackLostPath(dir: string, session: string): string {
  const uid = process.getuid?.() ?? "user";
  const key = createHash("sha256").update(resolve(dir)).digest("hex").slice(0, 16);
  return join(tmpdir(), `fiable-guard-${uid}`, `${key}-${lostFileName(session, chainKeyOf(dir))}`);
}

/**
 * Writes a record to the ledger, or to stderr when the ledger cannot be written; the bytes written, or null
 * when the record did not reach the ledger (the session's evidence is then marked degraded: `markLost`).
 */
export function saveRecord(dir: string, record: LedgerRecord): Appended | null {
  try {
    return appendRecord(dir, record);
  } catch (err) {
    io.writeErr(`fiable-guard: cannot write the ledger in ${dir}: ${(err as Error).message}\n`);
    io.writeErr(JSON.stringify(record) + "\n");
    markLost(dir, record, (err as Error).message);
    return null;
  }
}

/**
 * Leaves a trace that a record of the session did not reach its ledger, so every later read of the session is
 * degraded and rules that reason from absence do not block on what was lost: a `degraded` record in the ledger
 * or, when that cannot be written either, an empty `<ledger>.lost` file beside it (an empty file needs no data
 * block, so it is created on a full disk), else in the fallback folder (`fallbackLostPath`: a read-only ledger
 * dir). Nothing at all where even that is refused: the resident guard then keeps the mark in memory
 * (lib/guard/resident/sessions.ts). Never throws.
 */
export function markLost(dir: string, record: LedgerRecord, why: string): void {
  const what = `${record.event}${record.tool ? ` ${record.tool}` : ""}${
    record.tool_use_id ? ` (${record.tool_use_id})` : ""
  }`;
  const note = `the guard could not write its ${what} record to the ledger (${why.slice(0, 200)}); ` +
    "evidence degraded";
  try {
    appendRecord(dir, { ...degradedMarker(record.session, record.arm, note), t: new Date().toISOString() });
    return;
  } catch {
    // The ledger still cannot be written: the marker file instead.
  }
  try {
    io.createNew(io.joinPath(dir, lostFileName(record.session, chainKeyOf(dir))), "");
    return;
  } catch (err) {
    // Already marked, or nothing can be created here (read-only): the fallback folder then.
    if (io.codeOf(err) === "EEXIST") return;
  }
  try {
    const fallback = fallbackLostPath(dir, record.session);
    mkdirSync(dirname(fallback), { recursive: true, mode: 0o700 });
    io.createNew(fallback, "");
  } catch {
    // Marked already, or nowhere to write at all: the resident guard keeps the mark in memory.
  }
}

/** Parsed ledger lines and the count of lines that were truncated or not valid records. */
export interface ParsedLedger {
  records: LedgerRecord[];
  corrupt: number;
}

/**
 * Parses JSONL text; a truncated or corrupt line is skipped and counted, never fatal. `skip` names lines
 * the caller does not need, left unparsed (not counted as corrupt).
 */
export function parseLedger(text: string, skip?: (line: string) => boolean): ParsedLedger {
  const records: LedgerRecord[] = [];
  let corrupt = 0;
  for (const line of text.split("\n")) {
    if (!line.trim() || skip?.(line)) continue;
    const record = recordOfLine(line);
    if (record) records.push(record);
    else corrupt++;
  }
  return { records, corrupt };
}

/** One ledger line as a record: a JSON object with a string `event`; null for anything else. */
export function recordOfLine(line: string): LedgerRecord | null {
  try {
    const value = JSON.parse(line);
    return value && typeof value === "object" && typeof value.event === "string" ? value : null;
  } catch {
    return null;
  }
}

/** Largest ledger read whole; a larger one is read as its first `LEDGER_HEAD` and last `LEDGER_TAIL` bytes. */
export const LEDGER_READ = { max: 8 * 1024 * 1024, head: 1024 * 1024, tail: 7 * 1024 * 1024 };

/**
 * A file's text, or its head and tail (lines cut at either edge dropped) when it exceeds `max` bytes;
 * `bytes` is the file's size when what was read ends on a whole line and nothing was appended meanwhile. A
 * symbolic link is refused (`Host.readRange`).
 */
function readBounded(
  file: string,
  max: number,
): { head: string; tail: string; skipped: number; bytes: number | null } {
  const size = io.fileSize(file);
  const whole = (text: string) => (text === "" || text.endsWith("\n")) && io.fileSize(file) === size;
  if (size <= max) {
    const head = io.readRange(file, 0, size);
    return { head, tail: "", skipped: 0, bytes: whole(head) ? size : null };
  }
  const headText = io.readRange(file, 0, LEDGER_READ.head);
  const tailText = io.readRange(file, size - LEDGER_READ.tail, LEDGER_READ.tail);
  return {
    head: headText.slice(0, headText.lastIndexOf("\n") + 1),
    tail: tailText.slice(tailText.indexOf("\n") + 1),
    skipped: size - LEDGER_READ.head - LEDGER_READ.tail,
    bytes: whole(tailText) ? size : null,
  };
}

/** A file's bounded text; a missing file is empty (its 0 bytes known). */
function readIfAny(
  file: string,
  max: number,
): { head: string; tail: string; skipped: number; bytes: number | null } {
  try {
    return readBounded(file, max);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    return { head: "", tail: "", skipped: 0, bytes: 0 };
  }
}

/** A session's records in a file's text, its lines checked against the chain (`chainedRecords`). */
export interface ChainedRecords {
  /** The session's trusted chained records, in order. */
  records: LedgerRecord[];
  /** Its records of format 1, trusted only where the file turns out to have no chained line. */
  legacy: LedgerRecord[];
  /** Lines of the session (or of no session: junk) the chain does not trust, by kind. */
  untrusted: Partial<Record<LineKind, number>>;
  /** Lines that are not records, blank lines aside (a write cut short, or junk). */
  corrupt: number;
}

/**
 * A session's records in the text of a ledger file from where `check` stands (lib/guard/ledger/chain.ts): each
 * line is checked in order, and only the records the chain trusts are kept. Lines `skip` names are left
 * unparsed (an allowed `pre`, which folds to nothing: only its link counts, its key is not checked).
 */
export function chainedRecords(
  text: string,
  session: string,
  check: ChainCheck,
  skip?: (line: string) => boolean,
): ChainedRecords {
  const out: ChainedRecords = { records: [], legacy: [], untrusted: {}, corrupt: 0 };
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    if (skip?.(line)) {
      check.line(line, { record: true, mac: false });
      continue;
    }
    const record = recordOfLine(line);
    const kind = check.line(line, { record: record !== null });
    if (!record) {
      if (line.trim()) out.corrupt++;
      if (check.chained) out.untrusted.junk = (out.untrusted.junk ?? 0) + 1;
      continue;
    }
    if (record.session !== session) continue;
    if (kind === "legacy") out.legacy.push(record);
    else if (trusted(kind)) out.records.push(record);
    else out.untrusted[kind] = (out.untrusted[kind] ?? 0) + 1;
  }
  return out;
}

/** The count of untrusted lines. */
export function untrustedCount(untrusted: Partial<Record<LineKind, number>>): number {
  return Object.values(untrusted).reduce((n, k) => n + (k ?? 0), 0);
}

/** A session's ledger as read: its records, and the ledger bytes they are exactly the lines of. */
export interface ReadLedger extends ParsedLedger {
  /**
   * The ledger's size, when every record came from its whole lines from byte 0 to its end (a checkpoint can
   * then say where it stands); null when that is not known (an older file name also read, a line still being
   * written, an append while reading). A ledger read in part (over `LEDGER_READ.max`) still counts.
   */
  bytes: number | null;
  /** Lines the chain did not trust (never folded), by kind. */
  untrusted: Partial<Record<LineKind, number>>;
  /** Where the chain stands after the ledger's last line (for a checkpoint); null with two files. */
  chain: ChainStart | null;
}

/** True when a file is there (a missing file, or one that cannot be checked, is not). */
function exists(file: string): boolean {
  try {
    io.fileSize(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * The file names a session's records are read from: its own, and the name versions before 2026-12 gave it
 * when that differs and a file is there (ids with unsafe characters).
 */
export function sessionFiles(dir: string, session: string): string[] {
  const name = ledgerFileName(session);
  const legacy = legacyFileName(session);
  return legacy !== name && exists(io.joinPath(dir, legacy)) ? [legacy, name] : [name];
}

/**
 * Reads a session's ledger: its own records only (another session's file name may have collided in older
 * versions, which are still read), and of a chained ledger only the records its chain trusts
 * (lib/guard/ledger/chain.ts): a line edited, forged, copied or moved is never folded. Where evidence may be
 * missing, a `degraded` marker (in memory, never written) makes rules that reason from absence record instead of
 * block: a ledger over `LEDGER_READ.max` bytes is read in part (the marker stands where its middle was); a
 * record was lost (the session's keyed `.lost` mark, `markLost`); and, in a ledger from before the chain only, a
 * line that is not a record was skipped (a write cut short). In a chained ledger such a line is junk the guard
 * never wrote (its own lost writes leave a marker or a mark): it degrades nothing. `skip` as for
 * `chainedRecords`; `max` the largest ledger read whole (default `LEDGER_READ.max`; a resumed session is read
 * whole off the hook path).
 */
export function readLedger(
  dir: string,
  session: string,
  options: { skip?: (line: string) => boolean; max?: number } = {},
): ReadLedger {
  const { skip, max = LEDGER_READ.max } = options;
  const key = chainKeyOf(dir);
  const files = sessionFiles(dir, session);
  const records: LedgerRecord[] = [];
  const untrusted: Partial<Record<LineKind, number>> = {};
  let corrupt = 0;
  let bytes: number | null = null;
  let chain: ChainStart | null = null;
  for (const file of files) {
    const part = readIfAny(io.joinPath(dir, file), max);
    const check = new ChainCheck(key);
    const head = chainedRecords(part.head, session, check, skip);
    let gap: LedgerRecord | null = null;
    if (part.skipped) {
      check.gap();
      gap = degradedMarker(
        session,
        head.records[0]?.arm ?? head.legacy[0]?.arm ?? "shadow",
        `ledger over ${max} bytes: ${part.skipped} bytes in its middle were not read; evidence degraded`,
        "gap",
      );
    }
    const tail = chainedRecords(part.tail, session, check, skip);
    const [a, b] = check.chained ? [head.records, tail.records] : [head.legacy, tail.legacy];
    records.push(...a, ...gap ? [gap] : [], ...b);
    for (const parts of [head.untrusted, tail.untrusted]) {
      for (const [kind, n] of Object.entries(parts)) {
        untrusted[kind as LineKind] = (untrusted[kind as LineKind] ?? 0) + (n ?? 0);
      }
    }
    if (check.chained) {
      // Format-1 records in a chained file are forged; a line that is no record degrades nothing here.
      const legacy = head.legacy.length + tail.legacy.length;
      if (legacy) untrusted.forged = (untrusted.forged ?? 0) + legacy;
    } else corrupt += head.corrupt + tail.corrupt;
    bytes = files.length === 1 ? part.bytes : null;
    chain = files.length === 1 ? check.start() : null;
  }
  const arm = records[0]?.arm ?? "shadow";
  if (corrupt) records.push(degradedMarker(session, arm, corruptNote(corrupt)));
  if (isLost(dir, session)) records.push(degradedMarker(session, arm, LOST_NOTE));
  return { records, corrupt, bytes, untrusted, chain };
}

/** True when a record of the session was lost and only a `.lost` file says so (`markLost`). */
export function isLost(dir: string, session: string): boolean {
  const name = lostFileName(session, chainKeyOf(dir));
  return exists(io.joinPath(dir, name)) || exists(fallbackLostPath(dir, session));
}

/** The note of the marker for lines that were not records. */
export function corruptNote(lines: number): string {
  return `${lines} ledger line${
    lines > 1 ? "s" : ""
  } not a record (a write cut short?) skipped; evidence degraded`;
}

/** The note of the marker for a lost record. */
export const LOST_NOTE = "a record of this session could not be written to its ledger; evidence degraded";

/**
 * A record standing for evidence that may be missing (`degraded`): in memory for what a read skipped, or
 * written for a record that was lost. `decision` "gap" for a ledger read in part, else "error".
 */
export function degradedMarker(
  session: string,
  arm: Arm,
  note: string,
  decision: "gap" | "error" = "error",
): LedgerRecord {
  return { v: 1, t: "", session, event: "guard", arm, decision, degraded: true, note };
}
