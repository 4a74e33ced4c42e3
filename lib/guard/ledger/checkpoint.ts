/**
 * Checkpoints of a session's folded evidence, so a guard does not re-read and re-fold a long ledger for every
 * hook process (command mode) or every session that comes back (the resident guard; issue 20).
 *
 * A checkpoint is two files beside the ledger: `<ledger>.fold.json`, the header, names the ledger bytes it was
 * folded from (whole lines from byte 0) with the first and last bytes of that span, and holds the evidence's
 * small part; `<ledger>.fold-<id>.bin` holds the rest (lib/guard/ledger/checkpoint_format.ts). A reader uses a
 * checkpoint only when the ledger still starts and, at that offset, reads as recorded, then folds the lines
 * appended since; anything else (no checkpoint, another version, a ledger replaced or cut, an unreadable file)
 * is a full read. So `loadEvidence` gives what `foldLedger(readLedger(…))` gives, without the re-read, and the
 * ledger stays the state: deleting every checkpoint loses nothing. Over `LEDGER_READ.max` bytes, a full read
 * keeps only the ledger's head and tail: a checkpoint written by a guard that held the whole fold keeps all of
 * it, and one made from such a read stays degraded as the read was.
 */
import { decodeEvidence, encodeEvidence, type EvidenceJson } from "./checkpoint_format.ts";
import { type Evidence, foldLedger, foldRecord, foldsToNothing } from "../engine/evidence.ts";
import { host, joinPath } from "../runtime/host.ts";
import {
  corruptNote,
  degradedMarker,
  isLost,
  LEDGER_READ,
  ledgerFileName,
  LOST_NOTE,
  readLedger,
  sessionFiles,
  sessionRecords,
} from "./ledger.ts";

/**
 * The checkpoint format and fold semantics. Bump it whenever `foldRecord` or `Evidence` changes: an older
 * checkpoint is then ignored (tests/checkpoint.ts fails on a change to the fold's sources until it is bumped).
 */
export const FOLD_VERSION = 5;

/** Records folded from the ledger since the last checkpoint before command mode writes a new one. */
export const CHECKPOINT_EVERY = 32;

/** Bytes of the ledger's start, and of the span's end, a checkpoint records and a reader compares. */
const EDGE_BYTES = 128;

/** Largest checkpoint header read (a larger one is ignored). */
const MAX_HEADER = 64 * 1024 * 1024;

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
  /** The data file, and the one before it (kept so a reader of the previous header still finds its data). */
  data: string;
  previous?: string;
  ev: EvidenceJson;
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
  /** The checkpoint used, if any: its data file and the one before it (for the next checkpoint). */
  from?: CheckpointFiles;
}

/** A checkpoint's data file, and the one it replaced (kept so a reader of the header before finds its data). */
export interface CheckpointFiles {
  data: string;
  previous?: string;
}

const base = (session: string) => ledgerFileName(session).replace(/\.jsonl$/, "");
/** The header file's name for a session. */
export const checkpointName = (session: string) => `${base(session)}.fold.json`;

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/**
 * The session's evidence: from its checkpoint and the lines appended since when the checkpoint is good, else
 * from the whole ledger. Fails like `readLedger` when the ledger is unreadable.
 */
export function loadEvidence(dir: string, session: string, useCheckpoint = true): LoadedEvidence {
  const file = joinPath(dir, ledgerFileName(session));
  if (useCheckpoint && sessionFiles(dir, session).length === 1) {
    try {
      const resumed = resume(dir, file, session);
      if (resumed) return resumed;
    } catch {
      // An unreadable or inconsistent checkpoint is a full read, never a failure.
    }
  }
  return fullRead(dir, session);
}

function fullRead(dir: string, session: string): LoadedEvidence {
  const { records, bytes } = readLedger(dir, session, foldsToNothing);
  return { ev: foldLedger(records), records: records.length, bytes, folded: records.length };
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
  const dataPath = joinPath(dir, header.data);
  if (!Array.isArray(header.ev?.regions)) return null;
  if (host.fileSize(dataPath) !== header.ev.regions.reduce((n, r) => n + r, 0)) return null;
  const ev = decodeEvidence(header.ev, (start, n) => host.readBytes(dataPath, start, n));
  const tail = span.subarray(lastLength);
  const whole = tail.lastIndexOf(10) + 1;
  const { records, corrupt } = sessionRecords(decode(tail.subarray(0, whole)), session, foldsToNothing);
  // A last line with no newline yet: being written by another process, or cut short. Read like a full read
  // reads it, and no checkpoint is made from this load.
  const rest = whole < tail.length ? sessionRecords(decode(tail.subarray(whole)), session) : null;
  if (rest) records.push(...rest.records);
  for (const r of records) foldRecord(ev, r);
  const arm = records[0]?.arm ?? "shadow";
  if (corrupt || rest?.corrupt) {
    foldRecord(ev, degradedMarker(session, arm, corruptNote(corrupt + (rest?.corrupt ?? 0))));
  }
  if (isLost(dir, session)) foldRecord(ev, degradedMarker(session, arm, LOST_NOTE));
  return {
    ev,
    records: header.records + records.length,
    bytes: rest ? null : header.bytes + whole,
    folded: records.length,
    from: { data: header.data, ...(header.previous ? { previous: header.previous } : {}) },
  };
}

/**
 * Writes the checkpoint of `ev`, the fold of the ledger's first `bytes` bytes: the data file, then the
 * header (each replaced whole), then removes the data file two checkpoints old; returns the new data file's
 * name. Throws what the file system throws; the caller ignores it (a checkpoint is only ever a shortcut).
 */
export function writeCheckpoint(
  dir: string,
  session: string,
  loaded: { ev: Evidence; records: number; bytes: number; from?: CheckpointFiles },
): CheckpointFiles {
  const file = joinPath(dir, ledgerFileName(session));
  const headerPath = joinPath(dir, checkpointName(session));
  const { bytes, from } = loaded;
  const edge = Math.min(EDGE_BYTES, bytes);
  const encoded = encodeEvidence(loaded.ev);
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const data = `${base(session)}.fold-${id}.bin`;
  const header: Header = {
    v: FOLD_VERSION,
    session,
    bytes,
    records: loaded.records,
    head: decode(host.readBytes(file, 0, edge)),
    last: decode(host.readBytes(file, bytes - edge, edge)),
    data,
    ...(from ? { previous: from.data } : {}),
    ev: encoded.json,
  };
  // No longer needed once this header is in place: the data two checkpoints old, as the checkpoint this
  // evidence came from names it (read from the header being replaced when it came from none). The data one
  // checkpoint old stays: a reader that loaded the header before may still read from it.
  let stale: (string | undefined)[];
  if (from) stale = [from.previous];
  else {
    try {
      stale = [(JSON.parse(host.readText(headerPath)) as Header).previous];
    } catch {
      stale = [];
    }
  }
  host.writeWhole(joinPath(dir, data), encoded.data);
  try {
    host.writeWhole(headerPath, JSON.stringify(header));
  } catch (err) {
    // No header names it: the data file would only take space.
    stale = [data];
    throw err;
  } finally {
    for (const name of stale) {
      if (!name || name === from?.data || !name.startsWith(`${base(session)}.fold-`)) continue;
      try {
        host.removeFile(joinPath(dir, name));
      } catch {
        // Already gone (another writer removed it): nothing to do.
      }
    }
  }
  return { data, ...(from ? { previous: from.data } : {}) };
}
