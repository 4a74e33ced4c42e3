/**
 * How a checkpoint holds folded evidence (lib/guard/ledger/checkpoint.ts), in three parts:
 *
 * - the header's JSON part: the scalars, the block-budget counts, every id string once and every tool name
 *   once (in the order first stored: a later checkpoint only appends), and the segments of the calls' contents;
 * - the state, rewritten at each checkpoint: unsigned 32-bit integers for the id sets and the case owners
 *   (references into the strings, in insertion order) and, per call, its tool, flags, ids and where its
 *   metadata and text end in its segment;
 * - the calls' contents, appended: one segment per checkpoint for the calls added since the one before, its
 *   calls' metadata (`[id, input, error, object]` as JSON) then their texts. So a checkpoint writes only what
 *   is new, never the whole session again.
 *
 * A restored call reads its metadata or text only when a rule first asks. A segment's region is then read
 * whole, checked against its digest, and decoded; texts are kept in a cache of bounded size, so the results of a
 * long session live on disk, not in memory. Loading a 10k-record session parses the JSON part and reads the
 * integers, nothing more (issue 20: the first event of a session ≤ 20 ms).
 *
 * Pure: the state and the contents are read through the functions the caller passes. Throws
 * `SpoiledCheckpoint` on anything inconsistent, at load or on a later read; the caller then reads the ledger.
 */
import type { CallRecord, Evidence, EvidenceIndex } from "../engine/evidence.ts";
import type { Phase, Seat } from "../engine/seat.ts";
import { digest } from "./digest.ts";

/** A checkpoint that does not hold together: the caller reads the ledger instead. */
export class SpoiledCheckpoint extends Error {
  override name = "SpoiledCheckpoint";
}

/** One segment of the calls' contents: its calls, where it starts, its regions' lengths and digests. */
export interface Segment {
  /** Calls in the segment. */
  calls: number;
  /** Byte offset of the segment in the contents file. */
  at: number;
  /** Byte lengths of its metadata and text regions (the text region follows the metadata). */
  meta: number;
  text: number;
  /** Digests of the two regions (`digest`). */
  metaDigest: string;
  textDigest: string;
}

/** The JSON part of encoded evidence. */
export interface EvidenceJson {
  prompt: string;
  seat: Seat | null;
  phase: Phase | null;
  caseLock: string | null;
  stopBlocks: number;
  degraded: boolean;
  denies: [string, number][];
  /** The running index's seats; null when the evidence has no index. */
  index: { promptSeat: Seat | null; toolSeat: Seat | null } | null;
  /** Every id string, once, in the order first stored; the integers refer to them by position. */
  strings: string[];
  tools: string[];
  /** How many integers each list of the state holds (owners: pairs; calls: five per call). */
  counts: Record<(typeof LISTS)[number], number>;
  /** The calls' contents, segment by segment. */
  segments: Segment[];
}

/** The state's integer lists, in its order. */
const LISTS = ["seen", "owners", "promptIds", "written", "returned", "grounded", "calls", "callIds"] as const;
type List = (typeof LISTS)[number];
/** The lists of id references (every integer of `calls` is something else). */
const ID_LISTS = ["seen", "owners", "promptIds", "written", "returned", "grounded", "callIds"] as const;
/** Integers per call: tool, flags, the end of its ids, and the ends of its metadata and text in its segment. */
const PER_CALL = 5;
const TOOL = 0, FLAGS = 1, IDS_END = 2, META_END = 3, TEXT_END = 4;
/** Call flags. */
const OK = 1, PARSED = 2, SIDECHAIN = 4, ERROR = 8, OBJECT = 16, IDS = 32, TEXT_JSON = 64;
/** A segment's texts are cut here (UTF-16 code units): one text read then reads at most about this much. */
const SEGMENT_TEXT = 1 << 20;
/**
 * Code units of decoded regions kept across every restored session of the process (the least recently read go
 * first): a long session's results stay on disk, and a scan over them reads each region once.
 */
