/**
 * Checkpoints of a session's folded evidence, so a guard does not re-read and re-fold a long ledger for every
 * hook process (command mode) or every session that comes back (the resident guard; issue 20).
 *
 * A checkpoint is two files beside the ledger. `<ledger>.fold.json` holds the evidence without the calls'
 * texts, the ledger bytes it was folded from (whole lines from byte 0) and the first and last bytes of that
 * span; `<ledger>.fold-<id>.txt` holds the texts, read whole the first time a rule reads one. A reader uses a
 * checkpoint only when the ledger still starts and, at that offset, reads as recorded, then folds the lines
 * appended since; anything else (no checkpoint, another version, a ledger replaced or cut, an unreadable file)
 * is a full read. So `loadEvidence` gives what `foldLedger(readLedger(…))` gives, without the re-read, and the
 * ledger stays the state: deleting every checkpoint loses nothing. Over `LEDGER_READ.max` bytes, a full read
 * keeps only the ledger's head and tail, while a checkpoint written from the whole fold keeps all of it.
 */
import { type CallRecord, emptyEvidence, type Evidence, foldRecord, foldsToNothing } from "./evidence.ts";
import { host, joinPath } from "./host.ts";
import {
  LEDGER_READ,
  ledgerFileName,
  type LedgerRecord,
  legacyFileName,
  parseLedger,
  readLedger,
} from "./ledger.ts";
import type { Phase, Seat } from "./seat.ts";

/**
 * The checkpoint format and fold semantics. Bump it whenever `foldRecord` or `Evidence` changes: an older
 * checkpoint is then ignored (tests/checkpoint.ts fails on a change to the fold's sources until it is bumped).
 */
export const FOLD_VERSION = 1;

/** Records folded from the ledger since the last checkpoint before command mode writes a new one. */
export const CHECKPOINT_EVERY = 32;

/** Bytes of the ledger's start, and of the span's end, a checkpoint records and a reader compares. */
const EDGE_BYTES = 128;

/** Largest checkpoint header read (a larger one is ignored). */
const MAX_HEADER = 64 * 1024 * 1024;

/** A call as the header holds it: its text is `t` (code-unit offsets into the texts file). */
interface StoredCall {
  id: string;
  tool: string;
  input: Record<string, unknown>;
  ok: boolean;
  t: [number, number];
  /** The call's `result` is its text parsed (the fold kept an object result). */
  r?: 1;
  /** The call's `result` when it is neither its text parsed nor absent (an error beside an object). */
  o?: unknown;
  e?: string;
  sc?: 1;
  ids?: string[];
}

/** The header file. */
interface Header {
  v: typeof FOLD_VERSION;
  session: string;
  /** Ledger bytes folded: whole lines from byte 0. */
  bytes: number;
  /** Records folded (the resident store counts what it holds). */
  records: number;
  /** The ledger's first bytes and the bytes ending at `bytes`, decoded. */
  head: string;
  last: string;
  /** The texts file, and the one before it (kept so a reader of the previous header still finds its texts). */
  texts: string;
  previous?: string;
  ev: {
    prompt: string;
    seat: Seat | null;
    phase: Phase | null;
    caseLock: string | null;
    stopBlocks: number;
    degraded: boolean;
    seen: string[];
    owners: [string, string][];
    denies: [string, number][];
    index?: {
      promptIds: string[];
      promptSeat: Seat | null;
      toolSeat: Seat | null;
      written: string[];
      returned: string[];
      grounded: string[];
    };
  };
  calls: StoredCall[];
}

/** A session's evidence as loaded, and what a later checkpoint of it needs. */
export interface LoadedEvidence {
  ev: Evidence;
  /** Records folded (a checkpoint's count plus the lines folded after it). */
  records: number;
  /** Ledger bytes the evidence is exactly the fold of, or null when that is not known (no checkpoint then). */
  bytes: number | null;
  /** Records folded from the ledger itself this time (all of them without a checkpoint). */
  folded: number;
  /** The checkpoint used, if any (its texts file name, for the next checkpoint's `previous`). */
  from?: { texts: string };
}

