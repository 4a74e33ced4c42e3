/**
 * Secret detection and redaction: no secret may reach a profile, a prompt, a ledger or a log line. Bounded
 * on hostile input: token runs longer than `MAX_TOKEN` are replaced whole in one linear scan (a regex
 * quantifier over a 7 MB run overflows irregexp's backtrack stack), and `redact` stops at `MAX_DEPTH`.
 */

/** Value shapes of well-known credentials (each bounded so no quantifier backtracks over long input). */
const SECRET_SHAPES: [string, RegExp][] = [
  ["Anthropic key", /sk-ant-[A-Za-z0-9_-]{16,}/],
  ["OpenAI key", /sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/],
  ["Hugging Face token", /hf_[A-Za-z0-9]{20,}/],
  ["GitHub token", /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}/],
  ["AWS access key", /(?:AKIA|ASIA)[0-9A-Z]{16}/],
  ["JSON web token", /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
  ["bearer token", /Bearer\s{1,8}[A-Za-z0-9._~+/-]{20,}/],
  ["hex token", /(?<![A-Za-z0-9])[0-9a-fA-F]{40,}(?![A-Za-z0-9])/],
];

/** Profile keys whose literal values are treated as secrets (only `${ENV_NAME}` references are allowed there). */
export const SECRET_KEY = /token|secret|key|password|passwd|credential/i;

/**
 * Keys in tool data whose string values are redacted whatever their shape, case-insensitively. Narrower
 * than `SECRET_KEY`: `authorization_number`, `auth_type`, `author_id` and `token_usage` are data.
 */
const DATA_SECRET_KEY = new RegExp(
  [
    "^(?:auth|authorization|bearer|cookie|set[_-]?cookie|token|jwt|session[_-]?key|x[_-]api[_-]key)$",
    "api[_-]?key|secret|password|passwd|passphrase|credential|private[_-]?key",
    "(?:^|[_-])(?:access|auth|refresh|id|session|bearer|api)[_-]?token$",
  ].join("|"),
  "i",
);

/** Longest token run given to the shape regexes; a longer run of token characters is redacted whole. */
export const MAX_TOKEN = 4096;
/** Deepest nesting `redact` walks; anything deeper is replaced by a marker. */
export const MAX_DEPTH = 64;

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
  return value.length <= MAX_TOKEN && /^[A-Za-z0-9+/=_-]{32,}$/.test(value) && /\d/.test(value) &&
    /[a-z]/.test(value) && /[A-Z]/.test(value) && entropy(value) >= 4.2;
}

/** The kind of secret a value looks like, or null. */
export function secretKind(value: string): string | null {
  const bounded = withoutLongTokens(value);
  if (bounded !== value) return "long token";
  for (const [kind, shape] of SECRET_SHAPES) if (shape.test(value)) return kind;
  for (const word of value.split(/[\s"',;:=]+/)) if (isHighEntropyToken(word)) return "high-entropy token";
  return null;
}

const REDACTED = "[redacted]";

/** True for a character of a token run: base64, base64url, hex, JWT and key alphabets. */
function isTokenChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) ||
    code === 43 || code === 45 || code === 46 || code === 47 || code === 61 || code === 95 || code === 126;
}

/** The text with every run of token characters longer than `MAX_TOKEN` replaced by a marker; linear. */
function withoutLongTokens(text: string): string {
  if (text.length <= MAX_TOKEN) return text;
  let out = "";
  let kept = 0;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && isTokenChar(text.charCodeAt(i))) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start > MAX_TOKEN) {
      out += text.slice(kept, start) + `[redacted: ${i - start}-character token]`;
      kept = i;
    }
    start = -1;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** The text with every secret-shaped substring replaced by `[redacted]`. */
export function redactText(text: string): string {
  let out = withoutLongTokens(text);
  for (const [, shape] of SECRET_SHAPES) out = out.replace(new RegExp(shape.source, "g"), REDACTED);
  // The lookbehind starts a match only where a run starts (same matches, half the scanning on long results).
  return out.replace(
    /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}/g,
    (w) => isHighEntropyToken(w) ? REDACTED : w,
  );
}

/** What `redact` reports besides the copy: whether it cut nesting deeper than `MAX_DEPTH`. */
export interface RedactState {
  deep: boolean;
}

/**
 * A deep copy with secret-shaped strings and literal values under secret-named keys redacted. Nesting
 * deeper than `MAX_DEPTH` is replaced by a marker and flagged on `state` (the caller marks its record degraded).
 */
export function redact(value: unknown, key = "", state: RedactState = { deep: false }, depth = 0): unknown {
  if (typeof value === "string") {
    return DATA_SECRET_KEY.test(key) && value && !/^\$\{[A-Z0-9_]+\}$/.test(value)
      ? REDACTED
      : redactText(value);
  }
  if (!value || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) {
    state.deep = true;
    return `[truncated: nested deeper than ${MAX_DEPTH}]`;
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, key, state, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redact(v, k, state, depth + 1);
  return out;
}
