/**
 * Checkpoints of a session's folded evidence, so a guard does not re-read and re-fold a long ledger for every
 * hook process (command mode) or every session that comes back (the resident guard; issue 20).
 *
 * A checkpoint is three kinds of file beside the ledger (lib/guard/ledger/checkpoint_format.ts): the header
 * `<ledger>.fold.json`, which names the ledger bytes it was folded from (whole lines from byte 0) and holds the
 * evidence's small part; the state `<ledger>.fold-<id>.bin`, written anew each time; and the calls' contents
 * `<ledger>.calls-<id>.bin`, to which each checkpoint appends only the calls added since the one before.
 *
 * Integrity (issue 32): the header carries a digest of its state and of the ledger bytes it was folded from
 * (one digest per span a checkpoint added), and each segment of the contents a digest of its own, all of them
 * lib/guard/ledger/digest.ts's, the same under Deno and Node (a checkpoint written by one runtime is used by the
 * other); its first line is an HMAC of the rest under the trial's chain key (issue 40: lib/guard/ledger/chain.ts),
 * so only a holder of the key can make one, and it keeps where the ledger's chain stood at its offset. A reader
 * uses a checkpoint only when all of them match, every ledger byte before its offset read and digested a chunk at
 * a time (never held whole); then it folds the lines appended since that the chain trusts. A segment is checked
 * when a rule first reads a call in it, and a mismatch there (`SpoiledCheckpoint`) makes the caller decide again
 * on a full read. Anything else wrong with a checkpoint (none, another version, an unreadable or edited file) is
 * a full read. So `loadEvidence` gives what `foldLedger(readLedger(…))` gives, without the re-fold, and the ledger
 * stays the state: deleting every checkpoint loses nothing. A checkpoint whose ledger changed before its offset
 * (cut, deleted or rewritten) is the guard's own fold and stands (`recover`): the change is reported and the
 * trusted records after it are folded. Over `LEDGER_READ.max` bytes a full read keeps only the ledger's head and
 * tail: a checkpoint written by a guard that held the whole fold keeps all of it, and one made from such a read
 * stays degraded as the read was.
 */
import {
  decodeEvidence,
  encodeEvidence,
  type EvidenceJson,
  type IdIndex,
  metaOf,
  Restored,
  RestoredCall,
  stateInts,
  storedCalls,
} from "./checkpoint_format.ts";
import { type Evidence, foldLedger, foldRecord, foldsToNothing } from "../engine/evidence.ts";
import * as io from "../io.ts";
import { Digest, digest, DIGEST_NAME } from "./digest.ts";
import {
  ChainCheck,
  chainKeyOf,
  type ChainStart,
  hmacOf,
  linkOf,
  TAIL_BYTES,
  tailLink,
  unseal,
} from "./chain.ts";
import { tryLock } from "./lock.ts";
import {
  besideLedger,
  chainedRecords,
  corruptNote,
  degradedMarker,
  isLost,
  LEDGER_READ,
  ledgerFileName,
  LOST_NOTE,
  readLedger,
  sessionFiles,
  untrustedCount,
} from "./ledger.ts";

/**
 * The checkpoint format and fold semantics. Bump it whenever `foldRecord` or `Evidence` changes: an older
 * checkpoint is then ignored (tests/checkpoint.ts fails on a change to the fold's sources until it is bumped).
 */
export const FOLD_VERSION = 8;

/** Records folded from the ledger since the last checkpoint before command mode writes a new one. */
export const CHECKPOINT_EVERY = 32;

/** The name of `digest`'s algorithm, recorded in each header. */
const HASH = DIGEST_NAME;

/**
 * Largest checkpoint header or state read: its ledger's size twice over and 1 MB (what a fold can hold is made
 * of the ledger's own bytes; ≈ 190 KB of header at 10k records; the megabyte lets the checkpoint of a ledger
 * cut short be read: `recover`), and never over 64 MB. A larger one is ignored before a byte of it is read or
 * digested, so a junk file planted at the name costs little (issue 40: a 240 MB header made every hook take
 * 1.5–2.6 s).
 */
