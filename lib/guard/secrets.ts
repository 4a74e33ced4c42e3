/** Secret detection and redaction: no secret may reach a profile, a prompt, a ledger or a log line. */

/** Value shapes of well-known credentials. */
const SECRET_SHAPES: [string, RegExp][] = [
  ["Anthropic key", /sk-ant-[A-Za-z0-9_-]{16,}/],
  ["OpenAI key", /sk-(?:proj-)?[A-Za-z0-9_-]{20,}/],
  ["Hugging Face token", /hf_[A-Za-z0-9]{20,}/],
  ["GitHub token", /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}/],
  ["AWS access key", /(?:AKIA|ASIA)[0-9A-Z]{16}/],
  ["bearer token", /Bearer\s+[A-Za-z0-9._~+/-]{20,}/],
];

/** Profile keys whose literal values are treated as secrets (only `${ENV_NAME}` references are allowed there). */
export const SECRET_KEY = /token|secret|key|password|passwd|credential/i;

/** Keys in tool data whose values are redacted whatever their shape (narrower: `authorization_number` is data). */
const DATA_SECRET_KEY =
  /api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token|^token$|credential/i;

/** Shannon entropy in bits per character. */
function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/** True for a long high-entropy token with no spaces (a random key rather than a word or an id). */
function isHighEntropyToken(value: string): boolean {
  return /^[A-Za-z0-9+/=_-]{32,}$/.test(value) && /\d/.test(value) && /[a-z]/.test(value) &&
    /[A-Z]/.test(value) && entropy(value) >= 4.2;
}

/** The kind of secret a value looks like, or null. */
export function secretKind(value: string): string | null {
  for (const [kind, shape] of SECRET_SHAPES) if (shape.test(value)) return kind;
  for (const word of value.split(/[\s"',;:=]+/)) if (isHighEntropyToken(word)) return "high-entropy token";
  return null;
}

const REDACTED = "[redacted]";

/** The text with every secret-shaped substring replaced by `[redacted]`. */
export function redactText(text: string): string {
  let out = text;
  for (const [, shape] of SECRET_SHAPES) out = out.replace(new RegExp(shape.source, "g"), REDACTED);
  // The lookbehind starts a match only where a run starts (same matches, half the scanning on long results).
  return out.replace(
    /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}/g,
    (w) => isHighEntropyToken(w) ? REDACTED : w,
  );
}

/** A deep copy with secret-shaped strings and literal values under secret-named keys redacted. */
export function redact(value: unknown, key = ""): unknown {
  if (typeof value === "string") {
    return DATA_SECRET_KEY.test(key) && value && !/^\$\{[A-Z0-9_]+\}$/.test(value)
      ? REDACTED
      : redactText(value);
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, key));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redact(v, k);
    return out;
  }
  return value;
}
