/**
 * The ledger's chain (issue 40). Every record a guard of ledger format 2 writes ends with two fields: `p`, the
 * link of the line before it as its writer found the file, and `c`, an HMAC-SHA256 of `p` and the record's own
 * text under the trial's chain key (derived from `guard.key`, which `guard up` makes). A line's link is its `c`,
 * or, for a line that is not a chained record (junk, a line cut short, a record of format 1), the SHA-256 of its
 * last `LINK_CHARS` characters; the first line of a file links to `GENESIS`.
 *
 * A reader walks a file's lines in order (`ChainCheck`). A line is trusted when its `c` is right under the key
 * and its `p` is the link of one of the `WINDOW` lines before it (hook processes that append at the same
 * instant may both find the same predecessor) and repeats none of theirs. So a line edited, forged, copied from
 * elsewhere in the ledger or another session, or put back out of order is not trusted, nor is the first record
 * after lines deleted or cut from the middle; every later record of the guard's links to what it found and is.
 * Records of format 1 (no `p`, `c`) are trusted only in a file with no chained line (a ledger from before the
 * chain); in a file with one they are forged.
 *
 * What a keyed chain proves depends on where the key is. In a trial the agent is root in the container, so it
 * can read `guard.key` (GUARD-01 refuses a tool call that names it; a script it wrote can still read it): a
 * forger who has the key can seal records of its own. Without it, the chain makes every edit, insertion,
 * deletion and reordering visible to `verify` and untrusted by the fold; a cut at the end shows only against an
 * anchor (the resident guard's own head in memory, a keyed checkpoint, the trajectory's calls).
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac, type Hash } from "node:crypto";
import * as io from "../io.ts";

/** The trial's key file, in the ledger dir (made by `guard up` and the resident guard: lib/guard/resident/key.ts). */
export const KEY_FILE = "guard.key";
const KEY = /^[0-9a-f]{64}$/;

/** The ledger format a record of this guard is written in (1: before the chain). */
export const LEDGER_VERSION = 2;

/** The link before a file's first line. */
export const GENESIS = "0".repeat(64);

/** Lines before a record whose links its `p` may be (concurrent appends). */
export const WINDOW = 8;

/** Characters of a line that is not a chained record its link is the digest of. */
export const LINK_CHARS = 1024;

/** Bytes of a ledger's end a writer reads to find the link of its last line (holds `LINK_CHARS` whole). */
export const TAIL_BYTES = 8192;

/** The chain key of a ledger dir with no `guard.key` (tests, the agent loop, replay): detects, proves nothing. */
export const UNKEYED = "fiable-guard/unkeyed";

/** `,"p":"<64 hex>","c":"<64 hex>"}`, the end of every chained line. */
const TRAILER = /^,"p":"([0-9a-f]{64})","c":"([0-9a-f]{64})"\}$/;
const TRAILER_LENGTH = 143;

/** The key in the ledger dir: a regular file of 64 hex digits, never read through a link; else null. */
export function readKey(ledgerDir: string): string | null {
  try {
    const text = new TextDecoder().decode(io.readBytes(io.joinPath(ledgerDir, KEY_FILE), 0, 80)).trim();
    return KEY.test(text) ? text : null;
  } catch {
    return null;
  }
}

/** The chain key derived from a trial key (the hook secret is derived apart: neither gives the other). */
export function chainKey(trialKey: string | null): string {
  return trialKey ? createHmac("sha256", trialKey).update("fiable-guard/chain/2").digest("hex") : UNKEYED;
}

const known = new Map<string, string>();

/**
 * A ledger dir's chain key: from its `guard.key`, kept for the life of the process once read (a key replaced
 * behind a running guard's back does not change what it writes or trusts), else `UNKEYED`.
 */
export function chainKeyOf(dir: string): string {
  const kept = known.get(dir);
  if (kept) return kept;
  const trial = readKey(dir);
  if (!trial) return UNKEYED;
  const key = chainKey(trial);
  if (known.size >= 64) known.clear();
  known.set(dir, key);
  return key;
}

/**
 * HMAC-SHA256 under one key (RFC 2104), its inner and outer hash states keyed once and copied for each message:
 * the bytes `createHmac` gives (tests/chain.ts), at a third of its cost under Deno, whose `createHmac` sets a
 * key up for every call (≈ 17 µs against 6 µs a record; under Node both ≈ 5 µs).
 */
export class Hmac256 {
  readonly #inner: Hash;
  readonly #outer: Hash;

  constructor(key: string) {
    const raw = Buffer.from(key, "utf8");
    const k = raw.length > 64 ? new Uint8Array(createHash("sha256").update(raw).digest()) : raw;
    const ipad = Buffer.alloc(64, 0x36);
    const opad = Buffer.alloc(64, 0x5c);
    for (let i = 0; i < k.length; i++) {
      ipad[i] ^= k[i];
      opad[i] ^= k[i];
    }
    this.#inner = createHash("sha256").update(ipad);
    this.#outer = createHash("sha256").update(opad);
  }

  /** The HMAC of the parts, one after another, as 64 hex digits. */
  hex(...parts: (string | Uint8Array)[]): string {
    const inner = this.#inner.copy();
    for (const part of parts) inner.update(part);
    return this.#outer.copy().update(inner.digest()).digest("hex");
  }
}

const macs = new Map<string, Hmac256>();

/** The HMAC under a key (its states kept for the process: a guard uses one or two keys). */
export function hmacOf(key: string): Hmac256 {
  let m = macs.get(key);
  if (!m) {
    if (macs.size >= 16) macs.clear();
    macs.set(key, m = new Hmac256(key));
  }
  return m;
}

