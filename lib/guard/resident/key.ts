/**
 * How a resident guard proves it is the one this trial started. The trial's ledger dir holds a random key
 * (`guard.key`, rw-------, made by whichever of `up`, `serve` or the SessionStart check comes first); a probe
 * sends a fresh challenge with `GET /health?challenge=…` and the guard answers an HMAC of the challenge, its
 * arm and its ledger dir under that key. A listener that cannot read the ledger dir cannot answer, so it is
 * never reused; the key is worth nothing once the trial's guard is gone.
 */
import { Buffer } from "node:buffer";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { closeSync, constants, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import * as io from "../io.ts";

/** The key file, in the ledger dir. */
export const KEY_FILE = "guard.key";
const KEY = /^[0-9a-f]{64}$/;
/** A challenge: 16 to 128 hex digits. */
const CHALLENGE = /^[0-9a-f]{16,128}$/;

/** The key in the ledger dir: a regular file of 64 hex digits, never read through a link; else null. */
export function readKey(ledgerDir: string): string | null {
  try {
    const text = new TextDecoder().decode(io.readBytes(join(ledgerDir, KEY_FILE), 0, 80)).trim();
    return KEY.test(text) ? text : null;
  } catch {
    return null;
  }
}

/**
 * The ledger dir's key, made when it has none: written whole to a temp file of an unpredictable name, then
 * linked into place (so two processes racing agree on the first one), or renamed over a file that is not a key.
 */
export function trialKey(ledgerDir: string): string {
  const found = readKey(ledgerDir);
  if (found) return found;
  mkdirSync(ledgerDir, { recursive: true });
  const key = randomBytes(32).toString("hex");
  const temp = join(ledgerDir, `${KEY_FILE}.${randomBytes(8).toString("hex")}.tmp`);
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, key + "\n");
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, join(ledgerDir, KEY_FILE));
  } catch {
    const raced = readKey(ledgerDir);
    if (raced) {
      rmSync(temp, { force: true });
      return raced;
    }
    renameSync(temp, join(ledgerDir, KEY_FILE));
    return key;
  }
  rmSync(temp, { force: true });
  return key;
}

/**
 * The trial's hook secret: what every http hook sends and the resident guard requires (issue 40), derived from
 * the trial's key so each `up` of the trial, and a guard the SessionStart check starts, agree on it.
 */
export function hookToken(key: string): string {
  return createHmac("sha256", key).update("fiable-guard/hooks").digest("hex");
}

/** A fresh challenge for one probe. */
export function newChallenge(): string {
  return randomBytes(16).toString("hex");
}

/** The guard's answer to a challenge: HMAC-SHA256 over the challenge, its arm and its ledger dir. */
export function proofOf(key: string, challenge: string, arm: string, ledgerDir: string): string {
  return createHmac("sha256", key).update(`fiable-guard/1\n${challenge}\n${arm}\n${ledgerDir}`).digest("hex");
}

/** The proof for a `/health` request's challenge, or undefined when it carries none (or a malformed one). */
export function answerChallenge(
  url: string,
  key: string | null,
  arm: string,
  ledgerDir: string,
): string | undefined {
  const challenge = /[?&]challenge=([^&]*)/.exec(url)?.[1];
  if (!key || !challenge || !CHALLENGE.test(challenge)) return undefined;
  return proofOf(key, challenge, arm, ledgerDir);
}

/** True when `proof` is the right answer to `challenge` for this arm and ledger dir. */
export function proves(
  proof: unknown,
  expected: { key: string; challenge: string; arm: string; ledgerDir: string },
): boolean {
  if (typeof proof !== "string") return false;
  const want = Buffer.from(proofOf(expected.key, expected.challenge, expected.arm, expected.ledgerDir));
  const given = Buffer.from(proof);
  return given.length === want.length && timingSafeEqual(given, want);
}
