/**
 * The checkpoints' digest of bytes (lib/guard/ledger/checkpoint.ts), the same under Deno and Node, so a checkpoint
 * written by one runtime is used by the other: 64 bits from four lanes of xxHash32's round over 32-bit words and
 * two finalisations of their 128-bit state. 1–2 ms per 8 MB once compiled (≈ 10 ms cold under Node: the
 * resident guard's warm-up compiles it), 2–3 ms cold for 400 KB; synchronous, so a restored call can check what
 * it reads inside a rule. It detects a changed byte, not a forger. Pure.
 *
 * Why not SHA-256 (measured, bench/latency.ts's ledger): node:crypto's first hash of 434 KB takes 2.4 ms in a
 * fresh Node process (this one cold 2.2–3.0 ms) and 8 MB 3.9 ms warm (this one ≈ 2 ms, which a resident guard
 * pays at each session load); Deno has SHA-256 natively only as WebCrypto's asynchronous `crypto.subtle.digest`
 * (0.3 ms to start, 0.2 ms for 350 KB) or through node:crypto, whose node-compat start-up costs a hook more than
 * either, and a restored call's lazy check needs a synchronous hash in both.
 */

const P1 = 0x9e3779b1, P2 = 0x85ebca77, P3 = 0xc2b2ae3d, P4 = 0x27d4eb2f, P5 = 0x165667b1;

/** One lane's round: the lane's value after taking a word. */
function round(lane: number, word: number): number {
  const v = (lane + Math.imul(word, P2)) | 0;
  return Math.imul((v << 13) | (v >>> 19), P1);
}

/** xxHash32's avalanche of a 32-bit value. */
function avalanche(h: number): number {
  h ^= h >>> 15;
  h = Math.imul(h, P2);
  h ^= h >>> 13;
  h = Math.imul(h, P3);
  return (h ^ (h >>> 16)) >>> 0;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Bytes per stripe: one word for each of the four lanes. */
const STRIPE = 16;

/**
 * The digest of bytes given in parts (`update`, then `finish`): the same as `digest` of their concatenation, so
 * a long file is digested a chunk at a time, never held whole.
 */
export class Digest {
  #v = [(P1 + P2) | 0, P2, 0, -P1 | 0];
  #length = 0;
  /** Bytes short of a stripe, carried to the next part. */
  #carry = new Uint8Array(STRIPE);
  #carried = 0;

  /** Takes the next part. */
  update(bytes: Uint8Array): this {
    this.#length += bytes.length;
    let from = 0;
    if (this.#carried) {
      from = Math.min(STRIPE - this.#carried, bytes.length);
      this.#carry.set(bytes.subarray(0, from), this.#carried);
      this.#carried += from;
      if (this.#carried < STRIPE) return this;
      this.#stripes(words32(this.#carry));
      this.#carried = 0;
    }
    const whole = (bytes.length - from) & ~(STRIPE - 1);
    this.#stripes(words32(bytes.subarray(from, from + whole)));
    this.#carried = bytes.length - from - whole;
    this.#carry.set(bytes.subarray(from + whole));
    return this;
  }

  /** Folds whole stripes into the lanes. */
  #stripes(w: Uint32Array): void {
    let [v1, v2, v3, v4] = this.#v;
    for (let i = 0; i < w.length; i += 4) {
      v1 = round(v1, w[i]);
      v2 = round(v2, w[i + 1]);
      v3 = round(v3, w[i + 2]);
      v4 = round(v4, w[i + 3]);
    }
    this.#v = [v1, v2, v3, v4];
  }

  /** The digest as 16 hex digits (the same under every runtime and byte order). */
  finish(): string {
    const [v1, v2, v3, v4] = this.#v;
    const length = this.#length;
    const rest = this.#carry.subarray(0, this.#carried);
    const w = words32(rest);
    let a = (((v1 << 1) | (v1 >>> 31)) + ((v2 << 7) | (v2 >>> 25)) + ((v3 << 12) | (v3 >>> 20)) +
      ((v4 << 18) | (v4 >>> 14)) + length) | 0;
    let b = (((v4 << 3) | (v4 >>> 29)) ^ ((v3 << 11) | (v3 >>> 21)) ^ ((v2 << 17) | (v2 >>> 15)) ^ v1 ^ P5) |
      0;
    for (let i = 0; i < w.length; i++) {
      a = round(a ^ P3, w[i]);
      b = round(b ^ P4, w[i]);
    }
    for (let k = w.length * 4; k < rest.length; k++) {
      a = round(a ^ P5, rest[k]);
      b = round(b ^ P1, rest[k]);
    }
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    return hex(avalanche(a)) + hex(avalanche(b ^ length));
  }
}

/** The bytes' whole 32-bit words, little-endian whatever the machine: a view when aligned, else a copy. */
function words32(bytes: Uint8Array): Uint32Array {
  const n = bytes.length >>> 2;
  if (LITTLE_ENDIAN) {
    return bytes.byteOffset % 4 === 0
      ? new Uint32Array(bytes.buffer, bytes.byteOffset, n)
      : new Uint32Array(bytes.slice(0, n * 4).buffer);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Uint32Array.from({ length: n }, (_, i) => view.getUint32(i * 4, true));
}

/** The bytes' digest as 16 hex digits (the same under every runtime and byte order). */
export function digest(bytes: Uint8Array): string {
  return new Digest().update(bytes).finish();
}