function maxPart(ledgerBytes: number): number {
  // A pinned checkpoint (`resumePinned`) is read whatever the ledger became: its own cap only.
  return Math.min(64 * 1024 * 1024, ledgerBytes * 2 + 1024 * 1024);
}

/** The header file. */
interface Header {
  v: typeof FOLD_VERSION;
  session: string;
  /** The algorithm every digest here is (`HASH`; a reader with another reads the ledger). */
  hash: string;
  /** Ledger bytes folded: whole lines from byte 0. */
  bytes: number;
  /** Records folded (the resident store counts what it holds). */
  records: number;
  /** The ledger's bytes folded, span by span: each span's end and the digest of its bytes. */
  ledger: [number, string][];
  /** The state file and its digest. */
  state: string;
  stateDigest: string;
  /** The contents file the segments are in. */
  contents: string;
  /** Where the ledger's chain stood after the bytes folded (lib/guard/ledger/chain.ts). */
  chain: ChainStart;
  /** The files the header before this one named (kept so a reader of that header still finds them). */
  previous?: { state: string; contents: string };
  ev: EvidenceJson;
}

/** A checkpoint a session's evidence was loaded from or last written to: what the next one extends. */
export interface Checkpoint {
  header: Header;
  /** The header file's first line (its HMAC): the header is still this one while the line is. */
  line: string;
  state: Uint32Array;
  /** What the evidence's restored calls share (updated in place by the next checkpoint). */
  restored: Restored;
  /** The id strings by position, once a checkpoint was written from here (extended by the next). */
  index?: IdIndex;
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
  /** The checkpoint used, if any (the next checkpoint extends it). */
  from?: Checkpoint;
  /** Where the ledger's chain stands after `bytes` (a checkpoint keeps it); null when not known. */
  chain: ChainStart | null;
  /** Ledger lines the chain did not trust (never folded). */
  untrusted: number;
  /**
   * What was found changed since the pinned checkpoint (`LoadOptions.pinned`), or beneath a checkpoint of the
   * session (`recover`), if anything.
   */
  tampered?: string;
  /** The next checkpoint digests the ledger anew from byte 0 (it changed beneath the one the evidence came from). */
  respan?: boolean;
}

const base = (session: string) => besideLedger(session, "");
/** The header file's name for a session. */
export const checkpointName = (session: string) => `${base(session)}.fold.json`;

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** Options for `loadEvidence`. */
export interface LoadOptions {
  /** Use the session's checkpoint when it is good (default true). */
  checkpoint?: boolean;
  /**
   * Read the ledger whole, however large (default false: over `LEDGER_READ.max` a full read keeps its head and
   * tail, and a checkpoint followed by more than that is not used). For a resumed session, off the hook path.
   */
  whole?: boolean;
  /**
   * The header line of the checkpoint this resident guard wrote when it released the session (issue 40): that
   * checkpoint, pinned by its line, is the session's evidence, whatever the ledger says since. A ledger edited,
   * cut or deleted before that point, or records appended that the chain does not trust or that are neither a
   * SessionStart hook's nor a guard's own, are reported (`tampered`) and never folded. A checkpoint replaced or
   * removed is reported, then the ledger is read.
   */
  pinned?: string;
}

/**
 * The session's evidence: from its checkpoint and the lines appended since when the checkpoint is good, else
 * from the whole ledger. Fails like `readLedger` when the ledger is unreadable.
 */
export function loadEvidence(dir: string, session: string, options: LoadOptions = {}): LoadedEvidence {
  let replaced: string | undefined;
  if (options.pinned) {
    try {
      const pinned = resumePinned(dir, session, options.pinned);
      if (pinned) return pinned;
    } catch {
      // Unreadable: as replaced.
    }
    replaced = "the checkpoint this guard wrote at the session's release was replaced or removed; " +
      "the session was read from its ledger";
  }
  const loaded = loadUnpinned(dir, session, options);
  return replaced ? { ...loaded, tampered: replaced } : loaded;
}