/**
 * Forgets the keys and HMAC states the process kept: the start-up snapshot's build calls it after its warm-up
 * (lib/guard/runtime/snapshot.ts), since a snapshot can hold no native hash object and must hold no key.
 */
export function forgetKeys(): void {
  known.clear();
  macs.clear();
}

function mac(key: string, p: string, json: string): string {
  return hmacOf(key).hex(`${p}\n`, json);
}

/** A record's JSON text chained after the link `p`: its line (no newline) and its own link `c`. */
export function seal(json: string, p: string, key: string): { line: string; c: string } {
  const c = mac(key, p, json);
  return { line: `${json.slice(0, -1)},"p":"${p}","c":"${c}"}`, c };
}

/** A chained line's record text without `p` and `c`, and those two; null for any other line. */
export function unseal(line: string): { json: string; p: string; c: string } | null {
  if (line.length < TRAILER_LENGTH + 2) return null;
  const m = TRAILER.exec(line.slice(-TRAILER_LENGTH));
  return m ? { json: line.slice(0, -TRAILER_LENGTH) + "}", p: m[1], c: m[2] } : null;
}

/** A line's link: its `c` when it is chained, else the digest of its last `LINK_CHARS` characters. */
export function linkOf(line: string): string {
  const sealed = unseal(line);
  return sealed ? sealed.c : createHash("sha256").update(line.slice(-LINK_CHARS)).digest("hex");
}

/**
 * The link a record appended now chains to, from the file's last `TAIL_BYTES` (all of it when shorter): the
 * link of its last line, the part after the last newline when the file does not end with one (the append
 * puts a newline first), or `GENESIS` for an empty file.
 */
export function tailLink(tail: Uint8Array): string {
  if (!tail.length) return GENESIS;
  let text = new TextDecoder().decode(tail);
  if (text.endsWith("\n")) text = text.slice(0, -1);
  return linkOf(text.slice(text.lastIndexOf("\n") + 1));
}

/**
 * What a line is to the chain: `linked` (trusted), `legacy` (a record of format 1: trusted only in a file with
 * no chained line), or untrusted: `forged` (chained, but its `c` is not right under the key: edited, or sealed
 * without the key), `unlinked` (its `p` is no link of the lines before it: lines before it were deleted or cut,
 * or it was moved or copied here), `duplicate` (it repeats a line just before it), `junk` (no record).
 */
export type LineKind = "linked" | "legacy" | "forged" | "unlinked" | "duplicate" | "junk";

/** Where a check starts: at a file's first line, or after the lines a checkpoint folded (their last links). */
export interface ChainStart {
  links: string[];
  /** A chained line came before: records of format 1 are forged from here on. */
  chained: boolean;
}

/** Checks a file's lines in order against the chain (see the module's header). */
export class ChainCheck {
  readonly #key: string;
  #links: string[];
  #chained: boolean;
  /** At a file's start: a record may link to `GENESIS` until a chained line was met. */
  #atStart: boolean;
  /** After a gap: the next chained line with a right `c` is taken as linked. */
  #afterGap = false;

  constructor(key: string, start?: ChainStart) {
    this.#key = key;
    this.#links = start ? start.links.slice(-WINDOW) : [];
    this.#chained = start?.chained ?? false;
    this.#atStart = !start || (!start.chained && start.links.length === 0);
  }

  /** True once a chained line was met (records of format 1 are then forged). */
  get chained(): boolean {
    return this.#chained;
  }

  /** Where the next line is checked from (a checkpoint keeps it). */
  start(): ChainStart {
    return { links: [...this.#links], chained: this.#chained };
  }

  /** Lines are missing before the next one (a ledger read in part): its next chained line starts anew. */
  gap(): void {
    this.#links = [];
    this.#afterGap = true;
  }

  /**
   * The next line (no newline). `record` says whether it parses as a record, when the caller knows; `mac`
   * false skips the key check of a line the caller will not fold (an allowed `pre`: only its successors'
   * links need it).
   */
  line(text: string, options: { record?: boolean; mac?: boolean } = {}): LineKind {
    const sealed = unseal(text);
    let kind: LineKind;
    if (!sealed) {
      const record = options.record ?? isRecordText(text);
      kind = !record ? "junk" : this.#chained ? "forged" : "legacy";
    } else if (options.mac !== false && mac(this.#key, sealed.p, sealed.json) !== sealed.c) kind = "forged";
    else if (this.#links.includes(sealed.c)) kind = "duplicate";
    else if (
      this.#afterGap || this.#links.includes(sealed.p) ||
      (this.#atStart && !this.#chained && sealed.p === GENESIS)
    ) kind = "linked";
    else kind = "unlinked";
    if (sealed) {
      this.#chained = true;
      this.#afterGap = false;
    }
    this.#links.push(sealed ? sealed.c : linkOf(text));
    if (this.#links.length > WINDOW) this.#links.shift();
    return kind;
  }
}

/** True for text that parses as a ledger record (an object with an `event`). */
function isRecordText(text: string): boolean {
  try {
    const value = JSON.parse(text);
    return Boolean(value) && typeof value === "object" && typeof value.event === "string";
  } catch {
    return false;
  }
}

/** True for a kind whose record the fold may use (`legacy` only where the file turns out unchained). */
export function trusted(kind: LineKind): boolean {
  return kind === "linked" || kind === "legacy";
}