const base = (session: string) => ledgerFileName(session).replace(/\.jsonl$/, "");
/** The header file's name for a session. */
export const checkpointName = (session: string) => `${base(session)}.fold.json`;

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** The records of a session in JSONL text, as `readLedger` keeps them (its own, allowed pres left unparsed). */
function sessionRecords(text: string, session: string): LedgerRecord[] {
  return parseLedger(text, foldsToNothing).records.filter((r) => r.session === session);
}

/**
 * The session's evidence: from its checkpoint and the lines appended since when the checkpoint is good, else
 * from the whole ledger. Fails like `readLedger` when the ledger is unreadable.
 */
export function loadEvidence(dir: string, session: string, useCheckpoint = true): LoadedEvidence {
  const name = ledgerFileName(session);
  const file = joinPath(dir, name);
  if (useCheckpoint && legacyFileName(session) === name) {
    try {
      const resumed = resume(dir, file, session);
      if (resumed) return resumed;
    } catch {
      // An unreadable or inconsistent checkpoint is a full read, never a failure.
    }
  }
  return fullRead(dir, file, session);
}

function fullRead(dir: string, file: string, session: string): LoadedEvidence {
  if (legacyFileName(session) !== ledgerFileName(session)) {
    const { records } = readLedger(dir, session, foldsToNothing);
    return { ev: fold(records), records: records.length, bytes: null, folded: records.length };
  }
  let size: number;
  try {
    size = host.fileSize(file);
  } catch (err) {
    // No ledger yet: a session with nothing folded, its 0 bytes known. Other errors fail as readLedger does.
    if ((err as { code?: string }).code !== "ENOENT") throw err;
    return { ev: emptyEvidence(), records: 0, bytes: 0, folded: 0 };
  }
  if (size > LEDGER_READ.max) {
    // Read in part (head and tail, a degraded marker between): a checkpoint of it keeps it so, and is
    // possible when nothing was appended while reading and the ledger ends on a whole line.
    const { records } = readLedger(dir, session, foldsToNothing);
    const whole = host.fileSize(file) === size && decode(host.readBytes(file, size - 1, 1)) === "\n";
    return { ev: fold(records), records: records.length, bytes: whole ? size : null, folded: records.length };
  }
  const text = host.readText(file);
  // The bytes folded are known when nothing was appended while reading and the text ends on a whole line.
  const bytes = host.fileSize(file) === size && (text === "" || text.endsWith("\n")) ? size : null;
  const records = sessionRecords(text, session);
  return { ev: fold(records), records: records.length, bytes, folded: records.length };
}

function fold(records: readonly LedgerRecord[], ev = emptyEvidence()): Evidence {
  for (const r of records) foldRecord(ev, r);
  return ev;
}

function resume(dir: string, file: string, session: string): LoadedEvidence | null {
  const headerPath = joinPath(dir, checkpointName(session));
  let headerSize: number;
  try {
    headerSize = host.fileSize(headerPath);
  } catch {
    return null;
  }
  if (headerSize > MAX_HEADER) return null;
  const header = JSON.parse(host.readText(headerPath)) as Header;
  if (header?.v !== FOLD_VERSION || header.session !== session || !Number.isSafeInteger(header.bytes)) {
    return null;
  }
  const size = host.fileSize(file);
  if (size < header.bytes || size - header.bytes > LEDGER_READ.max) return null;
  const headLength = Math.min(EDGE_BYTES, header.bytes);
  if (decode(host.readBytes(file, 0, headLength)) !== header.head) return null;
  const lastLength = Math.min(EDGE_BYTES, header.bytes);
  const span = host.readBytes(file, header.bytes - lastLength, size - header.bytes + lastLength);
  if (decode(span.subarray(0, lastLength)) !== header.last) return null;
  const textsPath = joinPath(dir, header.texts);
  host.fileSize(textsPath);
  const ev = restore(header, textsPath);
  const tail = span.subarray(lastLength);
  const whole = tail.lastIndexOf(10) + 1;
  const records = sessionRecords(decode(tail.subarray(0, whole)), session);
  fold(records, ev);
  return {
    ev,
    records: header.records + records.length,
    bytes: header.bytes + whole,
    folded: records.length,
    from: { texts: header.texts },
  };
}

