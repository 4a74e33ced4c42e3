/**
 * One command-line parser for every entry: a spec per command (usage, options with defaults, one example)
 * over `parseArgs` from `node:util` (Deno and Node alike), the help text generated from it, and one error
 * form, `Cannot run <cmd>: … Use …`, exit 2. Runtime-neutral: the guard bundle loads it for its subcommands.
 */
import { parseArgs } from "node:util";

/** One option: `--name VALUE` (string) or `--name` (boolean). */
export interface OptionSpec {
  type: "string" | "boolean";
  /** The value's placeholder in the help text, e.g. `DIR`. */
  value?: string;
  /** Repeatable: every value is kept, in order. */
  multiple?: boolean;
  /** Takes the values that follow it up to the next option (`--logs A B`); implies multiple. */
  list?: boolean;
  /** The default, shown in the help text (and returned when the option is absent). */
  default?: string | boolean;
  /** What the default is when it is not a literal, e.g. `results/<arm names>/`. */
  defaultNote?: string;
  description: string;
  /** Accepted but left out of the help text and the list of valid options (internal flags). */
  hidden?: boolean;
}

/** A command: its name, usage lines, options, arguments and one example. */
export interface CommandSpec {
  /** How the command is named in errors: `Cannot run <name>: …`. */
  name: string;
  /** One sentence: what the command does (also the README script table's second column). */
  summary: string;
  /** Usage lines without `Usage: `; the first is the README script table's command. */
  usage: string[];
  options: Record<string, OptionSpec>;
  /** Positional arguments, for the help text; `none` refuses any positional. */
  args?: { name: string; description: string }[] | "none";
  /** Subcommands, for the help text of a command that has them. */
  commands?: { name: string; description: string }[];
  /** Lines printed after the options (environment, exit codes). */
  notes?: string[];
  example: string;
}

/** A bad command line: the entry prints the message (one line) and exits 2. */
export class CliError extends Error {
  override name = "CliError";
}

/** The parsed command line: typed getters over the values, and the positionals. */
export class Parsed {
  constructor(
    readonly spec: CommandSpec,
    readonly values: Record<string, string | boolean | string[] | undefined>,
    readonly positionals: string[],
    /** The options given on the command line (the rest hold their defaults, if any). */
    private readonly present: ReadonlySet<string> = new Set(),
  ) {}
  /** A string option's value (its default when absent), or undefined. */
  string(name: string): string | undefined {
    const v = this.values[name];
    if (Array.isArray(v)) return v.at(-1);
    return typeof v === "string" ? v : undefined;
  }
  /** Every value of a repeatable option (empty when absent). */
  strings(name: string): string[] {
    const v = this.values[name];
    return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
  }
  /** A boolean option. */
  flag(name: string): boolean {
    return this.values[name] === true;
  }
  /** True when the option was given (not just defaulted). */
  given(name: string): boolean {
    return this.present.has(name);
  }
  /** A CliError for this command: `Cannot run <cmd>: <what>`. */
  error(what: string): CliError {
    return new CliError(`Cannot run ${this.spec.name}: ${what}`);
  }
}

/** True when the arguments ask for help (before any `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

function visible(spec: CommandSpec): string[] {
  return Object.entries(spec.options).filter(([, o]) => !o.hidden).map(([n]) => `--${n}`);
}

/** The valid options as `--a, --b (see --help)`, for error messages. */
export function validOptions(spec: CommandSpec): string {
  return [...(spec.commands ?? []).map((c) => c.name), ...visible(spec), "--help"].join(", ");
}

