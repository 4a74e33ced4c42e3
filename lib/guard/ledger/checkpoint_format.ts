/**
 * How a checkpoint holds folded evidence (lib/guard/ledger/checkpoint.ts): a small JSON part and one data file. The
 * JSON part has the scalars, the block-budget counts, the table of every id string once, and the tool names.
 * The data file has three regions: unsigned 32-bit integers (the id sets, owners, and per call its tool,
 * flags and where its metadata, text and ids end), then each call's metadata (`[id, input, error, object]` as
 * JSON), then the calls' texts. A restored call reads its metadata or text only when a rule first asks, and
 * each region is decoded once, whole, on the first such read, and each id set or map is built on its first
 * read. So loading a 10k-record session parses the JSON part and reads the integers, nothing more (issue 20:
 * the first event of a session ≤ 20 ms).
 *
 * Pure: the data file is read through the function the caller passes. Throws on anything inconsistent, and
 * the caller then reads the ledger instead.
 */
import type { CallRecord, Evidence, EvidenceIndex } from "../engine/evidence.ts";
import type { Phase, Seat } from "../engine/seat.ts";

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
  /** Every id string, once; the integers refer to them by position. */
  strings: string[];
  tools: string[];
  /** How many integers each list holds (owners: pairs; calls: five per call). */
  counts: Record<(typeof LISTS)[number], number>;
  /** Byte lengths of the data file's regions: integers, metadata, texts. */
  regions: [number, number, number];
  /** The integers' byte order (a checkpoint is read by the machine that wrote it). */
  endian: "le" | "be";
}

/** The integer lists, in the data file's order. */
const LISTS = ["seen", "owners", "promptIds", "written", "returned", "grounded", "calls", "callIds"] as const;
/** Integers per call: tool, flags, and the ends of its metadata, text and ids. */
const PER_CALL = 5;
/** Call flags. */
const OK = 1, PARSED = 2, SIDECHAIN = 4, ERROR = 8, OBJECT = 16, IDS = 32, TEXT_JSON = 64;

const ENDIAN: "le" | "be" = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? "le" : "be";

/** Encoded evidence: the JSON part and the data file's bytes. */
export interface EncodedEvidence {
  json: EvidenceJson;
  data: Uint8Array;
}

/** Encodes evidence. Reads every call's text (a held call then keeps only its text, as after any text read). */
export function encodeEvidence(ev: Evidence): EncodedEvidence {
  const strings: string[] = [];
  const refs = new Map<string, number>();
  const ref = (s: string) => {
    let i = refs.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      refs.set(s, i);
    }
    return i;
  };
  const tools: string[] = [];
  const toolRefs = new Map<string, number>();
  const ints: Record<(typeof LISTS)[number], number[]> = {
    seen: [...ev.seen].map(ref),
    owners: [...ev.owners].flatMap(([k, v]) => [ref(k), ref(v)]),
    promptIds: ev.index ? [...ev.index.promptIds].map(ref) : [],
    written: ev.index ? [...ev.index.written].map(ref) : [],
    returned: ev.index ? [...ev.index.returned].map(ref) : [],
    grounded: ev.index ? [...ev.index.grounded].map(ref) : [],
    calls: [],
    callIds: [],
  };
  const meta: string[] = [];
  const texts: string[] = [];
  let metaEnd = 0;
  let textEnd = 0;
  for (const c of ev.calls) {
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
    meta.push(m);
    texts.push(text);
    metaEnd += m.length;
    textEnd += text.length;
    for (const id of c.ids ?? []) ints.callIds.push(ref(id));
    const flags = (c.ok ? OK : 0) | (c.parsedText ? PARSED : 0) | (c.sidechain ? SIDECHAIN : 0) |
      (c.error !== undefined ? ERROR : 0) | (object !== undefined ? OBJECT : 0) | (c.ids ? IDS : 0) |
      (wellFormed ? 0 : TEXT_JSON);
    ints.calls.push(tool, flags, metaEnd, textEnd, ints.callIds.length);
  }
  const all = new Uint32Array(LISTS.reduce((n, k) => n + ints[k].length, 0));
  let at = 0;
  for (const k of LISTS) {
    all.set(ints[k], at);
    at += ints[k].length;
  }
  const encoder = new TextEncoder();
  const metaBytes = encoder.encode(meta.join(""));
  const textBytes = encoder.encode(texts.join(""));
  const intBytes = new Uint8Array(all.buffer);
  const data = new Uint8Array(intBytes.length + metaBytes.length + textBytes.length);
  data.set(intBytes, 0);
  data.set(metaBytes, intBytes.length);
  data.set(textBytes, intBytes.length + metaBytes.length);
  return {
    json: {
      prompt: ev.prompt,
      seat: ev.seat,
      phase: ev.phase,
      caseLock: ev.caseLock,
      stopBlocks: ev.stopBlocks,
      degraded: ev.degraded,
      denies: [...ev.denies],
      index: ev.index ? { promptSeat: ev.index.promptSeat, toolSeat: ev.index.toolSeat } : null,
      strings,
      tools,
      counts: Object.fromEntries(LISTS.map((k) => [k, ints[k].length])) as EvidenceJson["counts"],
      regions: [intBytes.length, metaBytes.length, textBytes.length],
      endian: ENDIAN,
    },
    data,
  };
}

