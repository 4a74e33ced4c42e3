/**
 * Ledger files as the dashboard reads them: tailed from the last byte read in bounded slices (a 200 MB ledger
 * never sits in memory, and indexing it never blocks a request for long), folded per session into counts,
 * with a byte checkpoint every PAGE_LINES lines so any page of records can be read back without a full scan.
 * Records are grouped by their `session` field, never by file name.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { parseLedger } from "../../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../../lib/guard/engine/record.ts";

/** Lines per ledger page (and per byte checkpoint). */
export const PAGE_LINES = 500;
/** The most bytes one slice of tailing reads. */
export const SLICE_BYTES = 2 << 20;
/** Ledgers up to this size (all of a trial's files together) are read whole and merged into the transcript. */
export const SMALL_LEDGER_BYTES = 8 << 20;

/** The closure gate's pseudo rule ID in rule statistics. */
export const GATE = "STOP-GATE";

/** One recent guard decision worth showing as it happens: a deny, a stop block, a release. */
export interface BlockEvent {
  t: string;
  session: string;
  arm: string | null;
  event: string;
  decision: string;
  tool: string | null;
  rules: string[];
  reason: string;
}

/** Ledger counts folded from one session's records. */
export interface LedgerStats {
  records: number;
  toolCalls: number;
  denies: number;
  stopBlocks: number;
  /** denies + stop blocks. */
  blocks: number;
  shadows: number;
  releases: number;
  errors: number;
  gaps: number;
  restarts: number;
  /** Rules that denied, released or blocked (and the gate as STOP-GATE). */
  enforced: string[];
  /** Rules recorded as would-be blocks only (shadow decisions). */
  shadowed: string[];
  /** enforced ∪ shadowed, sorted. */
  rules: string[];
  seat: string | null;
  arm: string | null;
  session: string | null;
  /** True when the records were written by replay (computed, never enforced). */
  replay: boolean;
  /** Obligations open at the last stop the gate did not allow. */
  closure: string[];
  first: string | null;
  last: string | null;
  /** The last ending recorded, and when: the agent's stop, or an API error (StopFailure); absent: none yet. */
  ending?: { kind: "stop" | "api_error"; t: string };
}

const ENFORCED = new Set(["deny", "block", "release"]);

function text(value: unknown, max = 500): string {
  return typeof value === "string" ? value.slice(0, max) : "";
}

/** An incremental fold of one session's records into counts, search text and recent blocks; keeps no record. */
export class StatsFold {
  private enforced = new Set<string>();
  private shadowed = new Set<string>();
  private words = new Set<string>();
  private wordsSize = 0;
  private recent: BlockEvent[] = [];
  private s: LedgerStats = {
    records: 0,
    toolCalls: 0,
    denies: 0,
    stopBlocks: 0,
    blocks: 0,
    shadows: 0,
    releases: 0,
    errors: 0,
    gaps: 0,
    restarts: 0,
    enforced: [],
    shadowed: [],
    rules: [],
    seat: null,
    arm: null,
    session: null,
    replay: false,
    closure: [],
    first: null,
    last: null,
  };
  private pre = 0;
  private post = 0;
  private decided = new Map<string, number>();

