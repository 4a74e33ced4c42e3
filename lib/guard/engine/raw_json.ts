/**
 * A top-level field of raw JSON text, read without parsing the text: for input that did not parse (cut short,
 * oversized) or that must be routed before it is parsed (the resident guard's per-session queue). Pure.
 */

const QUOTE = 34, BACKSLASH = 92, OPEN_BRACE = 123, CLOSE_BRACE = 125, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;
const COLON = 58, COMMA = 44;

/** The index just past the string literal whose opening quote is at `at`, or -1 when the text ends first. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/** The index of the first character at or after `at` that is not JSON whitespace. */
function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

/** The index just past the value starting at `at` (strings and nested brackets skipped whole), or -1. */
function valueEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (c === COMMA && depth === 0) return i;
    i++;
  }
  return -1;
}

/**
 * The string value of `key` at the top level of a JSON object's text, decoded as `JSON.parse` decodes it
 * (escapes, any length); nested objects and strings are skipped, so `"session_id"` inside a tool's arguments
 * or result never counts. The first occurrence wins (Claude Code sends each key once; `JSON.parse` would keep a
 * repeated key's last). Undefined when the text is not an object, the key is absent, not a string, or comes
 * after the text is cut short.
 */
export function topLevelString(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  i++;
  for (;;) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const rawKey = text.slice(i, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    if (text.charCodeAt(i) === QUOTE && decoded(rawKey) === key) return decoded(text.slice(i, end));
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) return undefined;
    i++;
  }
}

/** A JSON string literal decoded, or undefined when it is not one. */
function decoded(literal: string): string | undefined {
  if (!literal.includes("\\")) return literal.slice(1, -1);
  try {
    const value = JSON.parse(literal);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
