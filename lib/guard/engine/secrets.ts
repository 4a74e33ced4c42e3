/**
 * Secret detection and redaction: no secret may reach a profile, a prompt, a ledger or a log line. Bounded
 * on hostile input: token runs longer than `MAX_TOKEN` are replaced whole in one linear scan (a regex
 * quantifier over a 7 MB run overflows irregexp's backtrack stack), and `redact` stops at `MAX_DEPTH`.
 */
import {
  BASE64_RUN,
  HEX_ALWAYS,
  HEX_TOKEN,
  isRandomBase64,
  KEYED_SHAPES,
  PEM_BEGIN,
  PEM_END,
  type SecretShape,
  VENDOR_SHAPES,
  VENDOR_TOKENS,
} from "./secret_shapes.ts";

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

const REDACTED = "[redacted]";
/** What replaces a run of token characters too long to scan (no digit in it: ids are read from the text after). */
const LONG_TOKEN = "[redacted: long token]";

/** Token-run characters (base64, base64url, hex, JWT and key alphabets) as a lookup table over ASCII. */
const TOKEN_CHAR = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-./=_~") {
  TOKEN_CHAR[ch.charCodeAt(0)] = 1;
}

/**
 * The text with each run of token characters of 32 or more passed through `each`, in one linear scan; a run
 * longer than `MAX_TOKEN` becomes a marker instead (a quantifier over it would overflow irregexp's stack).
 */
function mapRuns(text: string, each: (run: string) => string): string {
  let out = "";
  let kept = 0;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    if (code < 128 && TOKEN_CHAR[code] === 1) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= 32) {
      const run = text.slice(start, i);
      const next = i - start > MAX_TOKEN ? LONG_TOKEN : each(run);
      if (next !== run) {
        out += text.slice(kept, start) + next;
        kept = i;
      }
    }
    start = -1;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * Which bare hex runs of 32 to 39 characters are ids to keep: those the session's evidence holds (a result or
 * the task prompt showed them), since a hex key and a hex id look alike. A result or a prompt keeps all of its
 * own (`KEEP_HEX`): it is where the evidence's ids come from.
 */
export type KeepHex = (hex: string) => boolean;
/** Keeps every bare hex id: for the text of a result or the task prompt. */
export const KEEP_HEX: KeepHex = () => true;
const KEEP_NO_HEX: KeepHex = () => false;

/** The kind of bare key a run of token characters is or holds (random base64, hex), or null. */
function bareKeyKind(run: string, keep: KeepHex): string | null {
  if (!/\d/.test(run)) return null;
  if (BASE64_RUN.test(run) && isRandomBase64(run)) return "high-entropy token";
  for (const m of run.matchAll(HEX_TOKEN)) if (m[0].length >= HEX_ALWAYS || !keep(m[0])) return "hex token";
  // A key glued to a name by `=` (`case_id=<key>` in a rule's message, `?k=<key>` in a URL), seen on its own.
  if (run.includes("=")) {
    for (const part of run.split(/=(?=[^=])/)) {
      if (part !== run && part.length >= 32 && BASE64_RUN.test(part) && isRandomBase64(part)) {
        return "glued token";
      }
    }
  }
  return null;
}

/** A run of token characters with its bare keys redacted (hex under 40 kept where `keep` says it is an id). */
function redactRun(run: string, keep: KeepHex): string {
  const kind = bareKeyKind(run, keep);
  if (kind === "high-entropy token") return run.endsWith(".") ? `${REDACTED}.` : REDACTED;
  if (kind === "glued token") {
    return run.split(/(=(?=[^=]))/).map((part) =>
      part.length >= 32 && BASE64_RUN.test(part) && isRandomBase64(part) ? REDACTED : part
    ).join("");
  }
  return kind
    ? run.replace(HEX_TOKEN, (hex) => hex.length >= HEX_ALWAYS || !keep(hex) ? REDACTED : hex)
    : run;
}

/** The kind of secret a value looks like, or null (a bare hex id under 40 counts unless `keep` holds it). */
export function secretKind(value: string, keep: KeepHex = KEEP_NO_HEX): string | null {
  let bare: string | null = null;
  const note = (run: string) => {
    bare ??= bareKeyKind(run, keep);
    return run;
  };
  if (mapRuns(value, note) !== value) return "long token";
  if (redactPem(value) !== value) return "private key";
  for (const shape of VENDOR_SHAPES) if (replaceVendor(value, shape.pattern) !== value) return shape.kind;
  for (const shape of KEYED_SHAPES) if (replaceShape(value, shape) !== value) return shape.kind;
  return bare;
}

/** Longest PEM private key redacted from BEGIN to END (a 16384-bit RSA key is about 12 KB). */
const MAX_PEM = 32 * 1024;
/**
 * What a PEM body cut short is made of: base64 lines, real or escaped newlines, legacy `Proc-Type:` headers;
 * it stops at the next `-----` line.
 */
const PEM_BODY = /[A-Za-z0-9+/=\s\\:,-]/;
/** What the body lines before an END line are made of (no spaces: prose before a cut key stays). */
const PEM_LINES = /[A-Za-z0-9+/=\r\n\\]/;