/** Parses `args` against the spec; throws a CliError on an unknown option, a missing value or a stray argument. */
export function parse(spec: CommandSpec, args: readonly string[]): Parsed {
  const { tokens } = parseArgs({
    args: [...args],
    options: Object.fromEntries(
      Object.entries(spec.options).map(([n, o]) => [n, { type: o.type, multiple: !!(o.multiple || o.list) }]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Record<string, string | boolean | string[] | undefined> = {};
  const positionals: string[] = [];
  const present = new Set<string>();
  const fail = (what: string) => new CliError(`Cannot run ${spec.name}: ${what}`);
  let list: string | null = null;
  let terminated = false;
  for (const t of tokens) {
    if (t.kind === "option-terminator") {
      terminated = true;
      list = null;
      continue;
    }
    if (t.kind === "positional") {
      if (list && !terminated) (values[list] as string[]).push(t.value);
      else positionals.push(t.value);
      continue;
    }
    if (t.name === "help" || t.name === "h") continue;
    const o = spec.options[t.name];
    if (!o) {
      throw fail(`unknown option ${t.rawName}. Use one of: ${validOptions(spec)} (see --help).`);
    }
    present.add(t.name);
    list = null;
    if (o.type === "boolean") {
      if (t.value !== undefined) {
        throw fail(`${t.rawName} takes no value (got "${t.value}"). Use ${t.rawName} alone.`);
      }
      values[t.name] = true;
      continue;
    }
    const v = t.value;
    if (v === undefined || (!t.inlineValue && v.length > 1 && v.startsWith("-") && !/^-\d/.test(v))) {
      throw fail(`${t.rawName} needs a value. Use ${t.rawName} ${o.value ?? "VALUE"}.`);
    }
    if (o.multiple || o.list) {
      ((values[t.name] ??= []) as string[]).push(v);
      if (o.list) list = t.name;
    } else values[t.name] = v;
  }
  if (spec.args === "none" && positionals.length) {
    throw fail(`unexpected argument "${positionals[0]}". Use one of: ${validOptions(spec)} (see --help).`);
  }
  for (const [n, o] of Object.entries(spec.options)) {
    if (values[n] === undefined && o.default !== undefined) values[n] = o.default;
  }
  return new Parsed(spec, values, positionals, present);
}

function optionLabel(name: string, o: OptionSpec): string {
  const value = o.type === "string" ? ` ${o.value ?? "VALUE"}` : "";
  return `--${name}${value}${o.list ? "..." : ""}`;
}

function optionText(o: OptionSpec): string {
  const extra = [
    ...(o.multiple ? ["repeatable"] : []),
    ...(o.defaultNote ? [`default: ${o.defaultNote}`] : []),
    ...(!o.defaultNote && o.default !== undefined && o.default !== false ? [`default: ${o.default}`] : []),
  ];
  return o.description + (extra.length ? ` (${extra.join("; ")})` : "");
}

function table(rows: [string, string][]): string[] {
  const width = Math.min(28, Math.max(...rows.map(([l]) => l.length)) + 2);
  return rows.map(([l, d]) => {
    const [first, ...more] = d.split("\n");
    const head = l.length + 2 > width ? [`  ${l}`, `  ${" ".repeat(width)}${first}`] : [
      `  ${l.padEnd(width)}${first}`,
    ];
    return [...head, ...more.map((m) => `  ${" ".repeat(width)}${m}`)].join("\n");
  });
}

/** The help text; its first line is `Usage: …`. */
export function helpText(spec: CommandSpec): string {
  const lines = [
    `Usage: ${spec.usage[0]}`,
    ...spec.usage.slice(1).map((u) => `       ${u}`),
    "",
    spec.summary,
  ];
  if (spec.commands?.length) {
    lines.push("", "Commands:", ...table(spec.commands.map((c) => [c.name, c.description])));
  }
  if (Array.isArray(spec.args) && spec.args.length) {
    lines.push("", "Arguments:", ...table(spec.args.map((a) => [a.name, a.description])));
  }
  const options = Object.entries(spec.options).filter(([, o]) => !o.hidden);
  lines.push(
    "",
    "Options:",
    ...table([
      ...options.map(([n, o]) => [optionLabel(n, o), optionText(o)] as [string, string]),
      ["-h, --help", "print this help"],
    ]),
  );
  if (spec.notes?.length) lines.push("", ...spec.notes);
  lines.push("", "Example:", `  ${spec.example}`);
  return lines.join("\n");
}

/** Where an entry prints its help (stdout) and its one-line errors (stderr). */
export interface CliIo {
  out?: (text: string) => void;
  err?: (text: string) => void;
}

/**
 * Runs an entry: `--help` prints the help (exit 0); a CliError from parsing or from `run`'s own checks
 * prints its one line (exit 2); anything else propagates. Synchronous when `run` is.
 */
export function runCli(
  spec: CommandSpec,
  args: readonly string[],
  run: (p: Parsed) => number,
  io?: CliIo,
): number;
export function runCli(
  spec: CommandSpec,
  args: readonly string[],
  run: (p: Parsed) => Promise<number>,
  io?: CliIo,
): Promise<number>;
export function runCli(
  spec: CommandSpec,
  args: readonly string[],
  run: (p: Parsed) => number | Promise<number>,
  io: CliIo = {},
): number | Promise<number> {
  const out = io.out ?? ((t: string) => console.log(t));
  const err = io.err ?? ((t: string) => console.error(t));
  const refused = (e: unknown): number => {
    if (!(e instanceof CliError)) throw e;
    err(e.message);
    return 2;
  };
  if (wantsHelp(args)) {
    out(helpText(spec));
    return 0;
  }
  try {
    const code = run(parse(spec, args));
    return code instanceof Promise ? code.catch(refused) : code;
  } catch (e) {
    return refused(e);
  }
}

/** A `--name N` option with a numeric default (read it with `wholeNumber`). */
export function numberOption(fallback: number, description: string): OptionSpec {
  return { type: "string", value: "N", default: String(fallback), description };
}

/** A whole number ≥ `min` from an option's text, or a CliError naming the option. */
export function wholeNumber(p: Parsed, name: string, min = 0): number | undefined {
  const text = p.string(name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < min) {
    throw p.error(
      `--${name} "${text}" is not a whole number >= ${min}. Use e.g. --${name} ${Math.max(min, 1)}.`,
    );
  }
  return n;
}

/** A port number (0-65535) from an option's text, or a CliError. */
export function portNumber(p: Parsed, name = "port"): number | undefined {
  const text = p.string(name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw p.error(`--${name} "${text}" is not a port number. Use 0-65535.`);
  }
  return n;
}

/**
 * Numbered ids shown compactly, runs of one prefix joined: `GLOBAL-01…03, PP-01, PP-03` (for error messages
 * that name the known ids).
 */
export function idRanges(ids: readonly string[]): string {
  const parts: string[] = [];
  let run: { prefix: string; first: string; last: string; n: number } | null = null;
  const close = () => {
    if (run) {
      parts.push(run.first === run.last ? run.first : `${run.first}…${run.last.slice(run.prefix.length)}`);
    }
  };
  for (const id of ids) {
    const m = /^(.*?)(\d+)$/.exec(id);
    if (m && run && run.prefix === m[1] && Number(m[2]) === run.n + 1) {
      run.last = id;
      run.n++;
      continue;
    }
    close();
    run = m ? { prefix: m[1], first: id, last: id, n: Number(m[2]) } : null;
    if (!m) parts.push(id);
  }
  close();
  return parts.join(", ");
}

/**
 * A comma-separated option (`--rules A,B`) whose every item must be known: the items, or a CliError naming
 * the first unknown one and the known ones (`shown`, else all of them).
 */
export function knownItems(
  p: Parsed,
  name: string,
  known: readonly string[],
  shown?: string,
): string[] | undefined {
  const text = p.string(name);
  if (text === undefined) return undefined;
  const items = text.split(",").map((s) => s.trim()).filter(Boolean);
  const bad = items.length ? items.find((item) => !known.includes(item)) : text;
  if (bad !== undefined) {
    throw p.error(`--${name} "${bad}" is unknown. Use one or more of ${shown ?? known.join(", ")}.`);
  }
  return items;
}

/** One of a fixed set of words, or a CliError listing them. */
export function oneOf<T extends string>(p: Parsed, name: string, words: readonly T[]): T | undefined {
  const text = p.string(name);
  if (text === undefined) return undefined;
  if (!(words as readonly string[]).includes(text)) {
    throw p.error(`--${name} "${text}" is unknown. Use one of ${words.join(", ")}.`);
  }
  return text as T;
}
