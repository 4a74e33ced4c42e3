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
];

/** A hex token (a SHA-1 or longer key); looked for only inside token runs, where it is cheap to find. */
const HEX_TOKEN = /(?<![A-Za-z0-9])[0-9a-fA-F]{40,}(?![A-Za-z0-9])/g;

/** Profile keys whose literal values are treated as secrets (only `${ENV_NAME}` references are allowed there). */
export const SECRET_KEY = /token|secret|key|password|passwd|credential/i;

/** A whole-value reference to an environment variable, `${NAME}`: how a profile names a secret without holding it. */
export const ENV_REF = /^\$\{([A-Z_][A-Z0-9_]*)\}$/;

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
  if (new RegExp(HEX_TOKEN.source).test(value)) return "hex token";
  for (const word of value.split(/[\s"',;:=]+/)) if (isHighEntropyToken(word)) return "high-entropy token";
  return null;
}

const REDACTED = "[redacted]";

/** Token-run characters (base64, base64url, hex, JWT and key alphabets) as a lookup table over ASCII. */
const TOKEN_CHAR = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-./=_~") {
  TOKEN_CHAR[ch.charCodeAt(0)] = 1;
}

/** The text with every run of token characters longer than `MAX_TOKEN` replaced by a marker; linear. */
function withoutLongTokens(text: string): string {
  if (text.length <= MAX_TOKEN) return text;
  let out = "";
  let kept = 0;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    if (code < 128 && TOKEN_CHAR[code] === 1) {
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

/**
 * The text with every secret-shaped substring replaced by `[redacted]`, and the string values under
 * secret-named keys of any JSON it holds (plain or escaped).
 */
export function redactText(text: string): string {
  // The shortest shape is 20 characters (an AWS key id); a shorter text can only hide a secret as a JSON value.
  if (text.length < 20 && !text.includes('"')) return text;
  let out = redactJsonKeys(withoutLongTokens(text));
  // One pass per shape: each starts with a literal V8 scans for quickly (an alternation of them is slower).
  for (const shape of GLOBAL_SHAPES) out = out.replace(shape, REDACTED);
  // The lookbehind starts a match only where a run starts (same matches, half the scanning on long results).
  return out.replace(
    TOKEN_RUN,
    (w) => isHighEntropyToken(w) ? REDACTED : w.length >= 40 ? w.replace(HEX_TOKEN, REDACTED) : w,
  );
}

/** The shapes as global regexes, compiled once (`replace` resets their lastIndex, so sharing them is safe). */
const GLOBAL_SHAPES = SECRET_SHAPES.map(([, shape]) => new RegExp(shape.source, "g"));
/** A run of token characters long enough to be a random key. */
const TOKEN_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}/g;

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

/**
 * A JSON key followed by the opening quote of a string value, plain (`"token": "`) or escaped once or more
 * (`\\"token\\":\\"`, JSON held in a JSON string, as results often are). Keys are short; values are
 * scanned by hand.
 */
const JSON_STRING_ENTRY = /"([A-Za-z0-9_.-]{1,64})\\{0,8}"\s{0,8}:\s{0,8}(\\{0,8})"/g;

/** Where a string value that starts at `start` ends: its closing quote, escaped `escapes` times. */
function valueEnd(json: string, start: number, escapes: string): number {
  if (escapes) {
    const end = json.indexOf(`${escapes}"`, start);
    return end < 0 ? json.length : end;
  }
  let end = start;
  while (end < json.length && json.charCodeAt(end) !== 34) end += json.charCodeAt(end) === 92 ? 2 : 1;
  return Math.min(end, json.length);
}

/** Text with the string values under secret-named JSON keys redacted; a linear scan, no regex over values. */
function redactJsonKeys(json: string): string {
  if (!json.includes(":")) return json;
  let out = "";
  let kept = 0;
  const entries = new RegExp(JSON_STRING_ENTRY.source, "g");
  for (let m = entries.exec(json); m; m = entries.exec(json)) {
    // A value under any other key is scanned on (it may hold escaped JSON with secret keys of its own).
    if (!DATA_SECRET_KEY.test(m[1])) continue;
    const start = entries.lastIndex;
    const end = valueEnd(json, start, m[2]);
    entries.lastIndex = Math.max(end, start);
    const value = json.slice(start, end);
    if (!value || /^\$\{[A-Z0-9_]+\}$/.test(value)) continue;
    out += json.slice(kept, start) + REDACTED;
    kept = end;
  }
  return kept === 0 ? json : out + json.slice(kept);
}

/** True when a value nests objects or arrays deeper than `limit`: an iterative walk, stopping at the first. */
export function nestsDeeper(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (!node || typeof node !== "object") continue;
    if (depth >= limit) return true;
    for (const key in node) {
      const child = (node as Record<string, unknown>)[key];
      if (child && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * A value redacted and capped for a record, its work bounded by the cap: a value whose JSON fits `max`
 * characters is redacted as a tree (`redact`); a larger one becomes a marked preview of its JSON, redacted
 * as text (shapes, and the values under secret-named keys) before the cut. `state.deep` is set when the
 * value nested deeper than `MAX_DEPTH` and was cut there.
 */
export function redactCapped(value: unknown, max: number, state: RedactState = { deep: false }): unknown {
  if (value === undefined) return undefined;
  if (typeof value === "string") {
    return value.length <= max
      ? redactText(value)
      : redactText(value.slice(0, max + MAX_TOKEN)).slice(0, max) +
        "…[truncated]";
  }
  // JSON.stringify recurses natively: past a few thousand levels it overflows (Node sooner than Deno), so a
  // value nested deeper than MAX_DEPTH is cut by `redact` first, and only the cut copy is serialised.
  if (nestsDeeper(value, MAX_DEPTH)) return redactCapped(redact(value, "", state), max, state);
  const json = JSON.stringify(value) ?? "";
  if (json.length <= max) return redact(value, "", state);
  // Only the head is redacted: the margin covers a token that crosses the cut (a longer run is redacted whole).
  const head = json.slice(0, max + MAX_TOKEN);
  return { _truncated: json.length, preview: redactText(head).slice(0, max) };
}