/** The evidence a header holds, each call's text read from the texts file when a rule first reads one. */
function restore(header: Header, textsPath: string): Evidence {
  let texts: string | undefined;
  const textAt = (t: [number, number]) => (texts ??= host.readText(textsPath)).slice(t[0], t[1]);
  const calls = header.calls.map((c): CallRecord => {
    let text: string | undefined;
    return {
      id: c.id,
      tool: c.tool,
      input: c.input,
      ok: c.ok,
      get result() {
        return c.r ? JSON.parse(this.text) : c.o;
      },
      ...(c.r ? { parsedText: true as const } : {}),
      get text() {
        return (text ??= textAt(c.t));
      },
      error: c.e,
      sidechain: Boolean(c.sc),
      ...(c.ids ? { ids: c.ids } : {}),
    };
  });
  const e = header.ev;
  return {
    prompt: e.prompt,
    seat: e.seat,
    phase: e.phase,
    calls,
    seen: new Set(e.seen),
    owners: new Map(e.owners),
    caseLock: e.caseLock,
    denies: new Map(e.denies),
    stopBlocks: e.stopBlocks,
    degraded: e.degraded,
    ...(e.index
      ? {
        index: {
          promptIds: new Set(e.index.promptIds),
          promptSeat: e.index.promptSeat,
          toolSeat: e.index.toolSeat,
          written: new Set(e.index.written),
          returned: new Set(e.index.returned),
          grounded: new Set(e.index.grounded),
        },
      }
      : {}),
  };
}

/**
 * Writes the checkpoint of `ev`, the fold of the ledger's first `bytes` bytes: the texts file, then the
 * header (each replaced whole), then removes the texts file two checkpoints old; returns the new texts file's
 * name. Throws what the file system throws; the caller ignores it (a checkpoint is only ever a shortcut).
 */
export function writeCheckpoint(
  dir: string,
  session: string,
  loaded: { ev: Evidence; records: number; bytes: number; from?: { texts: string } },
): { texts: string } {
  const file = joinPath(dir, ledgerFileName(session));
  const { ev, bytes } = loaded;
  const edge = Math.min(EDGE_BYTES, bytes);
  const parts: string[] = [];
  let at = 0;
  const calls = ev.calls.map((c): StoredCall => {
    const text = c.text;
    const t: [number, number] = [at, at + text.length];
    parts.push(text);
    at += text.length;
    return {
      id: c.id,
      tool: c.tool,
      input: c.input,
      ok: c.ok,
      t,
      ...(c.parsedText ? { r: 1 as const } : c.result !== undefined ? { o: c.result } : {}),
      ...(c.error !== undefined ? { e: c.error } : {}),
      ...(c.sidechain ? { sc: 1 as const } : {}),
      ...(c.ids ? { ids: c.ids } : {}),
    };
  });
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const texts = `${base(session)}.fold-${id}.txt`;
  const header: Header = {
    v: FOLD_VERSION,
    session,
    bytes,
    records: loaded.records,
    head: decode(host.readBytes(file, 0, edge)),
    last: decode(host.readBytes(file, bytes - edge, edge)),
    texts,
    ...(loaded.from ? { previous: loaded.from.texts } : {}),
    ev: {
      prompt: ev.prompt,
      seat: ev.seat,
      phase: ev.phase,
      caseLock: ev.caseLock,
      stopBlocks: ev.stopBlocks,
      degraded: ev.degraded,
      seen: [...ev.seen],
      owners: [...ev.owners],
      denies: [...ev.denies],
      ...(ev.index
        ? {
          index: {
            promptIds: [...ev.index.promptIds],
            promptSeat: ev.index.promptSeat,
            toolSeat: ev.index.toolSeat,
            written: [...ev.index.written],
            returned: [...ev.index.returned],
            grounded: [...ev.index.grounded],
          },
        }
        : {}),
    },
    calls,
  };
  host.writeWhole(joinPath(dir, texts), parts.join(""));
  let older: string | undefined;
  try {
    older = (JSON.parse(host.readText(joinPath(dir, checkpointName(session)))) as Header).previous;
  } catch {
    older = undefined;
  }
  host.writeWhole(joinPath(dir, checkpointName(session)), JSON.stringify(header));
  if (
    older && older !== texts && older !== loaded.from?.texts && older.startsWith(`${base(session)}.fold-`)
  ) {
    try {
      host.removeFile(joinPath(dir, older));
    } catch {
      // Already gone (another writer removed it): nothing to do.
    }
  }
  return { texts };
}
