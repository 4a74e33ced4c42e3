/**
 * Static reading of codex `exec` scripts: every `tools.<name>(…)` / `tools["<name>"](…)` call in text order,
 * with its argument object literal parsed tolerantly (JS, not JSON: bare keys, single quotes, trailing
 * commas, shorthand, spreads). Identifiers bound to literal `const/let/var` values earlier in the script are
 * substituted; anything still dynamic becomes `{__unresolved__: "<expression>"}` and is listed.
 */

/** One tool call found in a script. */
export interface ScriptCall {
  name: string;
  /** Offset of the call in the script. */
  at: number;
  input: Record<string, unknown>;
  /** `path ← expression` for each value that stayed dynamic. */
  unresolved: string[];
}

interface Binding {
  name: string;
  at: number;
  value: unknown;
}

const DYNAMIC = Symbol("dynamic");
interface Dynamic {
  [DYNAMIC]: string;
}

function dynamic(expr: string): Dynamic {
  return { [DYNAMIC]: expr.trim().replace(/\s+/g, " ").slice(0, 120) };
}

function isDynamic(v: unknown): v is Dynamic {
  return !!v && typeof v === "object" && DYNAMIC in v;
}

/** A tolerant reader of JS literal expressions over one script. */
class Reader {
  constructor(readonly s: string, readonly lookup: (name: string, at: number) => unknown) {}

  skip(i: number): number {
    const s = this.s;
    while (i < s.length) {
      const c = s[i];
      if (c === " " || c === "\n" || c === "\t" || c === "\r") i++;
      else if (c === "/" && s[i + 1] === "/") {
        const nl = s.indexOf("\n", i);
        i = nl < 0 ? s.length : nl + 1;
      } else if (c === "/" && s[i + 1] === "*") {
        const end = s.indexOf("*/", i + 2);
        i = end < 0 ? s.length : end + 2;
      } else break;
    }
    return i;
  }

  /** End of a string or template literal starting at `i` (the quote). */
  stringEnd(i: number): number {
    const q = this.s[i];
    let j = i + 1;
    while (j < this.s.length) {
      const c = this.s[j];
      if (c === "\\") j += 2;
      else if (c === q) return j + 1;
      else if (q === "`" && c === "$" && this.s[j + 1] === "{") j = this.balancedEnd(j + 1);
      else j++;
    }
    return j;
  }

  /** End (exclusive) of the bracket group opening at `i`. */
  balancedEnd(i: number): number {
    const open = this.s[i];
    const close = open === "{" ? "}" : open === "[" ? "]" : ")";
    let depth = 0;
    let j = i;
    while (j < this.s.length) {
      const c = this.s[j];
      if (c === '"' || c === "'" || c === "`") {
        j = this.stringEnd(j);
        continue;
      }
      if (c === "/" && (this.s[j + 1] === "/" || this.s[j + 1] === "*")) {
        j = this.skip(j);
        continue;
      }
      if (c === open) depth++;
      else if (c === close && --depth === 0) return j + 1;
      j++;
    }
    return j;
  }

  /** End of an expression: the next top-level `,` `;` or closing bracket. */
  exprEnd(i: number): number {
    let j = i;
    while (j < this.s.length) {
      const c = this.s[j];
      if (c === '"' || c === "'" || c === "`") j = this.stringEnd(j);
      else if (c === "{" || c === "[" || c === "(") j = this.balancedEnd(j);
      else if (c === "," || c === ";" || c === "}" || c === "]" || c === ")") return j;
      else if (c === "\n" && /^\s*(?:const|let|var|await|text|return)\b/.test(this.s.slice(j + 1, j + 40))) {
        return j;
      } else j++;
    }
    return j;
  }