  /** Folds one record in; unknown events and decisions are counted as records and otherwise ignored. */
  add(r: LedgerRecord): void {
    const s = this.s;
    s.records++;
    s.arm ??= typeof r.arm === "string" ? r.arm : null;
    s.session ??= typeof r.session === "string" ? r.session : null;
    if (typeof r.seat === "string") s.seat = r.seat;
    if (r.replay === true) s.replay = true;
    if (typeof r.t === "string") {
      s.first ??= r.t;
      if (!s.last || r.t > s.last) s.last = r.t;
    }
    const event = String(r.event), decision = String(r.decision);
    this.decided.set(decision, (this.decided.get(decision) ?? 0) + 1);
    if (event === "pre") this.pre++;
    if (event === "post" || event === "post-fail") this.post++;
    if (decision === "deny") s.denies++;
    if (decision === "block") s.stopBlocks++;
    if (decision === "shadow") s.shadows++;
    if (decision === "release") s.releases++;
    if (decision === "error") s.errors++;
    if (event === "guard" && decision === "gap") s.gaps++;
    if (event === "guard" && decision === "restart") s.restarts++;
    const ended = event === "stop-fail"
      ? "api_error"
      : event === "stop" && r.note !== "subagent stop"
      ? "stop"
      : null;
    if (ended && typeof r.t === "string" && (!s.ending || r.t >= s.ending.t)) {
      s.ending = { kind: ended, t: r.t };
    }
    const hits = Array.isArray(r.rules) ? r.rules : [];
    const ids = hits.map((h) => h && typeof h.id === "string" ? h.id : "").filter(Boolean);
    if (event === "stop" && decision !== "allow" && (ENFORCED.has(decision) || decision === "shadow")) {
      ids.push(GATE);
      s.closure = Array.isArray(r.obligations) ? r.obligations.map(String) : [];
    }
    if (ENFORCED.has(decision)) { for (const id of ids) this.enforced.add(id); }
    else if (decision === "shadow") { for (const id of ids) this.shadowed.add(id); }
    if (ENFORCED.has(decision) && !s.replay) {
      this.recent.push({
        t: text(r.t, 40),
        session: text(r.session, 200),
        arm: typeof r.arm === "string" ? r.arm : null,
        event,
        decision,
        tool: typeof r.tool === "string" ? r.tool : null,
        rules: ids,
        reason: text(r.reason, 400) || text(hits[0]?.message, 400) || text(r.note, 400),
      });
      if (this.recent.length > 5) this.recent.shift();
    }
    for (
      const piece of [
        r.tool,
        r.case,
        r.reason,
        ...(r.obligations ?? []),
        ...hits.map((h) => h?.message),
      ]
    ) {
      if (typeof piece !== "string" || !piece || this.wordsSize > 4000 || this.words.has(piece)) continue;
      this.words.add(piece.slice(0, 500));
      this.wordsSize += Math.min(piece.length, 500);
    }
  }

  /** The counts so far. */
  stats(): LedgerStats {
    const enforced = [...this.enforced].sort();
    const shadowed = [...this.shadowed].sort();
    return {
      ...this.s,
      toolCalls: this.pre || this.post,
      blocks: this.s.denies + this.s.stopBlocks,
      enforced,
      shadowed,
      rules: [...new Set([...enforced, ...shadowed])].sort(),
    };
  }

  /** Records by decision (allow, deny, shadow, record…), as folded so far. */
  decisions(): ReadonlyMap<string, number> {
    return this.decided;
  }

  /** Tools, cases, block reasons and obligations seen, for search (capped). */
  searchText(): string {
    return [...this.words].join(" ");
  }

  /** The last few enforced decisions (never replay ones). */
  blocks(): readonly BlockEvent[] {
    return this.recent;
  }
}

/** Folds records per session: the stats of each. */
export function ledgerStats(records: readonly LedgerRecord[]): LedgerStats {
  const fold = new StatsFold();
  for (const r of records) fold.add(r);
  return fold.stats();
}

function readAt(fd: number, buf: Uint8Array, position: number): number {
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, position + got);
    if (n <= 0) break;
    got += n;
  }
  return got;
}

/** A record with its 0-based line number in the file. */
export interface NumberedRecord {
  line: number;
  record: LedgerRecord;
}

/**
 * One ledger file, read incrementally: `refresh(budget)` reads at most `budget` new bytes, folds whole lines
 * into their session's StatsFold and notes a byte checkpoint every PAGE_LINES lines. A file that shrank is
 * read again from the start.
 */
export class LedgerTail {
  /** Folds by session. */
  sessions = new Map<string, StatsFold>();
  /** Complete lines read so far (blank and corrupt ones included). */
  lines = 0;
  corrupt = 0;
  mtime = 0;
  /** File size at the last stat. */
  size = 0;
  /** Bytes of whole lines folded. */
  offset = 0;
  /** True once any record says it came from replay. */
  replay = false;
  /** Bumped when new records were folded. */
  version = 0;
  private checkpoints: number[] = [0];
  private pending = new Uint8Array(0);

