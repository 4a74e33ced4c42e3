/**
 * What a shell command writes, deletes or calls, read from its text: the parts a guard rule needs to tell a
 * write to a protected place from a read of it. Pure and bounded (a command is cut at `MAX_COMMAND`). It
 * follows `cd` within the command, output redirections, the usual file commands (rm, mv, cp, touch, tee, dd,
 * ln, chmod, sed -i, find -delete, …), `bash -c '…'` and the inline code of python, node, perl and ruby, which
 * count as writing a path they name when they also call a writing function. It cannot see through variables
 * set earlier in the command, `eval` or a script file, and it reads `cd` only at the start of a segment. Plain
 * string work, no `node:` module: it runs on the Deno hook path too.
 */
/** Longest command text read; past it the rest is not analysed. */
export const MAX_COMMAND = 64 * 1024;

/** What a command does to one path: write it (or create under it), or delete or move it. */
export interface PathEffect {
  path: string;
  effect: "write" | "delete";
}

/** Commands whose path arguments they delete or move away. */
const DELETERS = new Set(["rm", "rmdir", "unlink", "shred", "mv"]);
/** Commands that write every path argument (create, change, truncate, change its mode or owner). */
const WRITERS = new Set([
  "touch",
  "truncate",
  "tee",
  "chmod",
  "chown",
  "chgrp",
  "chattr",
  "setfacl",
  "setfattr",
  "mkdir",
  "mkfifo",
  "mknod",
]);
/** Commands that write only their last path argument (the destination). */
const TO_LAST = new Set(["cp", "ln", "install", "rsync", "scp"]);
/** Interpreters whose inline code (`-c`, `-e`) is read for paths and writing calls. */
const INTERPRETERS = /^(?:python[0-9.]*|node|nodejs|deno|bun|perl|ruby|php)$/;
/** Writing calls in inline code: open for writing, remove, rename, truncate, touch, change times or mode. */
const CODE_WRITES = new RegExp(
  [
    String.raw`open\s*\([^)]*,\s*(?:mode\s*=\s*)?['"][^'"]*[wax+]`,
    String.raw`\.(?:write_text|write_bytes|touch|unlink|rmdir|rename|replace|symlink_to|chmod|mkdir)\s*\(`,
    String
      .raw`\b(?:os|shutil)\.(?:remove|unlink|rmdir|removedirs|rename|replace|truncate|utime|chmod|rmtree|move|copy\w*|symlink|link|mkfifo|system)\s*\(`,
    String.raw`\bsubprocess\.`,
    String
      .raw`\b(?:writeFile|appendFile|unlink|rm|rmdir|rename|truncate|utimes|copyFile|symlink|chmod|writeTextFile|remove)(?:Sync)?\s*\(`,
    String.raw`\b(?:unlink|rename|utime|truncate|chmod)\s*\(`,
    String.raw`open\s*\(\s*(?:my\s+)?\$?\w*\s*,\s*['"]?\+?[>]`,
    String.raw`File\.(?:write|delete|unlink|rename|open\s*\([^)]*['"][wa])`,
  ].join("|"),
);

/** The command's segments: split at `;`, `&&`, `||`, `|`, `&`, newlines and command substitutions, quotes kept. */
function segments(command: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (quote) {
      cur += ch;
      if (ch === "\\" && quote === '"' && i + 1 < command.length) cur += command[++i];
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
      continue;
    }
    if (ch === "\\" && i + 1 < command.length) {
      cur += ch + command[++i];
      continue;
    }
    const two = command.slice(i, i + 2);
    if (two === "&&" || two === "||" || two === "$(") {
      out.push(cur);
      cur = "";
      i++;
      continue;
    }
    if (ch === "&" && (command[i + 1] === ">" || command[i - 1] === ">")) {
      cur += ch; // `&>file`, `2>&1`: a redirection, not a separator
      continue;
    }
    if (";|&\n`()".includes(ch)) {
      out.push(cur);
      cur = "";
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** Shell words of a segment, quotes removed (`"a b"` → `a b`), redirection operators kept as their own words. */
function words(segment: string): string[] {
  const out: string[] = [];
  let cur = "";
  let started = false;
  let quote: string | null = null;
  const flush = () => {
    if (started) out.push(cur);
    cur = "";
    started = false;
  };
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i];
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < segment.length) cur += segment[++i];
      else cur += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
      continue;
    }
    if (ch === "\\" && i + 1 < segment.length) {
      cur += segment[++i];
      started = true;
      continue;
    }
    if (/\s/.test(ch)) {
      flush();
      continue;
    }
    if (ch === ">" || ch === "<") {
      // `2>>`, `&>`, `>|`: the operator, then its target as the next word.
      const lead = /^(?:\d|&)$/.test(cur) ? cur : "";
      if (!lead) flush();
      else {
        cur = "";
        started = false;
      }
      let op = lead + ch;
      while (segment[i + 1] === ">" || segment[i + 1] === "|" || segment[i + 1] === "&") op += segment[++i];
      out.push(op);
      continue;
    }
    cur += ch;
    started = true;
  }
  flush();
  return out;
}

