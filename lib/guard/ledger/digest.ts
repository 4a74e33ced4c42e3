/**
 * The checkpoints' digest of bytes (lib/guard/ledger/checkpoint.ts): SHA-256 from `node:crypto`, a standard
 * digest with published test vectors (tests/digest.ts checks FIPS 180-2's), synchronous under Deno and Node
 * alike, so a checkpoint written by one runtime is used by the other and a restored call checks what it reads
 * inside a rule. It detects a changed byte; it does not stop a forger who can recompute it.
 */
import { createHash, type Hash } from "node:crypto";

/** The algorithm's name, as a checkpoint header records it. */
export const DIGEST_NAME = "sha256";

/**
 * The digest of bytes given in parts (`update`, then `finish`): the same as `digest` of their concatenation, so
 * a long file is digested a chunk at a time, never held whole.
 */
export class Digest {
  #hash: Hash = createHash(DIGEST_NAME);

  /** Takes the next part. */
  update(bytes: Uint8Array): this {
    this.#hash.update(bytes);
    return this;
  }

  /** The digest as 64 hex digits. */
  finish(): string {
    return this.#hash.digest("hex");
  }
}

/** The bytes' digest as 64 hex digits. */
export function digest(bytes: Uint8Array): string {
  return createHash(DIGEST_NAME).update(bytes).digest("hex");
}