/** The data file's bytes from `start` (`bytes` of them), as the caller reads them. */
export type ReadData = (start: number, bytes: number) => Uint8Array;

/** What restored calls share: the integers, and each region decoded once, on first use. */
class Restored {
  #meta?: string;
  #texts?: string;
  constructor(
    readonly json: EvidenceJson,
    readonly ints: Uint32Array,
    readonly callsAt: number,
    readonly idsAt: number,
    readonly read: ReadData,
  ) {}
  meta(): string {
    return (this.#meta ??= new TextDecoder().decode(this.read(this.json.regions[0], this.json.regions[1])));
  }
  texts(): string {
    const [ints, meta, texts] = this.json.regions;
    return (this.#texts ??= new TextDecoder().decode(this.read(ints + meta, texts)));
  }
  /** Integer `k` of call `i`. */
  at(i: number, k: number): number {
    return this.ints[this.callsAt + i * PER_CALL + k];
  }
  /** Where call `i`'s span of a region (2: metadata, 3: text, 4: ids) starts. */
  start(i: number, k: number): number {
    return i === 0 ? 0 : this.at(i - 1, k);
  }
}

/** A call of restored evidence: two fields; everything else is read from the shared integers when asked. */
class RestoredCall implements CallRecord {
  #r: Restored;
  #i: number;
  #meta?: [string, Record<string, unknown>, string | null, unknown];
  #text?: string;

  constructor(r: Restored, i: number) {
    this.#r = r;
    this.#i = i;
  }
  get tool(): string {
    return this.#r.json.tools[this.#r.at(this.#i, 0)];
  }
  get ok(): boolean {
    return (this.#r.at(this.#i, 1) & OK) !== 0;
  }
  get sidechain(): boolean {
    return (this.#r.at(this.#i, 1) & SIDECHAIN) !== 0;
  }
  get parsedText(): true | undefined {
    return this.#r.at(this.#i, 1) & PARSED ? true : undefined;
  }
  #m() {
    return (this.#meta ??= JSON.parse(
      this.#r.meta().slice(this.#r.start(this.#i, 2), this.#r.at(this.#i, 2)),
    ));
  }
  get id(): string {
    return this.#m()[0];
  }
  get input(): Record<string, unknown> {
    return this.#m()[1];
  }
  get error(): string | undefined {
    return this.#r.at(this.#i, 1) & ERROR ? this.#m()[2] ?? undefined : undefined;
  }
  get result(): unknown {
    if (this.parsedText) return JSON.parse(this.text);
    return this.#r.at(this.#i, 1) & OBJECT ? this.#m()[3] : undefined;
  }
  get text(): string {
    if (this.#text === undefined) {
      const raw = this.#r.texts().slice(this.#r.start(this.#i, 3), this.#r.at(this.#i, 3));
      this.#text = this.#r.at(this.#i, 1) & TEXT_JSON ? JSON.parse(raw) as string : raw;
    }
    return this.#text;
  }
  get ids(): string[] | undefined {
    if (!(this.#r.at(this.#i, 1) & IDS)) return undefined;
    const { ints, idsAt, json } = this.#r;
    const refs = ints.subarray(idsAt + this.#r.start(this.#i, 4), idsAt + this.#r.at(this.#i, 4));
    return Array.from(refs, (k) => json.strings[k]);
  }
}

/** The evidence encoded as `json` and the data file `read` reads; throws when the two do not agree. */
export function decodeEvidence(json: EvidenceJson, read: ReadData): Evidence {
  if (json.endian !== ENDIAN) throw new Error("checkpoint written with the other byte order");
  const bytes = read(0, json.regions[0]);
  const total = LISTS.reduce((n, k) => n + json.counts[k], 0);
  if (bytes.length !== total * 4 || json.counts.calls % PER_CALL || json.counts.owners % 2) {
    throw new Error("checkpoint integers do not match their counts");
  }
  // A view of the bytes as read (a fresh buffer); a copy only when they do not start on a 4-byte boundary.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const ints = new Uint32Array(aligned.buffer, aligned.byteOffset, total);
  const starts: Record<string, number> = {};
  let at = 0;
  for (const k of LISTS) {
    starts[k] = at;
    at += json.counts[k];
  }
  const strings = json.strings;
  // Every id reference in range (the sets are made only when first read).
  if (
    largest(ints, 0, starts.calls) >= strings.length || largest(ints, starts.callIds, total) >= strings.length
  ) {
    throw new Error("checkpoint id out of range");
  }
  if (!strings.every((id) => typeof id === "string")) {
    throw new Error("checkpoint id table holds a non-string");
  }
  const refs = (k: (typeof LISTS)[number]) => ints.subarray(starts[k], starts[k] + json.counts[k]);
  const idSet = (k: (typeof LISTS)[number]) => {
    const out = new Set<string>();
    for (const i of refs(k)) out.add(strings[i]);
    return out;
  };
  const calls = json.counts.calls / PER_CALL;
  const r = new Restored(json, ints, starts.calls, starts.callIds, read);
  // Every call's tool in range and its spans in order, within their regions, before any is used.
  let meta = 0, text = 0, ids = 0;
  for (let i = 0, at = starts.calls; i < calls; i++, at += PER_CALL) {
    if (ints[at] >= json.tools.length || ints[at + 2] < meta || ints[at + 3] < text || ints[at + 4] < ids) {
      throw new Error("checkpoint calls out of order");
    }
    meta = ints[at + 2];
    text = ints[at + 3];
    ids = ints[at + 4];
  }
  if (ids !== json.counts.callIds || meta > json.regions[1] || text > json.regions[2]) {
    throw new Error("checkpoint calls overrun their regions");
  }
  const ev = {
    prompt: json.prompt,
    seat: json.seat,
    phase: json.phase,
    calls: restoredCalls(r, calls),
    caseLock: json.caseLock,
    denies: new Map(json.denies),
    stopBlocks: json.stopBlocks,
    degraded: json.degraded,
  } as Evidence;
  lazyField(ev, "seen", () => idSet("seen"));
  lazyField(ev, "owners", () => {
    const pairs = refs("owners");
    const out = new Map<string, string>();
    for (let i = 0; i + 1 < pairs.length; i += 2) out.set(strings[pairs[i]], strings[pairs[i + 1]]);
    return out;
  });
  if (json.index) {
    const index = { promptSeat: json.index.promptSeat, toolSeat: json.index.toolSeat } as EvidenceIndex;
    for (const k of ["promptIds", "written", "returned", "grounded"] as const) {
      lazyField(index, k, () => idSet(k));
    }
    ev.index = index;
  }
  return ev;
}

/** The largest of `ints[from..to)` (-1 for none), by the built-in `Math.max` in chunks: it runs cold, once. */
function largest(ints: Uint32Array, from: number, to: number): number {
  let out = -1;
  for (let i = from; i < to; i += 8192) {
    out = Math.max(
      out,
      Math.max.apply(null, ints.subarray(i, Math.min(to, i + 8192)) as unknown as number[]),
    );
  }
  return out;
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

function restoredCalls(r: Restored, count: number): CallRecord[] {
  const out: CallRecord[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = new RestoredCall(r, i);
  return out;
}