/**
 * The text with every PEM private key replaced whole, BEGIN to END; a key cut short loses all it kept (a
 * BEGIN with no END, to the end of its body; an END with no BEGIN, from the start of its lines). Linear: the
 * END line is searched for once per key, never again past the last one.
 */
function redactPem(text: string): string {
  if (!text.includes("PRIVATE KEY")) return text;
  let out = "";
  let kept = 0;
  const begin = new RegExp(PEM_BEGIN.source, "g");
  const end = new RegExp(PEM_END.source, "g");
  let e: RegExpExecArray | null = null;
  let noMoreEnds = false;
  for (let b = begin.exec(text); b; b = begin.exec(text)) {
    if (!noMoreEnds && (!e || e.index < b.index)) {
      end.lastIndex = b.index;
      e = end.exec(text);
      noMoreEnds = !e;
    }
    let stop = begin.lastIndex;
    if (e && e.index - b.index <= MAX_PEM) stop = e.index + e[0].length;
    else {while (
        stop - b.index < MAX_PEM && PEM_BODY.test(text[stop] ?? "") && !text.startsWith("-----", stop)
      ) stop++;}
    out += text.slice(kept, b.index) + REDACTED;
    kept = begin.lastIndex = stop;
  }
  end.lastIndex = kept;
  for (let left = end.exec(text); left; left = end.exec(text)) {
    let start = left.index;
    while (start > kept && left.index - start < MAX_PEM && PEM_LINES.test(text[start - 1])) start--;
    out += text.slice(kept, start) + REDACTED;
    kept = end.lastIndex;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** A letter: a vendor prefix right after one is inside a word, not a token's start. */
const LETTER = /[A-Za-z]/;

/** The vendor tokens of a pattern of `VENDOR_SHAPES` replaced, where no letter precedes their prefix. */
function replaceVendor(text: string, pattern: RegExp): string {
  return text.replace(
    pattern,
    (match: string, at: number) => LETTER.test(text[at - 1] ?? "") ? match : REDACTED,
  );
}

/** One keyed shape's matches (past its gate) replaced: only the `secret` group, after its `lead`. */
function replaceShape(text: string, shape: SecretShape): string {
  if (shape.gate && !shape.gate.test(text)) return text;
  return text.replace(shape.pattern, (match: string, ...args: unknown[]) => {
    const { lead = "", secret = "" } = args.at(-1) as Record<string, string | undefined>;
    return shape.accept && !shape.accept(secret, lead) ? match : `${lead}${REDACTED}`;
  });
}

/**
 * The text with every credential-shaped substring replaced by `[redacted]` (PEM private keys whole, known
 * prefixes, passwords in URLs and in text, values after a credential's or a vendor's name, bare hex and random
 * base64 keys, alone or glued to a name by `=`), and the string values under secret-named keys of any JSON it
 * holds (plain or escaped). Ids, file names and paths are kept, and a bare hex run of 32 to 39 characters
 * where `keep` says the evidence holds it as an id (by default none is held). Run it on the final text: a
 * message after its ids are joined into it, a reason after its messages.
 */
export function redactText(text: string, keep: KeepHex = KEEP_NO_HEX): string {
  // The shortest shape is 5 characters (`pwd=x`); a shorter text can only hide a secret as a JSON value.
  if (text.length < 5 && !text.includes('"')) return text;
  let out = replaceVendor(
    redactJsonKeys(mapRuns(redactPem(text), (run) => redactRun(run, keep))),
    VENDOR_TOKENS,
  );
  for (const shape of KEYED_SHAPES) out = replaceShape(out, shape);
  return out;
}

/**
 * What `redact` reports besides the copy (whether it cut nesting deeper than `MAX_DEPTH`), and the bare hex
 * ids it keeps (`keep`, none by default).
 */
export interface RedactState {
  deep: boolean;
  keep?: KeepHex;
}

/**
 * A deep copy with secret-shaped strings and literal values under secret-named keys redacted. Nesting
 * deeper than `MAX_DEPTH` is replaced by a marker and flagged on `state` (the caller marks its record degraded).
 */
export function redact(value: unknown, key = "", state: RedactState = { deep: false }, depth = 0): unknown {
  if (typeof value === "string") {
    return DATA_SECRET_KEY.test(key) && value && !/^\$\{[A-Z0-9_]+\}$/.test(value)
      ? REDACTED
      : redactText(value, state.keep);
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
      ? redactText(value, state.keep)
      : redactText(value.slice(0, max + MAX_TOKEN), state.keep).slice(0, max) +
        "…[truncated]";
  }
  // JSON.stringify recurses natively: past a few thousand levels it overflows (Node sooner than Deno), so a
  // value nested deeper than MAX_DEPTH is cut by `redact` first, and only the cut copy is serialised.
  if (nestsDeeper(value, MAX_DEPTH)) return redactCapped(redact(value, "", state), max, state);
  const json = JSON.stringify(value) ?? "";
  if (json.length <= max) return redact(value, "", state);
  // Only the head is redacted: the margin covers a token that crosses the cut (a longer run is redacted whole).
  const head = json.slice(0, max + MAX_TOKEN);
  return { _truncated: json.length, preview: redactText(head, state.keep).slice(0, max) };
}
