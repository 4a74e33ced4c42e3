/**
 * ATIF trajectory reading (harness.md §6): `.jsonl.zst`, `.jsonl` and single-JSON `.json` files of ATIF
 * v1.2 / v1.5 / v1.7 from Claude Code, codex and openai-agents, reduced to the tool calls the guard sees.
 * Calls are paired to results by id across the whole file; codex `exec` scripts are parsed statically.
 */
import { readFileSync } from "node:fs";
import { zstdDecompressSync } from "node:zlib";
import { isMcpToolName, normalizeToolName } from "../guard/engine/names.ts";
import { parseCodexScript, type ScriptCall } from "./codex_script.ts";

/** One raw ATIF step, as written by Harbor. */
export interface AtifStep {
  step_id?: number;
  timestamp?: string;
  source?: string;
  message?: unknown;
  tool_calls?: { tool_call_id?: string; function_name?: string; arguments?: unknown; extra?: unknown }[];
  observation?: { results?: { source_call_id?: string; content?: unknown; extra?: unknown }[] };
  extra?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A parsed trajectory: header facts and the steps in file order. */
export interface Trajectory {
  path: string;
  /** `1.2`, `1.5`, `1.7`… (the `ATIF-v` prefix removed); `unknown` when the header has none. */
  version: string;
  /** `claude-code`, `codex`, `openai-agents`, or the header's agent name. */
  harness: string;
  sessionId: string;
  model: string | null;
  steps: AtifStep[];
  /** Lines that were not valid JSON (a truncated tail), skipped. */
  corrupt: number;
}

/** One tool call with its paired result, as the guard would have seen it. */
export interface ToolEvent {
  /** The call id (`toolu_…`, `call_…`); codex MCP calls get `<exec id>#<n>`. */
  id: string;
  /** 0-based index of the step in `trajectory.steps`. */
  step: number;
  /** The name as the harness wrote it. */
  raw: string;
  /** Registered `namespace.method`, or null for a harness-local tool (Bash, Read, exec_command…). */
  tool: string | null;
  input: Record<string, unknown>;
  /** The result text (unwrapped from content blocks); empty when no result was recorded. */
  text: string;
  isError: boolean;
  /** True when a result was paired to the call. */
  answered: boolean;
  sidechain: boolean;
  /** Calls sharing a batch were written before any of their results (one model turn, one codex script). */
  batch: number;
  /**
   * True when the harness ran the call on its own, after the one before it in the batch returned (codex
   * scripts await each call); otherwise batch calls run as Claude Code runs them (replay.ts: read-only ones
   * concurrently, each mutating one alone).
   */
  sequential?: boolean;
}

/** A codex MCP call whose arguments could not all be resolved statically. */
export interface UnresolvedCall {
  id: string;
  step: number;
  tool: string;
  /** Argument paths and the expression text left unresolved (`plan_data ← planData`). */
  values: string[];
}

/** Calls and the codex calls left partly unresolved. */
export interface ToolEvents {
  calls: ToolEvent[];
  unresolved: UnresolvedCall[];
}

/** Marker a codex argument carries when its value is a dynamic expression: rules see no literal value. */
export const UNRESOLVED = "__unresolved__";

/** A trajectory that cannot be read, with the reason. */
export class TrajectoryError extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(`Cannot read trajectory ${path}: ${reason}.`);
  }
}

/** Decodes a trajectory file's bytes to text: zstd when the name ends `.zst` or the magic says so. */
export function decodeTrajectory(path: string, bytes: Uint8Array): string {
  const zstd = bytes.length >= 4 && bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f &&
    bytes[3] === 0xfd;
  if (path.endsWith(".zst") || zstd) {
    let out: Uint8Array;
    try {
      out = zstdDecompressSync(bytes);
    } catch (err) {
      throw new TrajectoryError(path, `the zstd data is truncated or corrupt (${(err as Error).message})`);
    }
    if (!out.length && bytes.length) throw new TrajectoryError(path, "the zstd data is truncated or corrupt");
    return new TextDecoder().decode(out);
  }
  return new TextDecoder().decode(bytes);
}

/** Reads and parses a trajectory file; throws TrajectoryError with the reason when it cannot. */
export function readTrajectory(path: string): Trajectory {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TrajectoryError(path, code === "ENOENT" ? "the file is missing" : (err as Error).message);
  }
  return parseTrajectory(decodeTrajectory(path, bytes), path);
}