/** Environment references and `~` in a word, expanded from `env` (unknown ones left as they are). */
function expand(word: string, env: Readonly<Record<string, string>>): string {
  const home = env.HOME;
  const out = word.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, a, b) => env[a ?? b] ?? whole);
  return home && (out === "~" || out.startsWith("~/")) ? home + out.slice(1) : out;
}

/** A path as written, made absolute against `cwd` (null while the cwd is unknown and the path relative). */
function absolute(path: string, cwd: string | null): string | null {
  if (!path.startsWith("/") && !cwd) return null;
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${cwd}/${path}`).split("/")) {
    if (part === "..") parts.pop();
    else if (part && part !== ".") parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** A path as a tool names it, `$VAR` and `~` expanded and made absolute against `cwd` (null when it cannot be). */
export function resolvePath(
  word: string,
  options: { cwd?: string | null; env?: Readonly<Record<string, string>> } = {},
): string | null {
  return absolute(expand(word, options.env ?? {}), options.cwd ?? null);
}

/**
 * Every path a shell command writes or deletes, absolute (relative ones resolved against a `cd` earlier in
 * the command; `cwd` is where it starts, when known), with each interpreter's inline code counted as writing
 * the absolute paths it names when it calls a writing function.
 */
export function shellEffects(
  command: string,
  options: { cwd?: string | null; env?: Readonly<Record<string, string>> } = {},
): PathEffect[] {
  const env = options.env ?? {};
  const out: PathEffect[] = [];
  let cwd = options.cwd ?? null;
  const add = (word: string, effect: PathEffect["effect"]) => {
    const path = absolute(expand(word, env), cwd);
    if (path) out.push({ path, effect });
  };
  for (const segment of segments(command.slice(0, MAX_COMMAND))) {
    const ws = words(segment);
    // Redirections anywhere in the segment: `> f`, `>> f`, `&> f`, `2> f`, `>| f` write their target.
    for (let i = 0; i < ws.length - 1; i++) {
      if (/^(?:\d|&)?>/.test(ws[i]) && !/^&?\d*$/.test(ws[i + 1]) && !ws[i + 1].startsWith("&")) {
        add(ws[i + 1], "write");
      }
    }
    const args = ws.filter((w, i) =>
      !/^(?:\d|&)?[<>]/.test(w) && !(i > 0 && /^(?:\d|&)?[<>]/.test(ws[i - 1]))
    );
    // Leading assignments and wrappers (`FOO=1 sudo env rm …`).
    while (
      args.length &&
      (/^\w+=/.test(args[0]) || ["sudo", "env", "command", "exec", "nohup", "time"].includes(args[0]))
    ) {
      args.shift();
    }
    if (!args.length) continue;
    const name = args[0].slice(args[0].lastIndexOf("/") + 1);
    const rest = args.slice(1);
    const paths = rest.filter((a) => !a.startsWith("-") || a === "-");
    if (name === "cd") {
      const to = expand(rest[0] ?? env.HOME ?? "", env);
      cwd = to ? absolute(to, cwd) : cwd;
      continue;
    }
    if (DELETERS.has(name)) {
      for (const p of paths) add(p, "delete");
    } else if (WRITERS.has(name)) {
      // chmod/chown take a mode or owner first.
      const targets = ["chmod", "chown", "chgrp", "setfacl", "setfattr"].includes(name)
        ? paths.slice(1)
        : paths;
      for (const p of targets) add(p, "write");
    } else if (TO_LAST.has(name)) {
      if (paths.length > 1) add(paths[paths.length - 1], "write");
      const target = rest.indexOf("-t");
      if (target >= 0 && rest[target + 1]) add(rest[target + 1], "write");
    } else if (name === "dd") {
      for (const a of rest) if (a.startsWith("of=")) add(a.slice(3), "write");
    } else if (
      (name === "sed" || name === "perl") &&
      rest.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith("--in-place"))
    ) {
      for (const p of paths.slice(1)) add(p, "write");
    } else if (name === "find") {
      if (rest.some((a) => ["-delete", "-exec", "-execdir", "-ok", "-fprint"].includes(a))) {
        for (const p of rest.filter((a) => !a.startsWith("-") && !a.includes("{}")).slice(0, 1)) {
          add(p, "delete");
        }
      }
    } else if (["bash", "sh", "zsh", "dash"].includes(name)) {
      const at = rest.indexOf("-c");
      if (at >= 0 && rest[at + 1]) out.push(...shellEffects(rest[at + 1], { cwd, env }));
    } else if (INTERPRETERS.test(name)) {
      const flag = rest.findIndex((a) => a === "-c" || a === "-e" || a === "--eval" || a === "-E");
      const code = flag >= 0 ? rest.slice(flag + 1).join(" ") : "";
      if (code && CODE_WRITES.test(code)) {
        for (const m of code.matchAll(/(?:\$\{?\w+\}?|~)?\/[A-Za-z0-9_.@%+=:,/~-]+/g)) add(m[0], "write");
      }
    }
  }
  return out;
}

/** True when `path` is `under` itself or inside it. */
export function within(path: string, under: string): boolean {
  const base = under.replace(/\/+$/, "") || "/";
  return path === base || path.startsWith(base === "/" ? "/" : `${base}/`);
}