function loadUnpinned(dir: string, session: string, options: LoadOptions): LoadedEvidence {
  if (options.checkpoint !== false && sessionFiles(dir, session).length === 1) {
    try {
      const resumed = resume(dir, session, options.whole ?? false);
      if (resumed) return resumed;
    } catch {
      // An unreadable or inconsistent checkpoint is a full read, never a failure.
    }
  }
  const max = options.whole ? Infinity : undefined;
  const read = readLedger(dir, session, { skip: foldsToNothing, max });
  const { records, bytes, chain } = read;
  return {
    ev: foldLedger(records),
    records: records.length,
    bytes,
    folded: records.length,
    chain,
    untrusted: untrustedCount(read.untrusted),
  };
}

/**
 * Where the chain of a session's ledger stands at its end, as the next append will find it (the link of its
 * last line), and the ledger's size: for evidence that is kept while the ledger changed beneath it.
 */
export function chainAtEnd(dir: string, session: string): { size: number; chain: ChainStart } {
  const file = io.joinPath(dir, ledgerFileName(session));
  let size = 0;
  try {
    size = io.fileSize(file);
  } catch {
    // Deleted: the chain starts anew.
  }
  const end = size ? io.readBytes(file, size - Math.min(size, TAIL_BYTES), TAIL_BYTES) : new Uint8Array();
  return { size, chain: { links: [tailLink(end)], chained: true } };
}

/** The HMAC of a header's text under the ledger dir's chain key: the header's first line. */
function headerMac(dir: string, json: Uint8Array): string {
  return hmacOf(chainKeyOf(dir)).hex(json);
}

/** A part of a checkpoint (header or state) whole, refusing one over `max` bytes, links and non-files. */
function readPart(path: string, max: number): Uint8Array | null {
  let size: number;
  try {
    size = io.fileSize(path);
  } catch {
    return null;
  }
  return size > max ? null : io.readBytes(path, 0, size);
}

/** The header and its first line, when its digest matches its text and it is this version's, for this session. */
function readHeader(
  dir: string,
  session: string,
  ledgerBytes: number,
): { header: Header; line: string } | null {
  const bytes = readPart(io.joinPath(dir, checkpointName(session)), maxPart(ledgerBytes));
  if (!bytes) return null;
  const at = bytes.indexOf(10);
  const line = decode(bytes.subarray(0, Math.max(0, at)));
  if (at < 0 || headerMac(dir, bytes.subarray(at + 1)) !== line) return null;
  const header = JSON.parse(decode(bytes.subarray(at + 1))) as Header;
  const ours = header?.v === FOLD_VERSION && header.session === session && header.hash === HASH &&
    Array.isArray(header.chain?.links);
  return ours ? { header, line } : null;
}

/** The first line of the session's header file, or null. */
function headerLine(dir: string, session: string): string | null {
  try {
    const bytes = io.readBytes(io.joinPath(dir, checkpointName(session)), 0, 128);
    const at = bytes.indexOf(10);
    return at < 0 ? null : decode(bytes.subarray(0, at));
  } catch {
    return null;
  }
}

/**
 * The ledger's bytes after the checkpoint's, read in the one pass that checks every byte before them against the
 * header's spans, a chunk at a time (a long ledger is never held whole); null when the spans do not end in order
 * at `bytes` or a span's bytes do not match its digest.
 */