function harnessOf(name: unknown): string {
  const n = String(name ?? "").toLowerCase();
  if (n.includes("claude")) return "claude-code";
  if (n.includes("codex")) return "codex";
  if (n.includes("openai")) return "openai-agents";
  return n || "unknown";
}

function headerFacts(path: string, header: Record<string, unknown>, steps: AtifStep[], corrupt: number) {
  const agent = (header.agent ?? {}) as Record<string, unknown>;
  const version = String(header.schema_version ?? "unknown").replace(/^ATIF-v/i, "");
  return {
    path,
    version,
    harness: harnessOf(agent.name),
    sessionId: String(header.session_id ?? ""),
    model: typeof agent.model_name === "string" ? agent.model_name : null,
    steps,
    corrupt,
  };
}

/** Parses trajectory text: JSONL with an `_atif_header` line, or one JSON object with `steps`. */
export function parseTrajectory(text: string, path = "<text>"): Trajectory {
  const trimmed = text.trimStart();
  if (!trimmed) throw new TrajectoryError(path, "the file is empty");
  let wholeError: string | null = null;
  if (trimmed.startsWith("{") && !trimmed.startsWith('{"_atif_header"')) {
    try {
      const whole = JSON.parse(trimmed) as Record<string, unknown>;
      if (Array.isArray(whole.steps)) return headerFacts(path, whole, whole.steps as AtifStep[], 0);
    } catch (err) {
      // Not one JSON document: read it as JSONL below, and say why if that fails too.
      wholeError = (err as Error).message;
    }
  }
  const lines = text.split("\n").filter((l) => l.trim());
  let header: Record<string, unknown> | null = null;
  const steps: AtifStep[] = [];
  let corrupt = 0;
  for (const line of lines) {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line);
    } catch {
      corrupt++;
      continue;
    }
    if (!value || typeof value !== "object") corrupt++;
    else if (value._atif_header && typeof value._atif_header === "object" && !header) {
      header = value._atif_header as Record<string, unknown>;
    } else steps.push(value as AtifStep);
  }
  if (!header && wholeError) {
    throw new TrajectoryError(path, `it is not valid JSON, so it is probably truncated (${wholeError})`);
  }
  if (!header) throw new TrajectoryError(path, "it has no `_atif_header` line (not an ATIF trajectory)");
  return headerFacts(path, header, steps, corrupt);
}

/** Plain text of a message or content value: a string, or text parts of a content-block list. */
export function messageText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value.map((p) =>
      typeof p === "string" ? p : p && typeof p === "object" && typeof p.text === "string" ? p.text : ""
    ).filter(Boolean).join("\n");
  }
  return value == null ? "" : JSON.stringify(value);
}

/** The task prompt: every user message before the first agent step (codex puts its environment first). */
export function taskPrompt(t: Trajectory): string {
  const parts: string[] = [];
  for (const step of t.steps) {
    if (step.source === "agent") break;
    if (step.source === "user") {
      const text = messageText(step.message);
      if (text && !text.trimStart().startsWith("<environment_context>")) parts.push(text);
    }
  }
  return parts.join("\n\n");
}

/** The harnesses' stand-ins for a message that only carried tool calls (`Executed Read toolu_…`, `[tool call]`). */
const CALL_ONLY = /^(?:Executed \S+ \S+|\[tool call\])$/;

/** The agent's own text messages in order, with their step index (tool-call placeholders left out). */
export function agentTexts(t: Trajectory): { step: number; text: string }[] {
  const out: { step: number; text: string }[] = [];
  t.steps.forEach((step, index) => {
    if (step.source !== "agent") return;
    const text = messageText(step.message).trim();
    if (text && !CALL_ONLY.test(text)) out.push({ step: index, text });
  });
  return out;
}

/** Tool-call counts per harness.md §6: all calls, and the MCP (healthverse) ones. */
export function countToolCalls(t: Trajectory): { all: number; mcp: number } {
  let all = 0;
  let mcp = 0;
  for (const step of t.steps) {
    for (const call of step.tool_calls ?? []) {
      all++;
      const name = String(call.function_name ?? "");
      if (t.harness === "codex") {
        const input = codexInput(call.arguments);
        mcp += input.split("tools.mcp__healthverse__").length - 1;
        if (!input && normalizeToolName(name)) mcp++;
      } else if (t.harness === "openai-agents") {
        if (!name.startsWith("local-")) mcp++;
      } else if (isMcpToolName(name) || (t.harness !== "claude-code" && normalizeToolName(name))) mcp++;
      else if (dispatched(name, asInput(call.arguments))) mcp++;
    }
  }
  return { all, mcp };
}