  constructor(readonly path: string) {}

  /** True while bytes on disk have not been folded yet. */
  get behind(): boolean {
    return this.offset + this.pending.length < this.size;
  }

  /** Share of the file folded so far (1 when done). */
  get progress(): number {
    return this.size ? Math.min(1, this.offset / this.size) : 1;
  }

  /** Stats the file and folds up to `budget` new bytes; returns the bytes read. */
  refresh(budget = SLICE_BYTES): number {
    let st;
    try {
      st = statSync(this.path);
    } catch {
      return 0;
    }
    if (st.size < this.offset + this.pending.length) this.reset();
    this.size = st.size;
    this.mtime = st.mtimeMs;
    const start = this.offset + this.pending.length;
    const want = Math.min(budget, st.size - start);
    if (want <= 0) return 0;
    const fd = openSync(this.path, "r");
    let got: number;
    let buf: Uint8Array;
    try {
      buf = new Uint8Array(this.pending.length + want);
      buf.set(this.pending);
      got = readAt(fd, buf.subarray(this.pending.length), start);
    } finally {
      closeSync(fd);
    }
    const data = buf.subarray(0, this.pending.length + got);
    const cut = data.lastIndexOf(0x0a);
    if (cut < 0) {
      this.pending = data.slice();
      return got;
    }
    for (let i = data.indexOf(0x0a); i >= 0 && i <= cut; i = data.indexOf(0x0a, i + 1)) {
      this.lines++;
      if (this.lines % PAGE_LINES === 0) this.checkpoints.push(this.offset + i + 1);
    }
    const parsed = parseLedger(new TextDecoder().decode(data.subarray(0, cut)));
    for (const r of parsed.records) {
      const session = String(r.session ?? "");
      let fold = this.sessions.get(session);
      if (!fold) this.sessions.set(session, fold = new StatsFold());
      fold.add(r);
      if (r.replay === true) this.replay = true;
    }
    this.corrupt += parsed.corrupt;
    this.offset += cut + 1;
    this.pending = data.slice(cut + 1);
    if (parsed.records.length) this.version++;
    return got;
  }

  private reset(): void {
    this.sessions = new Map();
    this.lines = 0;
    this.corrupt = 0;
    this.offset = 0;
    this.replay = false;
    this.checkpoints = [0];
    this.pending = new Uint8Array(0);
    this.version++;
  }

  /** Every whole record folded so far (read from disk; only for files up to SMALL_LEDGER_BYTES). */
  records(): LedgerRecord[] {
    return this.page(0, Number.MAX_SAFE_INTEGER).map((n) => n.record);
  }

  /** Records on lines [from, from + count), read from the nearest checkpoint, never past the folded bytes. */
  page(from: number, count: number): NumberedRecord[] {
    const out: NumberedRecord[] = [];
    if (from >= this.lines || count <= 0) return out;
    const c = Math.min(Math.floor(from / PAGE_LINES), this.checkpoints.length - 1);
    let position = this.checkpoints[c];
    let line = c * PAGE_LINES;
    const fd = openSync(this.path, "r");
    try {
      let carry = new Uint8Array(0);
      while (position < this.offset && line < from + count) {
        const size = Math.min(1 << 20, this.offset - position);
        const buf = new Uint8Array(carry.length + size);
        buf.set(carry);
        const got = readAt(fd, buf.subarray(carry.length), position);
        if (got <= 0) break;
        position += got;
        const data = buf.subarray(0, carry.length + got);
        let begin = 0;
        for (let i = data.indexOf(0x0a); i >= 0 && line < from + count; i = data.indexOf(0x0a, i + 1)) {
          if (line >= from) {
            const parsed = parseLedger(new TextDecoder().decode(data.subarray(begin, i)));
            if (parsed.records[0]) out.push({ line, record: parsed.records[0] });
          }
          line++;
          begin = i + 1;
        }
        carry = data.slice(begin);
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }
}