  string(i: number): { value: unknown; end: number } {
    const end = this.stringEnd(i);
    const raw = this.s.slice(i, end);
    const q = raw[0];
    if (q === "`" && raw.includes("${")) return { value: dynamic(raw), end };
    const body = raw.slice(1, -1);
    let out = "";
    for (let k = 0; k < body.length; k++) {
      const c = body[k];
      if (c !== "\\") {
        out += c;
        continue;
      }
      const n = body[++k];
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        b: "\b",
        f: "\f",
        v: "\v",
        "0": "\0",
      };
      if (n in simple) out += simple[n];
      else if (n === "u" && body[k + 1] === "{") {
        const close = body.indexOf("}", k);
        out += String.fromCodePoint(parseInt(body.slice(k + 2, close), 16));
        k = close;
      } else if (n === "u" || n === "x") {
        const len = n === "u" ? 4 : 2;
        out += String.fromCharCode(parseInt(body.slice(k + 1, k + 1 + len), 16));
        k += len;
      } else if (n === "\n") continue;
      else out += n ?? "";
    }
    return { value: out, end };
  }

  /** One value at `i`; trailing operators make it dynamic. */
  value(start: number): { value: unknown; end: number } {
    const i = this.skip(start);
    const c = this.s[i];
    let got: { value: unknown; end: number };
    if (c === "{") got = this.object(i);
    else if (c === "[") got = this.array(i);
    else if (c === '"' || c === "'" || c === "`") got = this.string(i);
    else {
      const m = /^(?:-?(?:\d[\d_]*\.?\d*(?:e[+-]?\d+)?|\.\d+)|true|false|null|undefined|[A-Za-z_$][\w$]*)/
        .exec(this.s.slice(i, i + 200));
      if (!m) {
        const end = this.exprEnd(i);
        return { value: dynamic(this.s.slice(i, end) || "?"), end };
      }
      const word = m[0];
      const after = i + word.length;
      let value: unknown;
      if (/^-?[\d.]/.test(word)) value = Number(word.replace(/_/g, ""));
      else if (word === "true" || word === "false") value = word === "true";
      else if (word === "null") value = null;
      else if (word === "undefined") value = undefined;
      else value = this.lookup(word, i);
      got = { value: value === DYNAMIC_MISS ? dynamic(word) : value, end: after };
    }
    const next = this.skip(got.end);
    const t = this.s[next];
    if (next < this.s.length && t !== "," && t !== "}" && t !== "]" && t !== ")" && t !== ";") {
      if (this.s.slice(got.end, next).includes("\n") && !/[.+\-*/?:&|[(`=<>%]/.test(t)) return got;
      const end = this.exprEnd(i);
      return { value: dynamic(this.s.slice(i, end)), end };
    }
    return got;
  }

  object(i: number): { value: unknown; end: number } {
    const out: Record<string, unknown> = {};
    let j = i + 1;
    while (j < this.s.length) {
      j = this.skip(j);
      const c = this.s[j];
      if (c === "}") return { value: out, end: j + 1 };
      if (c === ")" || c === ";" || c === "]") return { value: out, end: j };
      if (c === ",") {
        j++;
        continue;
      }
      if (this.s.startsWith("...", j)) {
        const v = this.value(j + 3);
        if (v.value && typeof v.value === "object" && !Array.isArray(v.value) && !isDynamic(v.value)) {
          Object.assign(out, v.value);
        } else out[`...${this.s.slice(j + 3, v.end).trim()}`] = dynamic(this.s.slice(j + 3, v.end));
        j = v.end;
        continue;
      }
      let key: string;
      let k: number;
      if (c === '"' || c === "'") {
        const s = this.string(j);
        key = String(s.value);
        k = s.end;
      } else if (c === "[") {
        k = this.balancedEnd(j);
        key = this.s.slice(j, k);
      } else {
        const m = /^[\w$]+/.exec(this.s.slice(j, j + 200));
        if (!m) {
          const end = this.exprEnd(j);
          j = end > j ? end : j + 1;
          continue;
        }
        key = m[0];
        k = j + key.length;
      }
      k = this.skip(k);
      if (this.s[k] === ":") {
        const v = this.value(k + 1);
        out[key] = key.startsWith("[") ? dynamic(key) : v.value;
        j = v.end;
      } else if (this.s[k] === "(") {
        const body = this.s.indexOf("{", k);
        j = body < 0 ? this.s.length : this.balancedEnd(body);
      } else {
        const v = this.lookup(key, j);
        out[key] = v === DYNAMIC_MISS ? dynamic(key) : v;
        j = k;
      }
    }
    return { value: out, end: j };
  }

  array(i: number): { value: unknown; end: number } {
    const out: unknown[] = [];
    let j = i + 1;
    while (j < this.s.length) {
      j = this.skip(j);
      const c = this.s[j];
      if (c === "]") return { value: out, end: j + 1 };
      if (c === ")" || c === ";" || c === "}") return { value: out, end: j };
      if (c === ",") {
        j++;
        continue;
      }
      if (this.s.startsWith("...", j)) {
        const v = this.value(j + 3);
        if (Array.isArray(v.value)) out.push(...v.value);
        else out.push(dynamic(this.s.slice(j, v.end)));
        j = v.end;
        continue;
      }
      const v = this.value(j);
      out.push(v.value);
      j = v.end > j ? v.end : j + 1;
    }
    return { value: out, end: j };
  }
}

const DYNAMIC_MISS = Symbol("miss");

/** Replaces dynamic markers with `{__unresolved__: expr}`, collecting their paths. */
function settle(value: unknown, path: string, out: string[]): unknown {
  if (isDynamic(value)) {
    out.push(`${path || "(arguments)"} ← ${value[DYNAMIC]}`);
    return { __unresolved__: value[DYNAMIC] };
  }
  if (Array.isArray(value)) return value.map((v, i) => settle(v, `${path}[${i}]`, out));
  if (value && typeof value === "object") {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) o[k] = settle(v, path ? `${path}.${k}` : k, out);
    return o;
  }
  return value;
}

function hasDynamic(value: unknown): boolean {
  if (isDynamic(value)) return true;
  if (Array.isArray(value)) return value.some(hasDynamic);
  if (value && typeof value === "object") return Object.values(value).some(hasDynamic);
  return false;
}

const CALL = /(?<![\w$.])tools\s*(?:\.\s*([A-Za-z_$][\w$-]*)|\[\s*(["'`])([^"'`]+)\2\s*\])\s*\(/g;
const DECL = /(?<![\w$.])(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*/g;
const ASSIGN = /(?<![\w$.])([A-Za-z_$][\w$]*)\s*=(?![=>])\s*/g;

/** Every `tools.X(…)` call in a codex script, in text order, with arguments parsed (healthverse or not). */
export function parseCodexScript(script: string): ScriptCall[] {
  const bindings: Binding[] = [];
  const lookup = (name: string, at: number): unknown => {
    let best: Binding | undefined;
    for (const b of bindings) if (b.name === name && b.at < at && (!best || b.at > best.at)) best = b;
    return best ? best.value : DYNAMIC_MISS;
  };
  const reader = new Reader(script, lookup);
  const declared = new Set<string>();
  for (const m of script.matchAll(DECL)) {
    declared.add(m[1]);
    const start = m.index! + m[0].length;
    if (/^\s*await\b/.test(script.slice(start, start + 10))) continue;
    const v = reader.value(start);
    bindings.push({ name: m[1], at: m.index!, value: hasDynamic(v.value) ? dynamic(m[1]) : v.value });
  }
  for (const m of script.matchAll(ASSIGN)) {
    if (
      !declared.has(m[1]) || /(?:const|let|var)\s+$/.test(script.slice(Math.max(0, m.index! - 8), m.index!))
    ) {
      continue;
    }
    // A reassigned variable is not a literal any more from here on.
    bindings.push({ name: m[1], at: m.index!, value: dynamic(m[1]) });
  }
  const calls: ScriptCall[] = [];
  for (const m of script.matchAll(CALL)) {
    const name = m[1] ?? m[3];
    const open = m.index! + m[0].length;
    const first = reader.skip(open);
    let input: unknown = {};
    if (script[first] !== ")") input = reader.value(first).value;
    const unresolved: string[] = [];
    let settled = settle(input, "", unresolved);
    if (!settled || typeof settled !== "object" || Array.isArray(settled)) {
      settled = settled === undefined ? {} : { [UNRESOLVED_KEY]: settled };
    }
    calls.push({ name, at: m.index!, input: settled as Record<string, unknown>, unresolved });
  }
  return calls;
}

const UNRESOLVED_KEY = "__unresolved__";