function codexInput(args: unknown): string {
  if (args && typeof args === "object" && typeof (args as { input?: unknown }).input === "string") {
    return (args as { input: string }).input;
  }
  return "";
}

const ERROR_TAIL = /\[error\] tool reported failure\s*$/;
/**
 * Error texts at the start of a result: the MCP server's, openai-agents', and hermes' (an unknown tool name,
 * or its `tool_call` dispatcher's `{"error": "…"}` when the named tool cannot be dispatched).
 */
const ERROR_HEAD =
  /^\s*(?:Error executing tool |An error occurred while running the tool|Tool '[^'\n]{1,120}' does not exist\b|\{\s*"error"\s*:\s*")/;

/** hermes' wrapper around every MCP result: a source tag and a data-not-instructions preamble. */
const UNTRUSTED =
  /^\s*<untrusted_tool_result[^>]*>\n(?:The following content[^\n]*\n\n)?([\s\S]*?)\n?<\/untrusted_tool_result>\s*$/;

/**
 * The MCP result text inside harness wrappers: hermes' `<untrusted_tool_result>` tag, and FastMCP's
 * `{"result": "<JSON text>", "structuredContent": …}` shape that nests the tool's JSON in a string (hermes),
 * so ids and fields read as they do in Claude Code's result. Anything else is returned unchanged.
 */