const REGION_CACHE = 8 << 20;

/** The decoded regions kept, least recently read first, and their size. */
const regions = { cache: new Map<string, string>(), size: 0, next: 0 };

/** What a checkpoint already holds: its JSON part and state, whose calls are stored in its contents. */
export interface StoredEvidence {
  json: EvidenceJson;
  state: Uint32Array;
  /** Its id strings by position, kept from one checkpoint to the next by a long-lived holder. */
  index?: IdIndex;
}

/**
 * A checkpoint's id strings and each one's position: built once from the stored strings, then extended by every
 * checkpoint written after it (so a checkpoint of a long session does not hash every id again).
 */
export interface IdIndex {
  strings: string[];
  refs: Map<string, number>;
}

/** Encoded evidence: the JSON part, the state, the contents to append (the new calls' segments), the ids. */
export interface EncodedEvidence {
  json: EvidenceJson;
  state: Uint8Array;
  contents: Uint8Array;
  index: IdIndex;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Typed arrays laid end to end in one made to hold them all. */
function joined<T extends Uint8Array | Uint32Array>(parts: T[], make: (length: number) => T): T {
  const all = make(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** The state's integers as bytes, little-endian whatever the machine (a view where the machine is). */
function stateBytes(ints: Uint32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(ints.buffer, ints.byteOffset, ints.byteLength);
  const bytes = new Uint8Array(ints.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < ints.length; i++) view.setUint32(i * 4, ints[i], true);
  return bytes;
}

/** The state's bytes as integers (throws on a length that is not whole integers). */
export function stateInts(bytes: Uint8Array): Uint32Array {
  if (bytes.length % 4) throw new SpoiledCheckpoint("checkpoint state is not whole integers");
  if (LITTLE_ENDIAN) {
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
    return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ints = new Uint32Array(bytes.length / 4);
  for (let i = 0; i < ints.length; i++) ints[i] = view.getUint32(i * 4, true);
  return ints;
}

/** Where each list starts in the state. */
function listStarts(counts: EvidenceJson["counts"]): Record<List, number> & { total: number } {
  const starts = { total: 0 } as Record<List, number> & { total: number };
  for (const k of LISTS) {
    starts[k] = starts.total;
    starts.total += counts[k];
  }
  return starts;
}

/**
 * Encodes evidence, each segment's regions digested. With `stored`, the checkpoint it extends: `ev`'s
 * first calls are the ones it stored (as restored from it), so only the calls after them are encoded and
 * returned as `contents`, to be appended to the contents file at byte `at`; the id strings and tool names keep
 * their positions. Reads the new calls' texts (a held call then keeps only its text, as after any text read).
 */
export function encodeEvidence(
  ev: Evidence,
  options: { stored?: StoredEvidence; at?: number } = {},
): EncodedEvidence {
  const { stored } = options;
  const index = indexOf(stored);
  const { strings, refs } = index;
  const ref = (s: string) => {
    let i = refs.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      refs.set(s, i);
    }
    return i;
  };
  const refsOf = (ids: Iterable<string>, size: number) => {
    const out = new Uint32Array(size);
    let k = 0;
    for (const id of ids) out[k++] = ref(id);
    return out;
  };
  const tools = stored ? [...stored.json.tools] : [];
  const toolRefs = new Map(tools.map((t, i) => [t, i]));
  const kept = stored ? stored.json.counts.calls / PER_CALL : 0;
  if (kept > ev.calls.length) {
    throw new Error("the evidence holds fewer calls than the checkpoint it extends");
  }
  const owners = new Uint32Array(ev.owners.size * 2);
  let k = 0;
  for (const [key, value] of ev.owners) {
    owners[k++] = ref(key);
    owners[k++] = ref(value);
  }
  const ix = ev.index;
  const ints: Record<List, Uint32Array> = {
    seen: refsOf(ev.seen, ev.seen.size),
    owners,
    promptIds: ix ? refsOf(ix.promptIds, ix.promptIds.size) : new Uint32Array(0),
    written: ix ? refsOf(ix.written, ix.written.size) : new Uint32Array(0),
    returned: ix ? refsOf(ix.returned, ix.returned.size) : new Uint32Array(0),
    grounded: ix ? refsOf(ix.grounded, ix.grounded.size) : new Uint32Array(0),
    calls: new Uint32Array(ev.calls.length * PER_CALL),
    callIds: new Uint32Array(0),
  };
  let keptIds: Uint32Array = new Uint32Array(0);
  if (stored) {
    const starts = listStarts(stored.json.counts);
    ints.calls.set(stored.state.subarray(starts.calls, starts.calls + kept * PER_CALL));
    const idsEnd = kept ? stored.state[starts.calls + (kept - 1) * PER_CALL + IDS_END] : 0;
    keptIds = stored.state.subarray(starts.callIds, starts.callIds + idsEnd);
  }
  const newIds: number[] = [];
  const segments = stored ? [...stored.json.segments] : [];
  const parts: Uint8Array[] = [];
  const encoder = new TextEncoder();
  let at = options.at ?? 0;
  let meta: string[] = [];
  let texts: string[] = [];
  let metaEnd = 0, textEnd = 0, inSegment = 0;
  const close = () => {
    if (!inSegment) return;
    const m = encoder.encode(meta.join(""));
    const t = encoder.encode(texts.join(""));
    segments.push({
      calls: inSegment,
      at,
      meta: m.length,
      text: t.length,
      metaDigest: digest(m),
      textDigest: digest(t),
    });
    parts.push(m, t);
    at += m.length + t.length;
    meta = [];
    texts = [];
    metaEnd = textEnd = inSegment = 0;
  };
  for (let i = kept; i < ev.calls.length; i++) {
    const c = ev.calls[i];
    let tool = toolRefs.get(c.tool);
    if (tool === undefined) {
      tool = tools.length;
      tools.push(c.tool);
      toolRefs.set(c.tool, tool);
    }
    const object = c.parsedText ? undefined : c.result;
    const m = JSON.stringify([c.id, c.input, c.error ?? null, object ?? null]);
    const raw = c.text;
    // A text with a lone surrogate is kept as JSON: UTF-8 cannot carry it, JSON's escape can.
    const wellFormed = raw.isWellFormed();
    const text = wellFormed ? raw : JSON.stringify(raw);
    if (inSegment && textEnd + text.length > SEGMENT_TEXT) close();
    meta.push(m);
    texts.push(text);
    metaEnd += m.length;
    textEnd += text.length;
    inSegment++;
    for (const id of c.ids ?? []) newIds.push(ref(id));
    const flags = (c.ok ? OK : 0) | (c.parsedText ? PARSED : 0) | (c.sidechain ? SIDECHAIN : 0) |
      (c.error !== undefined ? ERROR : 0) | (object !== undefined ? OBJECT : 0) | (c.ids ? IDS : 0) |
      (wellFormed ? 0 : TEXT_JSON);
    ints.calls.set([tool, flags, keptIds.length + newIds.length, metaEnd, textEnd], i * PER_CALL);
  }
  close();
  ints.callIds = new Uint32Array(keptIds.length + newIds.length);
  ints.callIds.set(keptIds);
  ints.callIds.set(newIds, keptIds.length);
  const all = joined(LISTS.map((k) => ints[k]), (n) => new Uint32Array(n));
  const contents = joined(parts, (n) => new Uint8Array(n));
  return {
    json: {
      prompt: ev.prompt,
      seat: ev.seat,
      phase: ev.phase,
      caseLock: ev.caseLock,
      stopBlocks: ev.stopBlocks,
      degraded: ev.degraded,
      denies: [...ev.denies],
      index: ix ? { promptSeat: ix.promptSeat, toolSeat: ix.toolSeat } : null,
      strings: strings.slice(),
      tools,
      counts: Object.fromEntries(LISTS.map((k) => [k, ints[k].length])) as EvidenceJson["counts"],
      segments,
    },
    state: stateBytes(all),
    contents,
    index,
  };
}

/**
 * The id index to extend: the stored one (less any string a write that failed added to it), else one built from
 * the stored strings, else an empty one.
 */
function indexOf(stored: StoredEvidence | undefined): IdIndex {
  const kept = stored?.json.strings ?? [];
  const index = stored?.index;
  if (index && index.strings.length >= kept.length) {
    for (const s of index.strings.splice(kept.length)) index.refs.delete(s);
    return index;
  }
  return { strings: kept.slice(), refs: new Map(kept.map((s, i) => [s, i])) };
}

/** `bytes` bytes of the contents from byte `start`, as the caller reads them. */
export type ReadContents = (start: number, bytes: number) => Uint8Array;

/** What restored calls share: the state, and the segments' regions, each decoded on first use, cache-bounded. */
export class Restored {
  /** The first call of each segment. */
  #firsts: number[] = [];
  /** This restore's key in the region cache (a new one for other contents). */
  #key = "";
  json!: EvidenceJson;
  ints!: Uint32Array;
  callsAt = 0;
  idsAt = 0;
  read!: ReadContents;
  constructor(json: EvidenceJson, ints: Uint32Array, read: ReadContents) {
    this.update(json, ints, read, true);
  }
  /**
   * The checkpoint written after the one these calls were restored from: its state, and its contents (`moved`:
   * another contents file, whose regions the cache must not confuse with these). Calls keep their positions.
   */
  update(json: EvidenceJson, ints: Uint32Array, read: ReadContents, moved: boolean): void {
    const starts = listStarts(json.counts);
    Object.assign(this, { json, ints, read, callsAt: starts.calls, idsAt: starts.callIds });
    if (moved) this.#key = `${regions.next++}:`;
    this.#firsts = [];
    let first = 0;
    for (const s of json.segments) {
      this.#firsts.push(first);
      first += s.calls;
    }
  }
  /** Integer `k` of call `i`. */
  at(i: number, k: number): number {
    return this.ints[this.callsAt + i * PER_CALL + k];
  }
  /** The segment call `i` is in. */
  segmentOf(i: number): number {
    let lo = 0, hi = this.#firsts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.#firsts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  /** Call `i`'s span (`k`: META_END or TEXT_END) in its segment's decoded region. */
  span(i: number, k: number): [number, number] {
    const first = this.#firsts[this.segmentOf(i)];
    return [i === first ? 0 : this.at(i - 1, k), this.at(i, k)];
  }
  /** A segment's region decoded (`text` false: metadata), checked against its digest. */
  region(segment: number, text: boolean): string {
    const s = this.json.segments[segment];
    const key = `${this.#key}${text ? "t" : "m"}${s.at}`;
    const hit = regions.cache.get(key);
    if (hit !== undefined) {
      regions.cache.delete(key);
      regions.cache.set(key, hit);
      return hit;
    }
    let bytes: Uint8Array;
    try {
      bytes = text ? this.read(s.at + s.meta, s.text) : this.read(s.at, s.meta);
    } catch (err) {
      throw new SpoiledCheckpoint(`checkpoint contents unreadable: ${(err as Error).message}`);
    }
    if (
      bytes.length !== (text ? s.text : s.meta) || digest(bytes) !== (text ? s.textDigest : s.metaDigest)
    ) {
      throw new SpoiledCheckpoint(`checkpoint contents do not match their digest (segment ${segment})`);
    }
    const decoded = new TextDecoder().decode(bytes);
    const last = this.#firsts[segment] + s.calls - 1;
    if (decoded.length !== this.at(last, text ? TEXT_END : META_END)) {
      throw new SpoiledCheckpoint(`checkpoint contents do not match their calls (segment ${segment})`);
    }
    regions.cache.set(key, decoded);
    regions.size += decoded.length;
    for (const [k, v] of regions.cache) {
      if (regions.size <= REGION_CACHE || k === key) break;
      regions.cache.delete(k);
      regions.size -= v.length;
    }
    return decoded;
  }
}

/** Parses JSON that a checkpoint stored; anything that does not parse spoils the checkpoint. */
function parseStored(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SpoiledCheckpoint("checkpoint contents do not parse");
  }
}

/** Metadata of a call: `[id, input, error, object]`. */
type Meta = [string, Record<string, unknown>, string | null, unknown];

/**
 * A call of restored evidence: its tool, flags and ids from the shared state; its metadata read when first
 * asked and kept; its text read from the contents each time (the region cache makes that cheap), never kept.
 */
export class RestoredCall implements CallRecord {
  #r: Restored;
  #i: number;
  #meta?: Meta;

  /** `meta`: the metadata when the caller has it already (a held call swapped for its stored form). */
  constructor(r: Restored, i: number, meta?: Meta) {
    this.#r = r;
    this.#i = i;
    this.#meta = meta;
  }
  get tool(): string {
    return this.#r.json.tools[this.#r.at(this.#i, TOOL)];
  }
  get ok(): boolean {
    return (this.#r.at(this.#i, FLAGS) & OK) !== 0;
  }
  get sidechain(): boolean {
    return (this.#r.at(this.#i, FLAGS) & SIDECHAIN) !== 0;
  }
  get parsedText(): true | undefined {
    return this.#r.at(this.#i, FLAGS) & PARSED ? true : undefined;
  }
  #m(): Meta {
    if (!this.#meta) {
      const [from, to] = this.#r.span(this.#i, META_END);
      this.#meta = parseStored(this.#r.region(this.#r.segmentOf(this.#i), false).slice(from, to)) as Meta;
    }
    return this.#meta;
  }
  get id(): string {
    return this.#m()[0];
  }
  get input(): Record<string, unknown> {
    return this.#m()[1];
  }
  get error(): string | undefined {
    return this.#r.at(this.#i, FLAGS) & ERROR ? this.#m()[2] ?? undefined : undefined;
  }
  get result(): unknown {
    if (this.parsedText) return parseStored(this.text);
    return this.#r.at(this.#i, FLAGS) & OBJECT ? this.#m()[3] : undefined;
  }
  get text(): string {
    const [from, to] = this.#r.span(this.#i, TEXT_END);
    const raw = this.#r.region(this.#r.segmentOf(this.#i), true).slice(from, to);
    return this.#r.at(this.#i, FLAGS) & TEXT_JSON ? parseStored(raw) as string : raw;
  }
  /** The restored calls this one shares its state with. */
  get restored(): Restored {
    return this.#r;
  }
  get ids(): string[] | undefined {
    if (!(this.#r.at(this.#i, FLAGS) & IDS)) return undefined;
    const { ints, idsAt, json } = this.#r;
    const from = this.#i === 0 ? 0 : this.#r.at(this.#i - 1, IDS_END);
    return Array.from(
      ints.subarray(idsAt + from, idsAt + this.#r.at(this.#i, IDS_END)),
      (k) => json.strings[k],
    );
  }
}

/** How many calls a checkpoint's JSON part stores. */
export function storedCalls(json: EvidenceJson): number {
  return json.counts.calls / PER_CALL;
}

/** The metadata a call would be stored with (for a held call swapped for its stored form). */
export function metaOf(c: CallRecord): Meta {
  return [c.id, c.input, c.error ?? null, c.parsedText ? null : c.result ?? null];
}

/**
 * The evidence encoded as `json` and `state`, its calls' contents read through `read` and checked against their
 * digests; throws `SpoiledCheckpoint` when the parts do not agree. The restored calls share `Restored` (returned
 * beside the evidence, so the next checkpoint can extend it).
 */
export function decodeEvidence(
  json: EvidenceJson,
  parts: { state: Uint32Array; read: ReadContents },
): { ev: Evidence; restored: Restored } {
  const { state } = parts;
  const starts = listStarts(json.counts);
  const count = json.counts.calls / PER_CALL;
  if (
    state.length !== starts.total || !Number.isInteger(count) || json.counts.owners % 2 ||
    json.segments.reduce((n, s) => n + s.calls, 0) !== count
  ) {
    throw new SpoiledCheckpoint("checkpoint state does not match its counts");
  }
  if (!json.strings.every((s) => typeof s === "string") || !json.tools.every((t) => typeof t === "string")) {
    throw new SpoiledCheckpoint("checkpoint tables hold a non-string");
  }
  // Every id reference in range (the sets are made only when first read). Indexed loops that allocate
  // nothing: a fresh resident guard runs them cold over a long session's ~40k integers (issue 20's ≤ 20 ms).
  const strings = json.strings.length;
  for (const k of ID_LISTS) {
    for (let i = starts[k], end = i + json.counts[k]; i < end; i++) {
      if (state[i] >= strings) throw new SpoiledCheckpoint("checkpoint id out of range");
    }
  }
  const r = new Restored(json, state, parts.read);
  // Every call's tool in range and its spans in order within its segment, before any is used.
  const tools = json.tools.length;
  let segment = 0, inSegment = 0, meta = 0, text = 0, ids = 0;
  for (let i = 0, at = r.callsAt; i < count; i++, at += PER_CALL) {
    while (inSegment === json.segments[segment]?.calls) {
      segment++;
      inSegment = meta = text = 0;
    }
    const s = json.segments[segment];
    const idsEnd = state[at + IDS_END], metaEnd = state[at + META_END], textEnd = state[at + TEXT_END];
    if (state[at + TOOL] >= tools || idsEnd < ids || metaEnd < meta || textEnd < text) {
      throw new SpoiledCheckpoint("checkpoint calls out of order");
    }
    if (metaEnd > s.meta || textEnd > s.text) {
      throw new SpoiledCheckpoint("checkpoint calls overrun their segment");
    }
    ids = idsEnd;
    meta = metaEnd;
    text = textEnd;
    inSegment++;
  }
  if (ids !== json.counts.callIds) {
    throw new SpoiledCheckpoint("checkpoint call ids do not match their count");
  }
  const ev = {
    prompt: json.prompt,
    seat: json.seat,
    phase: json.phase,
    calls: Array.from({ length: count }, (_, i) => new RestoredCall(r, i)),
    caseLock: json.caseLock,
    denies: new Map(json.denies),
    stopBlocks: json.stopBlocks,
    degraded: json.degraded,
  } as unknown as Evidence;
  const set = (k: List) => () => {
    const out = new Set<string>();
    for (let i = starts[k], end = i + json.counts[k]; i < end; i++) out.add(json.strings[state[i]]);
    return out;
  };
  lazyField(ev, "seen", set("seen"));
  lazyField(ev, "owners", () => {
    const out = new Map<string, string>();
    for (let i = starts.owners, end = i + json.counts.owners; i < end; i += 2) {
      out.set(json.strings[state[i]], json.strings[state[i + 1]]);
    }
    return out;
  });
  if (json.index) {
    const index = { promptSeat: json.index.promptSeat, toolSeat: json.index.toolSeat } as EvidenceIndex;
    for (const k of ["promptIds", "written", "returned", "grounded"] as const) lazyField(index, k, set(k));
    ev.index = index;
  }
  return { ev, restored: r };
}

/**
 * Defines `key` on `obj` as a value made on first read (or replaced by the first write), then a plain data
 * property: a session's first event reads few of its id sets, and each costs a pass over its references.
 */
function lazyField<T extends object, K extends keyof T>(obj: T, key: K, make: () => T[K]): void {
  const settle = (value: T[K]) => {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(obj, key, {
    get: () => settle(make()),
    set: (value: T[K]) => void settle(value),
    enumerable: true,
    configurable: true,
  });
}