function afterSpans(file: string, header: Header, size: number): Uint8Array | null {
  if (!spansHold(header)) return null;
  // An empty ledger (a checkpoint kept while it was deleted: `recover`) has nothing to read.
  if (size === 0 && header.bytes === 0) return new Uint8Array();
  const spans = header.ledger;
  const after = new Uint8Array(size - header.bytes);
  let at = 0, span = 0, matches = true;
  let d = new Digest();
  io.readChunks(file, 0, size, (chunk) => {
    let i = 0;
    while (i < chunk.length && span < spans.length) {
      const [end, expected] = spans[span];
      const n = Math.min(chunk.length - i, end - at);
      d.update(chunk.subarray(i, i + n));
      i += n;
      at += n;
      if (at < end) continue;
      matches = d.finish() === expected;
      if (!matches) return false;
      d = new Digest();
      span++;
    }
    if (i === chunk.length) return;
    after.set(chunk.subarray(i), at - header.bytes);
    at += chunk.length - i;
  });
  return matches && span === spans.length ? after.subarray(0, at - header.bytes) : null;
}

/** True when the header's spans end in order, the last at its offset. */
function spansHold(header: Header): boolean {
  let last = 0;
  for (const [end] of header.ledger) {
    if (!Number.isSafeInteger(end) || end <= last) return false;
    last = end;
  }
  return last === header.bytes;
}

/** The digest of `bytes` bytes of a file from byte `start`, read a chunk at a time; throws when it is shorter. */
function digestOf(path: string, start: number, bytes: number): string {
  const d = new Digest();
  const read = io.readChunks(path, start, bytes, (chunk) => void d.update(chunk));
  if (read !== bytes) {
    throw new Error(`Cannot digest ${path}: ${read} of ${bytes} bytes from ${start} are there.`);
  }
  return d.finish();
}

/** The evidence a checkpoint holds, decoded (its calls read from its contents file when a rule needs them). */
function restore(dir: string, size: number, found: { header: Header; line: string }) {
  const { header, line } = found;
  const stateBytes = readPart(io.joinPath(dir, header.state), maxPart(size));
  if (!stateBytes || digest(stateBytes) !== header.stateDigest) return null;
  const state = stateInts(stateBytes);
  const contents = io.joinPath(dir, header.contents);
  const read = (start: number, n: number) => io.readBytes(contents, start, n);
  const { ev, restored } = decodeEvidence(header.ev, { state, read });
  return { ev, from: { header, line, state, restored } as Checkpoint };
}

/**
 * Folds ledger text that follows a checkpoint into its evidence: the session's records the chain trusts from
 * where the checkpoint left it, a `degraded` marker for lines that are no record in a ledger from before the
 * chain, and for a lost record. Returns the records folded, the lines not trusted and where the chain stands.
 */
function foldAfter(
  dir: string,
  session: string,
  ev: Evidence,
  text: string,
  chain: ChainStart,
): { folded: number; untrusted: number; chain: ChainStart } {
  const check = new ChainCheck(chainKeyOf(dir), chain);
  const after = chainedRecords(text, session, check, foldsToNothing);
  const records = check.chained ? after.records : after.legacy;
  for (const r of records) foldRecord(ev, r);
  const arm = records[0]?.arm ?? "shadow";
  if (!check.chained && after.corrupt) {
    foldRecord(ev, degradedMarker(session, arm, corruptNote(after.corrupt)));
  }
  if (isLost(dir, session)) foldRecord(ev, degradedMarker(session, arm, LOST_NOTE));
  const legacy = check.chained ? after.legacy.length : 0;
  return {
    folded: records.length,
    untrusted: untrustedCount(after.untrusted) + legacy,
    chain: check.start(),
  };
}

function resume(dir: string, session: string, whole: boolean): LoadedEvidence | null {
  const file = io.joinPath(dir, ledgerFileName(session));
  let size = 0;
  try {
    size = io.fileSize(file);
  } catch (err) {
    // Deleted beneath its checkpoint: `recover`.
    if (io.codeOf(err) !== "ENOENT") throw err;
  }
  const found = readHeader(dir, session, size);
  if (!found || !Number.isSafeInteger(found.header.bytes) || !spansHold(found.header)) return null;
  const { header } = found;
  if (!whole && size - header.bytes > LEDGER_READ.max) return null;
  const tail = size >= header.bytes ? afterSpans(file, header, size) : null;
  if (!tail) return recover(dir, session, found, size);
  const restored = restore(dir, size, found);
  if (!restored) return null;
  const { ev, from } = restored;
  // A last line with no newline yet: being written by another process, or cut short. Folded as a full read
  // folds it (when the chain trusts it), and no checkpoint is made from this load.
  const ends = tail.length === 0 || tail[tail.length - 1] === 10;
  const after = foldAfter(dir, session, ev, decode(tail), header.chain);
  return resumed(ev, from, header, after, ends ? size : null);
}