export function unwrapResult(text: string): string {
  const tagged = UNTRUSTED.exec(text);
  const inner = tagged ? tagged[1] : text;
  const trimmed = inner.trim();
  if (trimmed.startsWith('{"result"') || trimmed.startsWith('{ "result"')) {
    try {
      const parsed = JSON.parse(trimmed);
      if (parsed && typeof parsed.result === "string" && /^\s*[{[]/.test(parsed.result)) return parsed.result;
    } catch {
      // Not the FastMCP shape: keep the text.
    }
  }
  return inner;
}

/** Unwraps a result content string: a JSON list of `{type:"text"}` blocks becomes their text. */
export function resultText(content: unknown): string {
  const text = unwrapResult(messageText(content));
  const trimmed = text.trim();
  // Content blocks serialised as text: a list (Claude Code) or one block (openai-agents, Python spacing).
  if (/^\[?\s*\{\s*"type"\s*:/.test(trimmed)) {
    try {
      const parsed = JSON.parse(trimmed);
      const blocks = Array.isArray(parsed) ? parsed : [parsed];
      if (blocks.every((b) => b && typeof b.text === "string")) return blocks.map((b) => b.text).join("\n");
    } catch {
      // Left as is.
    }
  }
  return text;
}

function flag(value: unknown, key: string): boolean | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = (value as Record<string, unknown>)[key];
  return typeof v === "boolean" ? v : undefined;
}

/** Error test per version: the result's or the step's `tool_result_is_error`, then the text markers. */
function isErrorResult(
  step: AtifStep,
  result: { extra?: unknown } | undefined,
  text: string,
  multi: boolean,
): boolean {
  const own = flag(result?.extra, "tool_result_is_error") ??
    flag((result?.extra as Record<string, unknown> | undefined)?.tool_result_metadata, "is_error");
  if (own !== undefined) return own;
  if (!multi) {
    const fromStep = flag(step.extra, "tool_result_is_error");
    if (fromStep !== undefined) return fromStep;
  }
  return ERROR_TAIL.test(text) || ERROR_HEAD.test(text) ||
    /^\s*\{"content":.*"isError":\s*true\}\s*$/s.test(text);
}

/** A call's arguments as an object: parsed from a JSON string when needed, else `{_raw: text}`. */
export function asInput(args: unknown): Record<string, unknown> {
  if (args && typeof args === "object" && !Array.isArray(args)) return args as Record<string, unknown>;
  if (typeof args === "string") {
    try {
      const parsed = JSON.parse(args);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
    } catch {
      // A malformed argument string is kept raw below.
    }
    return { _raw: args };
  }
  return {};
}

/**
 * hermes' deferred-tool dispatcher: `tool_call {name, arguments}` calls the MCP tool it names. Returns the
 * inner tool's name and arguments when it names a healthverse tool, else null.
 */
export function dispatched(
  raw: string,
  input: Record<string, unknown>,
): { name: string; input: Record<string, unknown> } | null {
  if (raw !== "tool_call" || typeof input.name !== "string" || !normalizeToolName(input.name)) return null;
  return { name: input.name, input: asInput(input.arguments) };
}

/** What a compacted hermes context keeps instead of a result: a duplicate marker or a size note. */
const PLACEHOLDER = /^\s*\[(?:Duplicate tool output\b|[\w.:-]+\][^\n]*\(\d[\d,]* chars(?: result)?\))/;

/** One recorded occurrence of a call: the step index and the call's position in it. */
interface Occurrence {
  step: number;
  index: number;
  id: string;
}

/** The task prompt's text, to spot a later user message that starts a fresh recording of the session. */
function firstUserText(t: Trajectory): string {
  const step = t.steps.find((s) => s.source === "user");
  return step ? messageText(step.message).trim() : "";
}

/**
 * The recorded call occurrences in the order they happened, each call once. Normally that is file order. A
 * harness that compacts its context (hermes) writes the session more than once: after the compacted view
 * comes the archived history, which starts again at the task prompt and repeats call ids. Each recording
 * is in order, so the calls are merged by their order within recordings (earliest file position first
 * among ready calls); if recordings disagree, the first occurrence of each id in file order is kept.
 */
function callOrder(t: Trajectory): Occurrence[] {
  const prompt = firstUserText(t);
  const recordings: Occurrence[][] = [[]];
  const firstAt = new Map<string, number>();
  const all: Occurrence[] = [];
  t.steps.forEach((step, index) => {
    if (step.source === "user" && index > 0 && prompt && messageText(step.message).trim() === prompt) {
      recordings.push([]);
    }
    (step.tool_calls ?? []).forEach((call, n) => {
      const id = String(call.tool_call_id ?? `step${index}`);
      const occurrence = { step: index, index: n, id };
      recordings.at(-1)!.push(occurrence);
      all.push(occurrence);
      if (!firstAt.has(id)) firstAt.set(id, all.length - 1);
    });
  });
  if (firstAt.size === all.length) return all;
  const first = [...firstAt.entries()].sort((a, b) => a[1] - b[1]).map(([id, at]) => ({ id, at }));
  const after = new Map<string, Set<string>>();
  const needs = new Map<string, number>(first.map(({ id }) => [id, 0]));
  for (const rec of recordings) {
    const ids = rec.map((o) => o.id).filter((id, i, list) => list.indexOf(id) === i);
    for (let i = 1; i < ids.length; i++) {
      const next = after.get(ids[i - 1]) ?? new Set<string>();
      if (!next.has(ids[i])) {
        next.add(ids[i]);
        needs.set(ids[i], needs.get(ids[i])! + 1);
      }
      after.set(ids[i - 1], next);
    }
  }
  const order: string[] = [];
  const ready = first.filter(({ id }) => needs.get(id) === 0);
  while (ready.length) {
    ready.sort((a, b) => a.at - b.at);
    const { id } = ready.shift()!;
    order.push(id);
    for (const next of after.get(id) ?? []) {
      const left = needs.get(next)! - 1;
      needs.set(next, left);
      if (left === 0) ready.push({ id: next, at: firstAt.get(next)! });
    }
  }
  const chosen = order.length === first.length ? order : first.map(({ id }) => id);
  return chosen.map((id) => all[firstAt.get(id)!]);
}

/** The tool calls of a trajectory in order, results paired by id across the file; codex scripts expanded. */
export function toolEvents(t: Trajectory): ToolEvents {
  const results = new Map<string, { step: AtifStep; result: { content?: unknown; extra?: unknown } }>();
  for (const step of t.steps) {
    for (const r of step.observation?.results ?? []) {
      if (!r.source_call_id) continue;
      const known = results.get(r.source_call_id);
      // A call recorded twice keeps a real result over a compacted copy's placeholder.
      if (
        !known ||
        (PLACEHOLDER.test(messageText(known.result.content)) && !PLACEHOLDER.test(messageText(r.content)))
      ) {
        results.set(r.source_call_id, { step, result: r });
      }
    }
  }
  const calls: ToolEvent[] = [];
  const unresolved: UnresolvedCall[] = [];
  let batch = 0;
  let lastStep = -1;
  for (const { step: index, index: n, id } of callOrder(t)) {
    const step = t.steps[index];
    const list = step.tool_calls ?? [];
    const call = list[n];
    if (index !== lastStep) batch++;
    lastStep = index;
    const sidechain = step.extra?.is_sidechain === true;
    const paired = results.get(id);
    const text = paired ? resultText(paired.result.content) : "";
    const isError = paired ? isErrorResult(paired.step, paired.result, text, list.length > 1) : false;
    const script = codexInput(call.arguments);
    const raw = String(call.function_name ?? "");
    if (raw === "exec" && script) {
      const expanded = expandCodex(id, index, script, text, sidechain, ++batch);
      calls.push(...expanded.calls);
      unresolved.push(...expanded.unresolved);
      continue;
    }
    const input = asInput(call.arguments);
    const inner = dispatched(raw, input);
    calls.push({
      id,
      step: index,
      raw: inner?.name ?? raw,
      tool: normalizeToolName(inner?.name ?? raw),
      input: inner?.input ?? input,
      text,
      isError,
      answered: Boolean(paired),
      sidechain,
      batch,
    });
  }
  return { calls, unresolved };
}

/** The script's printed output: the Python-repr list of `input_text` parts, headers removed. */
export function codexOutput(content: string): string {
  const parts: string[] = [];
  const re = /'text':\s*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(content))) {
    const lit = readPyString(content, m.index + m[0].length);
    if (!lit) continue;
    parts.push(lit.value);
    re.lastIndex = lit.end;
  }
  if (!parts.length) return content;
  if (/^Script (?:completed|failed|error)/.test(parts[0])) {
    parts[0] = parts[0].replace(/^[\s\S]*?Output:\n?/, "");
  }
  return parts.join("");
}

/** Reads a Python string literal ('…' or "…") at `at`; null when there is none. */
function readPyString(s: string, at: number): { value: string; end: number } | null {
  const q = s[at];
  if (q !== "'" && q !== '"') return null;
  const stop = q === "'" ? /['\\]/g : /["\\]/g;
  const simple: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "0": "\0",
  };
  const out: string[] = [];
  let i = at + 1;
  while (i < s.length) {
    stop.lastIndex = i;
    const m = stop.exec(s);
    if (!m) return null;
    out.push(s.slice(i, m.index));
    if (m[0] === q) return { value: out.join(""), end: m.index + 1 };
    const n = s[m.index + 1];
    if (n in simple) {
      out.push(simple[n]);
      i = m.index + 2;
    } else if (n === "x" || n === "u" || n === "U") {
      const len = n === "x" ? 2 : n === "u" ? 4 : 8;
      const code = parseInt(s.slice(m.index + 2, m.index + 2 + len), 16);
      out.push(Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : "");
      i = m.index + 2 + len;
    } else {
      out.push("\\" + (n ?? ""));
      i = m.index + 2;
    }
  }
  return null;
}

/** MCP result objects (`{content:[{type:"text",text}]}`) inside a script's JSON output, in order. */
function mcpResults(output: string): { text: string; isError: boolean }[] {
  const start = output.search(/[{[]/);
  if (start < 0) return [];
  let value: unknown;
  try {
    value = JSON.parse(output.slice(start));
  } catch {
    return [];
  }
  const found: { text: string; isError: boolean }[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || !v || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.content) && o.content.every((b) => b && typeof b === "object" && "type" in b)) {
      found.push({ text: messageText(o.content), isError: o.isError === true });
      return;
    }
    Object.values(o).forEach((x) => walk(x, depth + 1));
  };
  walk(value, 0);
  return found;
}

function expandCodex(
  id: string,
  step: number,
  script: string,
  content: string,
  sidechain: boolean,
  batch: number,
): ToolEvents {
  if (!/mcp_|tools\s*\[/.test(script)) return { calls: [], unresolved: [] };
  const found: ScriptCall[] = parseCodexScript(script);
  const mcp = found.map((c) => ({ ...c, tool: normalizeToolName(c.name) })).filter((c) => c.tool);
  if (!mcp.length) return { calls: [], unresolved: [] };
  const output = codexOutput(content);
  const own = mcpResults(output);
  const calls: ToolEvent[] = [];
  const unresolved: UnresolvedCall[] = [];
  mcp.forEach((c, n) => {
    const callId = `${id}#${n + 1}`;
    const tool = c.tool!;
    const mine = own.length === mcp.length ? own[n] : mcp.length === 1 && own.length === 1 ? own[0] : null;
    // An output the calls share goes to each of them: replayed one after the other, an earlier call's result
    // then shows what later calls returned too (optimistic for grounding).
    const text = mine ? mine.text : output;
    const isError = mine
      ? mine.isError || ERROR_HEAD.test(mine.text)
      : output.includes(`Error executing tool ${tool}:`);
    if (c.unresolved.length) unresolved.push({ id: callId, step, tool, values: c.unresolved });
    calls.push({
      id: callId,
      step,
      raw: c.name,
      tool,
      input: c.input,
      text,
      isError,
      answered: content !== "",
      sidechain,
      batch,
      sequential: true,
    });
  });
  return { calls, unresolved };
}
