/**
 * Which file paths a harness-local call (a Bash command, a Read, a Grep…) names, resolved as its shell would:
 * through the working directory a `cd` or `pushd` set earlier in the command (or in an earlier command of the
 * session: Claude Code keeps it between Bash calls, and says so when it resets it), shell variables assigned in
 * the command (`F=mcp-….txt; jq . "$F"`), quotes, command substitutions and here-documents (a Python script
 * whose `open('…')` names the file), and globs. Pure: text in, paths out; nothing is read from disk, so a glob
 * or a directory is matched against the one path asked about (`namesPath`).
 *
 * Known limitations: no shell is run — `$(…)` is scanned, not evaluated; a path built by string operations in
 * a script (`os.path.join(d, name)` with `name` computed) or after `os.chdir` is not resolved; `~` and `cd -`
 * leave the directory unknown.
 */

/** A session's shell, as far as resolving paths needs it: the working directory (null: unknown). */
export interface Shell {
  cwd: string | null;
}

/** Commands that read every file below a directory they are given. */
const RECURSIVE = /^(?:rg|ag|find|du)\b|^grep\b.*\s-[a-zA-Z]*[rR]/;
const GLOB = /[*?[]/;
/** Claude Code's note when it puts the shell back in the project directory after a command left it. */
const RESET = /Shell cwd was reset to (\/[^\s"'\\]*)/;

/** `/a/b/../c/./d` → `/a/c/d`; a relative path is joined to `cwd` first (null when cwd is unknown). */
export function resolvePath(path: string, cwd: string | null): string | null {
  if (!path || path.startsWith("~")) return null;
  const full = path.startsWith("/") ? path : cwd ? `${cwd}/${path}` : null;
  if (!full) return null;
  const parts: string[] = [];
  for (const part of full.split("/")) {
    if (!part || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** A glob (`*`, `?`, `[…]`, `**`) as an anchored regular expression over a whole path. */
function globRegex(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob.startsWith("**/", i)) {
      re += "(?:.*/)?";
      i += 2;
    } else if (c === "*") {
      const deep = glob[i + 1] === "*";
      re += deep ? ".*" : "[^/]*";
      if (deep) i++;
    } else if (c === "?") re += "[^/]";
    else if (c === "[" && /^\[!?[\w.-]+\]/.test(glob.slice(i))) {
      const end = glob.indexOf("]", i);
      re += `[${glob.slice(i + 1, end).replace(/^!/, "^").replace(/-$/, "\\-")}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** A string that could be a path: one line, not too long. */
const PATHLIKE = /^[^\n\0]{1,1024}$/;

/** True when a path written in a command (relative to `cwd`, maybe a glob) names `target`. */
function names(written: string, cwd: string | null, target: string): boolean {
  if (!PATHLIKE.test(written)) return false;
  const path = resolvePath(written.trim(), cwd);
  if (!path) return false;
  if (path === target) return true;
  return GLOB.test(written) && globRegex(path).test(target);
}

/** True when `dir` (written relative to `cwd`) is a directory holding `target`, at any depth. */
function holds(dir: string, cwd: string | null, target: string): boolean {
  const path = resolvePath(dir.trim(), cwd);
  return !!path && path !== "/" && target.startsWith(`${path}/`);
}

/** One simple command: its words (quotes removed, variables expanded) and the raw text it carries. */
interface Simple {
  words: string[];
  /** Here-document bodies, command substitutions and quoted strings: scanned for paths, never run. */
  texts: string[];
}

/** `$NAME`, `${NAME}` expanded from `vars`; an unknown variable expands to nothing, as in a shell. */
function expand(text: string, vars: Map<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => vars.get(a ?? b) ?? "");
}

/**
 * Splits a shell script into simple commands (at `;`, `&&`, `||`, `|`, `&`, newlines and parentheses),
 * each with its words. Quotes are removed; variables are expanded later, in order, so an assignment earlier
 * in the script is seen by the commands after it.
 */
function simpleCommands(script: string): { raw: string[]; texts: string[] }[] {
  const out: { raw: string[]; texts: string[] }[] = [];
  let words: string[] = [];
  let texts: string[] = [];
  let word: string | null = null;
  const heredocs: string[] = [];
  const flushWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const flush = () => {
    flushWord();
    if (words.length || texts.length) out.push({ raw: words, texts });
    words = [];
    texts = [];
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i];
    if (c === "\\" && i + 1 < script.length) {
      word = (word ?? "") + (script[i + 1] === "\n" ? "" : script[i + 1]);
      i++;
    } else if (c === "'") {
      const end = script.indexOf("'", i + 1);
      const body = script.slice(i + 1, end < 0 ? script.length : end);
      word = (word ?? "") + body.replace(/\$/g, "\u0000");
      texts.push(body);
      i = end < 0 ? script.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let body = "";
      while (j < script.length && script[j] !== '"') {
        if (script[j] === "\\" && j + 1 < script.length) body += script[++j];
        else body += script[j];
        j++;
      }
      word = (word ?? "") + body;
      texts.push(body);
      i = j;
    } else if (c === "$" && script[i + 1] === "(") {
      let depth = 0;
      let j = i + 1;
      for (; j < script.length; j++) {
        if (script[j] === "(") depth++;
        else if (script[j] === ")" && --depth === 0) break;
      }
      texts.push(script.slice(i + 2, j));
      word = word ?? "";
      i = j;
    } else if (c === "<" && script[i + 1] === "<" && script[i + 2] !== "<") {
      const m = /^<<-?\s*(['"]?)(\w+)\1/.exec(script.slice(i));
      if (m) {
        heredocs.push(m[2]);
        i += m[0].length - 1;
      } else word = (word ?? "") + c;
    } else if (c === "\n") {
      flush();
      // Here-document bodies follow the line that opened them, each up to its tag alone on a line.
      let at = i + 1;
      for (const tag of heredocs.splice(0)) {
        const lines: string[] = [];
        while (at < script.length) {
          const nl = script.indexOf("\n", at);
          const line = script.slice(at, nl < 0 ? script.length : nl);
          at = nl < 0 ? script.length : nl + 1;
          if (line.trim() === tag) break;
          lines.push(line);
        }
        out.push({ raw: [], texts: [lines.join("\n")] });
      }
      i = at - 1;
    } else if (";&|()`".includes(c)) flush();
    else if (c === "<" || c === ">") {
      // A redirection: its own word, so `cd DIR >/dev/null` still changes to DIR.
      flushWord();
      words.push(c);
    } else if (/\s/.test(c)) flushWord();
    else word = (word ?? "") + c;
  }
  flush();
  return out;
}

/** The simple commands of a script, with variables expanded in order of assignment. */
function expanded(script: string, vars: Map<string, string>): Simple[] {
  return simpleCommands(script).map(({ raw, texts }) => {
    let words = raw.map((w) => expand(w, vars).replaceAll("\u0000", "$"));
    // Leading assignments (`F=x`, `export F=x`) set the variable for what follows.
    if (words[0] === "export" || words[0] === "local" || words[0] === "declare") words = words.slice(1);
    while (words.length && /^\w+=/.test(words[0])) {
      const at = words[0].indexOf("=");
      vars.set(words[0].slice(0, at), words[0].slice(at + 1));
      words = words.slice(1);
    }
    return { words, texts: texts.map((t) => expand(t, vars)) };
  });
}

/** Path-like tokens inside a text (a script's quoted strings and bare words). */
function tokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(['"])([^'"\n]{1,400}?)\1/g)) out.push(m[2]);
  for (const m of text.matchAll(/[^\s'"`()=,;:<>{}|&]+/g)) if (/[./*]/.test(m[0])) out.push(m[0]);
  return out;
}

/** The script a command-running call carries (`command`, `cmd`, `script`; `bash -lc "…"` arrays unwrapped). */
export function scriptOf(input: Record<string, unknown>): string | null {
  for (const key of ["command", "cmd", "script"]) {
    const value = input[key];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
      const at = value.findIndex((v) => /^-\w*c$/.test(v));
      return at >= 0 && at + 1 < value.length ? value[at + 1] : value.join(" ");
    }
  }
  return null;
}

/**
 * True when a harness-local call reads `target` (an absolute path) by any path that resolves to it, and the
 * shell state after it. A command reads the file when one of its words, or a path in a script or string it
 * carries, resolves to it from the working directory at that point, matches it as a glob, or is a directory
 * holding it given to a recursive reader (`grep -r`, `rg`, `find`); a Read or Grep reads it by `file_path` or
 * `path` (a Grep's `path` directory with its `glob`).
 */
export function readsPath(
  call: { raw: string; input: Record<string, unknown>; text?: string },
  target: string,
  shell: Shell,
): { reads: boolean; shell: Shell } {
  const workdir = typeof call.input.workdir === "string"
    ? call.input.workdir
    : typeof call.input.cwd === "string"
    ? call.input.cwd
    : null;
  const script = scriptOf(call.input);
  let reads = false;
  let cwd = workdir ?? shell.cwd;
  if (script !== null) {
    const vars = new Map<string, string>();
    for (const { words, texts } of expanded(script, vars)) {
      const [head, ...args] = words;
      if (head === "cd" || head === "pushd") {
        const redirect = args.findIndex((a) => a === "<" || a === ">");
        const dir = (redirect < 0 ? args : args.slice(0, redirect)).find((a) => !a.startsWith("-"));
        cwd = dir ? resolvePath(dir, cwd) : null;
        continue;
      }
      const recursive = RECURSIVE.test(words.join(" "));
      const candidates = [...words, ...texts.flatMap(tokens), ...words.flatMap(tokens)];
      if (candidates.some((w) => names(w, cwd, target) || (recursive && holds(w, cwd, target)))) reads = true;
    }
  } else {
    const strings = Object.values(call.input).filter((v): v is string => typeof v === "string");
    const path = typeof call.input.path === "string" ? call.input.path : null;
    const glob = typeof call.input.glob === "string" ? call.input.glob : null;
    const searches = /grep|search/i.test(call.raw);
    reads = strings.some((s) => names(s, cwd, target)) ||
      (path !== null && glob !== null && names(`${path.replace(/\/$/, "")}/**/${glob}`, cwd, target)) ||
      (searches && path !== null && !glob && holds(path, cwd, target));
  }
  // Claude Code keeps the working directory between Bash calls, and puts it back when a command left the
  // project (saying so in the result); a call with its own workdir leaves the session's as it was.
  const reset = call.text ? RESET.exec(call.text.slice(0, 400)) : null;
  const next = workdir !== null ? shell.cwd : reset ? reset[1] : script !== null ? cwd : shell.cwd;
  return { reads, shell: { cwd: next } };
}

/** The working directory a Claude Code session started in, from its projects folder (`-workspace` → `/workspace`). */
export function projectDir(savedPath: string): string | null {
  const m = /\/projects\/(-[^/]+)\/[^/]+\/tool-results\//.exec(savedPath);
  return m ? m[1].replace(/-/g, "/") : null;
}