/** A checkpoint's evidence with the records after it folded; `bytes` null when no checkpoint may be made of it. */
function resumed(
  ev: Evidence,
  from: LoadedEvidence["from"],
  header: Header,
  after: ReturnType<typeof foldAfter>,
  bytes: number | null,
): LoadedEvidence {
  return {
    ev,
    records: header.records + after.folded,
    bytes,
    folded: after.folded,
    from,
    chain: bytes === null ? null : after.chain,
    untrusted: after.untrusted,
  };
}

/**
 * A checkpoint (keyed: the guard's own) whose ledger no longer matches it: cut shorter than its offset, or a
 * byte before it changed. Its evidence stands — what a record cut or deleted from the ledger held is not lost,
 * and a line edited or put in its place is not folded — and the records appended after it are found by the
 * chain (after the line its last link names, else from the first line that links to it) and folded when
 * trusted. Reported (`tampered`); the next checkpoint digests the ledger as it now is (`respan`), so the change
 * is reported once. Null when the checkpoint's own files do not match it.
 */
function recover(
  dir: string,
  session: string,
  found: { header: Header; line: string },
  size: number,
): LoadedEvidence | null {
  const { header } = found;
  const restored = restore(dir, Math.max(size, header.bytes), found);
  if (!restored) return null;
  const { ev, from } = restored;
  let text = "";
  try {
    if (size <= LEDGER_READ.max) text = io.readRange(io.joinPath(dir, ledgerFileName(session)), 0, size);
  } catch {
    // Deleted: the checkpoint alone.
  }
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const head = header.chain.links.at(-1);
  let start = lines.length;
  if (head) {
    const at = lines.findLastIndex((l) => linkOf(l) === head);
    start = at >= 0 ? at + 1 : lines.findIndex((l) => unseal(l)?.p === head);
    if (start < 0) start = lines.length;
  }
  const after = foldAfter(dir, session, ev, lines.slice(start).join("\n"), header.chain);
  const ends = size === 0 || (text.endsWith("\n") && size <= LEDGER_READ.max);
  const what = size < header.bytes
    ? `the ledger is ${size} bytes, shorter than the ${header.bytes} its checkpoint folded (cut or deleted)`
    : `the ledger changed before byte ${header.bytes}, which its checkpoint folded (edited, or lines deleted)`;
  return {
    ...resumed(ev, from, header, after, ends ? size : null),
    tampered: `${what}; the checkpoint's evidence was kept and ${after.folded} trusted record${
      after.folded === 1 ? "" : "s"
    } after it folded`,
    respan: true,
  };
}

/**
 * The session's evidence from the checkpoint whose header line is `pinned` (`LoadOptions.pinned`), or null when
 * that checkpoint is not there whole. The ledger is read only for what a SessionStart hook in command mode or a
 * guard starting up appended since (their records fold to nothing that loosens a rule, and must be trusted by
 * the chain); anything else there is reported.
 */
function resumePinned(dir: string, session: string, pinned: string): LoadedEvidence | null {
  const file = io.joinPath(dir, ledgerFileName(session));
  let size = 0;
  try {
    size = io.fileSize(file);
  } catch {
    // Deleted: reported below.
  }
  const found = readHeader(dir, session, Infinity);
  if (!found || found.line !== pinned) return null;
  const { header } = found;
  const restored = restore(dir, Infinity, found);
  if (!restored) return null;
  const { ev, from } = restored;
  let tampered: string | undefined;
  let folded = 0;
  let chain: ChainStart | null = header.chain;
  const tail = size >= header.bytes ? afterSpans(file, header, size) : null;
  if (!tail) {
    tampered = size < header.bytes
      ? `the ledger is ${size} bytes, shorter than the ${header.bytes} this guard left (cut or deleted)`
      : "the ledger was edited before the point this guard left it";
  } else if (tail.length) {
    const check = new ChainCheck(chainKeyOf(dir), header.chain);
    const after = chainedRecords(decode(tail), session, check);
    // What a SessionStart hook or a guard starting up writes meanwhile (folds to nothing that loosens a rule).
    const started = after.records.filter((r) => r.event === "session-start" || r.event === "guard");
    for (const r of started) foldRecord(ev, r);
    folded = started.length;
    chain = check.start();
    const foreign = after.records.length - started.length + untrustedCount(after.untrusted) +
      after.legacy.length + (check.chained ? 0 : after.corrupt);
    if (foreign) {
      tampered = `${foreign} line${foreign > 1 ? "s" : ""} appended to the ledger while the session was ` +
        "released were not this guard's; not folded";
    }
  }
  // Tampered: the pinned evidence stands, and the next checkpoint digests the ledger as it now is.
  const end = tampered ? chainAtEnd(dir, session) : null;
  return {
    ev,
    records: header.records + folded,
    bytes: end ? end.size : header.bytes + (tail?.length ?? 0),
    folded,
    from,
    chain: end ? end.chain : chain,
    untrusted: 0,
    ...(tampered ? { tampered, respan: true } : {}),
  };
}

/**
 * A checkpoint's own file names for a session: state files (base-36 ids from versions before 6), contents
 * files, temp files a writer left. Ids hold no dot, so another session's files never match.
 */
function checkpointFiles(session: string): RegExp {
  const b = base(session).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${b}\\.(?:fold-[0-9a-z]+\\.bin|calls-[0-9a-f]+\\.bin|fold(?:\\.json|-[0-9a-f]+\\.bin)\\.[0-9a-f]{16}\\.tmp)$`,
  );
}

/**
 * Writes the checkpoint of `ev`, the fold of the ledger's first `bytes` bytes, under the session's ledger lock
 * (lib/guard/ledger/lock.ts): the new calls appended to the contents file of the checkpoint it extends (`from`,
 * when that file is still whole) or to a new one, a new state file, then the header (replaced whole); then
 * every file of the session's checkpoints that neither this header nor the one it replaced names is removed
 * (the ones a writer that died or lost a race left). Returns the checkpoint, or null when another writer holds
 * the lock (a checkpoint is only a shortcut). Throws what the file system throws; the caller ignores it.
 */
export function writeCheckpoint(
  dir: string,
  session: string,
  loaded: CheckpointOf,
): Checkpoint | null {
  if (!loaded.chain) return null;
  const unlock = tryLock(dir, session);
  if (typeof unlock !== "function") return null;
  try {
    return writeLocked(dir, session, loaded);
  } finally {
    unlock();
  }
}

/** What a checkpoint is written of: evidence, the ledger bytes it is the fold of and where the chain stood. */
export interface CheckpointOf {
  ev: Evidence;
  records: number;
  bytes: number;
  /** Where the ledger's chain stands after `bytes`: no checkpoint without it. */
  chain: ChainStart | null;
  from?: Checkpoint;
  /** The ledger changed beneath `from`: its spans are digested anew from byte 0. */
  respan?: boolean;
}

function writeLocked(dir: string, session: string, loaded: CheckpointOf): Checkpoint {
  const { ev, bytes } = loaded;
  const file = io.joinPath(dir, ledgerFileName(session));
  const headerPath = io.joinPath(dir, checkpointName(session));
  // The header this one replaces (its files are kept for a reader that loaded it): the evidence's own while
  // the file still starts with its line, else read.
  let replaced: Header | null = null;
  if (loaded.from && headerLine(dir, session) === loaded.from.line) replaced = loaded.from.header;
  else {
    try {
      replaced = readHeader(dir, session, io.fileSize(io.joinPath(dir, ledgerFileName(session))))?.header ??
        null;
    } catch {
      // None, or spoiled: nothing to keep for its readers.
    }
  }
  // Extend the checkpoint the evidence came from while its contents file holds every segment it names.
  let from = loaded.from;
  let at = 0;
  if (from) {
    const last = from.header.ev.segments.at(-1);
    try {
      at = io.fileSize(io.joinPath(dir, from.header.contents));
      if (last && at < last.at + last.meta + last.text) from = undefined;
    } catch {
      from = undefined;
    }
  }
  const contents = from ? from.header.contents : `${base(session)}.calls-${io.randomName()}.bin`;
  if (!from) at = 0;
  const stored = from && { json: from.header.ev, state: from.state, index: from.index };
  const encoded = encodeEvidence(ev, { stored, at });
  const contentsPath = io.joinPath(dir, contents);
  if (from) io.append(contentsPath, encoded.contents);
  else io.createNew(contentsPath, encoded.contents);
  const spanned = from && !loaded.respan;
  const ledger = spanned ? [...from!.header.ledger] : [];
  const folded = spanned ? from!.header.bytes : 0;
  if (bytes > folded) ledger.push([bytes, digestOf(file, folded, bytes - folded)]);
  const state = `${base(session)}.fold-${io.randomName()}.bin`;
  io.createNew(io.joinPath(dir, state), encoded.state);
  const header: Header = {
    v: FOLD_VERSION,
    session,
    hash: HASH,
    bytes,
    records: loaded.records,
    ledger,
    state,
    stateDigest: digest(encoded.state),
    contents,
    chain: loaded.chain!,
    ...(replaced ? { previous: { state: replaced.state, contents: replaced.contents } } : {}),
    ev: encoded.json,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const line = headerMac(dir, json);
  try {
    const text = new Uint8Array(line.length + 1 + json.length);
    text.set(new TextEncoder().encode(`${line}\n`));
    text.set(json, line.length + 1);
    io.writeWhole(headerPath, text);
  } catch (err) {
    // No header names them: the new state file (and a new contents file) would only take space.
    for (const name of from ? [state] : [state, contents]) removeQuietly(io.joinPath(dir, name));
    throw err;
  }
  removeUnnamed(dir, session, new Set([state, contents, replaced?.state, replaced?.contents]));
  const ints = stateInts(encoded.state);
  const read = (start: number, n: number) => io.readBytes(contentsPath, start, n);
  let restored = loaded.from?.restored;
  if (restored) restored.update(encoded.json, ints, read, contents !== loaded.from!.header.contents);
  else restored = new Restored(encoded.json, ints, read);
  return { header, line, state: ints, restored, index: encoded.index };
}

/** Removes a file if it is there. */
function removeQuietly(path: string): void {
  try {
    io.removeFile(path);
  } catch {
    // Never written, or removed meanwhile.
  }
}

/** Removes the session's checkpoint files not in `keep`; one already gone is nothing to do. */
function removeUnnamed(dir: string, session: string, keep: Set<string | undefined>): void {
  const mine = checkpointFiles(session);
  let names: string[];
  try {
    names = io.listDir(dir);
  } catch {
    return;
  }
  for (const name of names) if (mine.test(name) && !keep.has(name)) removeQuietly(io.joinPath(dir, name));
}

/**
 * Swaps the calls of held evidence for their stored form in `checkpoint` (just written from it), so their
 * texts and results live in the checkpoint's contents, not in memory; what a rule reads stays the same.
 */
export function storeCalls(ev: Evidence, checkpoint: Checkpoint): void {
  const r = checkpoint.restored;
  if (ev.calls.length !== storedCalls(checkpoint.header.ev)) return;
  for (let i = 0; i < ev.calls.length; i++) {
    const c = ev.calls[i];
    if (!(c instanceof RestoredCall && c.restored === r)) ev.calls[i] = new RestoredCall(r, i, metaOf(c));
  }
}
