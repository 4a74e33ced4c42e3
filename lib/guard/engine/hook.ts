/**
 * The Claude Code hook protocol: input shapes per event and the one JSON reply each event allows.
 *
 * The input check is written by hand, not with zod: it runs in every hook process, and under Deno resolving
 * an npm package at start-up costs more than the hook's own work (issue 20). It is the zod schema in
 * tests/support/hook_schema.ts, checked against it on thousands of generated inputs (tests/hook.ts): same
 * accept or refuse, same parsed input, same message (zod's `prettifyError` with its English locale).
 */

/** The guard's event words (CLI argument) and the `hook_event_name` each expects. */
export const EVENTS = {
  "pre": "PreToolUse",
  "post": "PostToolUse",
  "post-fail": "PostToolUseFailure",
  "stop": "Stop",
  "prompt": "UserPromptSubmit",
  "session-start": "SessionStart",
  "stop-fail": "StopFailure",
} as const;

/** A guard event word: `pre`, `post`, `post-fail`, `stop`, `prompt`, `session-start`, `stop-fail`. */
export type EventWord = keyof typeof EVENTS;

/** True when the word names a guard event. */
export function isEventWord(word: string): word is EventWord {
  return Object.hasOwn(EVENTS, word);
}

/** The event word for a `hook_event_name` (SubagentStop is handled as stop), or null. */
export function eventWordOf(hookEventName: string): EventWord | null {
  if (hookEventName === "SubagentStop") return "stop";
  for (const [word, name] of Object.entries(EVENTS)) if (name === hookEventName) return word as EventWord;
  return null;
}

/** The fields every hook input carries. */
interface BaseInput {
  session_id: string;
  transcript_path?: string;
  cwd?: string;
  agent_id?: string;
}
/** PreToolUse input. */
export interface PreToolUseInput extends BaseInput {
  hook_event_name: "PreToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
}
/**
 * PostToolUse input: `tool_response` is a content-block array for MCP tools, but parsed defensively.
 * `duration_ms` is how long the call took (Claude Code 2.1.x); a value that is not a number is dropped.
 */
export interface PostToolUseInput extends BaseInput {
  hook_event_name: "PostToolUse";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_response: unknown;
  tool_use_id: string;
  duration_ms?: number;
}
/** PostToolUseFailure input (an MCP result with isError, or a thrown tool). */
export interface PostToolUseFailureInput extends BaseInput {
  hook_event_name: "PostToolUseFailure";
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
  error: string;
  duration_ms?: number;
}
/** Stop / SubagentStop input. */
export interface StopInput extends BaseInput {
  hook_event_name: "Stop" | "SubagentStop";
  stop_hook_active: boolean;
  last_assistant_message?: string;
}
/**
 * StopFailure input: the turn ended on an API error, not by the agent stopping (Claude Code runs it instead of
 * Stop, ignoring its output). `error` is the error's kind (`rate_limit`, `overloaded`, `server_error`,
 * `invalid_request`, `max_output_tokens`, … in 2.1.332), `error_details` the API's text.
 */
export interface StopFailureInput extends BaseInput {
  hook_event_name: "StopFailure";
  error: string;
  error_details?: string;
  last_assistant_message?: string;
}
/** UserPromptSubmit input. */
export interface UserPromptSubmitInput extends BaseInput {
  hook_event_name: "UserPromptSubmit";
  prompt: string;
}
/** SessionStart input. */
export interface SessionStartInput extends BaseInput {
  hook_event_name: "SessionStart";
  source: string;
}
/** Any hook input the guard handles. */
export type HookInput =
  | PreToolUseInput
  | PostToolUseInput
  | PostToolUseFailureInput
  | StopInput
  | StopFailureInput
  | UserPromptSubmitInput
  | SessionStartInput;

/**
 * One field's check: the value to keep (`undefined` leaves the key out unless `present` says to keep it), or
 * the messages refusing it.
 */
type FieldCheck = (value: unknown) => { value: unknown; present?: boolean } | { messages: string[] };

/** The type name zod's English messages use for a JSON value. */
function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

const expected = (type: string, value: unknown) =>
  `Invalid input: expected ${type}, received ${typeName(value)}`;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const refuse = (type: string, value: unknown) => ({ messages: [expected(type, value)] });

const text: FieldCheck = (v) => typeof v === "string" ? { value: v } : refuse("string", v);
/**
 * A string of at least one character. As zod's `minLength(1)` does, the length check also runs on a value
 * of the wrong type that has a `length` (an array, an object with a `length` key), adding its own message.
 */
const nonEmptyText: FieldCheck = (v) => {
  const messages = typeof v === "string" ? [] : [expected("string", v)];
  const length = v === null || v === undefined ? undefined : (v as { length?: unknown }).length;
  if (length !== undefined && !((length as number) >= 1)) {
    messages.push(
      Array.isArray(v)
        ? "Too small: expected array to have >=1 items"
        : typeof v === "string"
        ? "Too small: expected string to have >=1 characters"
        : "Too small: expected unknown to be >=1",
    );
  }
  return messages.length ? { messages } : { value: v };
};
const optional = (check: FieldCheck): FieldCheck => (v) => v === undefined ? { value: undefined } : check(v);
const withDefault = (check: FieldCheck, fallback: unknown): FieldCheck => (v) =>
  v === undefined ? { value: fallback } : check(v);
const record: FieldCheck = (v) => isRecord(v) ? { value: v } : refuse("record", v);
const flag: FieldCheck = (v) => typeof v === "boolean" ? { value: v } : refuse("boolean", v);
const required: FieldCheck = (v) => v === undefined ? refuse("nonoptional", v) : { value: v };
const given: FieldCheck = (v) => ({ value: v });
/**
 * A number, kept only when it is one (zod's `catch`, which keeps the key): a malformed measurement never costs
 * the record its evidence.
 */
const measure: FieldCheck = (v) => ({
  value: typeof v === "number" ? v : undefined,
  present: v !== undefined,
});

const BASE: Record<string, FieldCheck> = {
  session_id: nonEmptyText,
  hook_event_name: given,
  transcript_path: optional(text),
  cwd: optional(text),
  agent_id: optional(text),
};
const TOOL_CALL = { tool_name: nonEmptyText, tool_input: withDefault(record, {}) };

const STOP = { ...BASE, stop_hook_active: withDefault(flag, false), last_assistant_message: optional(text) };

/** Each `hook_event_name`'s fields, in the order their problems are reported. */
const SHAPES: Record<string, Record<string, FieldCheck>> = {
  PreToolUse: { ...BASE, tool_name: nonEmptyText, tool_input: record, tool_use_id: withDefault(text, "") },
  PostToolUse: {
    ...BASE,
    ...TOOL_CALL,
    tool_response: required,
    tool_use_id: withDefault(text, ""),
    duration_ms: measure,
  },
  PostToolUseFailure: {
    ...BASE,
    ...TOOL_CALL,
    tool_use_id: withDefault(text, ""),
    error: withDefault(text, ""),
    duration_ms: measure,
  },
  Stop: STOP,
  SubagentStop: STOP,
  StopFailure: {
    ...BASE,
    error: withDefault(text, "unknown"),
    error_details: optional(text),
    last_assistant_message: optional(text),
  },
  UserPromptSubmit: { ...BASE, prompt: text },
  SessionStart: { ...BASE, source: withDefault(text, "startup") },
};

/** A problem with the input: zod's message and where it is (`""` for the input as a whole). */
interface Issue {
  message: string;
  at: string;
}

/** Checks a parsed JSON value against the hook input shapes: the input (unknown keys dropped) or its issues. */
export function checkHookInput(raw: unknown): { input: HookInput } | { issues: Issue[] } {
  if (!isRecord(raw)) return { issues: [{ message: expected("object", raw), at: "" }] };
  const event = raw.hook_event_name;
  const shape = typeof event === "string" && Object.hasOwn(SHAPES, event) ? SHAPES[event] : undefined;
  if (!shape) {
    const names = Object.keys(SHAPES).map((name) => `'${name}'`).join(" | ");
    return { issues: [{ message: `Invalid discriminator value. Expected ${names}`, at: "hook_event_name" }] };
  }
  const input: Record<string, unknown> = {};
  const issues: Issue[] = [];
  for (const [key, check] of Object.entries(shape)) {
    const checked = check(raw[key]);
    if ("messages" in checked) issues.push(...checked.messages.map((message) => ({ message, at: key })));
    else if (checked.value !== undefined || checked.present) input[key] = checked.value;
  }
  return issues.length ? { issues } : { input: input as unknown as HookInput };
}

/** Issues as zod's `prettifyError` prints them: whole-input problems first, each `✖ message` then `→ at key`. */
function prettyIssues(issues: Issue[]): string {
  return [...issues].sort((a, b) => (a.at ? 1 : 0) - (b.at ? 1 : 0))
    .flatMap((issue) => [`✖ ${issue.message}`, ...(issue.at ? [`  → at ${issue.at}`] : [])])
    .join("\n");
}

/** The result of parsing raw stdin for an event: the input, or a readable reason it was refused. */
export type ParsedInput = { ok: true; input: HookInput } | { ok: false; reason: string };

/** Parses stdin text for the expected event; the reason names what was wrong and where. */
export function parseHookInput(text: string, expected: EventWord): ParsedInput {
  if (!text.trim()) return { ok: false, reason: "Cannot read the hook input: stdin was empty." };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `Cannot read the hook input: it is not JSON (${(err as Error).message}).` };
  }
  const checked = checkHookInput(raw);
  if ("issues" in checked) {
    return { ok: false, reason: `Cannot read the hook input: ${prettyIssues(checked.issues)}` };
  }
  const input = checked.input;
  const word = eventWordOf(input.hook_event_name);
  if (word !== expected) {
    return {
      ok: false,
      reason: `Cannot handle ${input.hook_event_name} as "${expected}": the hook is registered for ${
        EVENTS[expected]
      }. Point this event at "guard ${word}".`,
    };
  }
  return { ok: true, input };
}

/** A reply for Claude Code: exactly one JSON object on stdout (or the http response body). */
export type HookReply = Record<string, unknown>;

/** PreToolUse allow, optionally with a reason. */
export function allowReply(reason?: string): HookReply {
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      ...(reason ? { permissionDecisionReason: reason } : {}),
    },
  };
}

/** PreToolUse deny; the reason reaches the model verbatim as the call's error result. */
export function denyReply(reason: string): HookReply {
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: reason,
    },
  };
}

/** Stop block; the reason becomes Claude's next instruction. */
export function stopBlockReply(reason: string): HookReply {
  return { decision: "block", reason };
}

/** Context for UserPromptSubmit / SessionStart. */
export function contextReply(event: "UserPromptSubmit" | "SessionStart", text: string): HookReply {
  return { hookSpecificOutput: { hookEventName: event, additionalContext: text } };
}

/** The neutral reply for an event: allow for PreToolUse, an empty object (no decision) otherwise. */
export function neutralReply(word: EventWord): HookReply {
  return word === "pre" ? allowReply() : {};
}

/** The text of an MCP tool response: content blocks joined, strings kept, objects serialised. */
export function responseText(response: unknown): string {
  if (typeof response === "string") return response;
  if (Array.isArray(response)) {
    return response.map((block) =>
      block && typeof block === "object" && typeof (block as { text?: unknown }).text === "string"
        ? (block as { text: string }).text
        : JSON.stringify(block)
    ).join("\n");
  }
  if (response && typeof response === "object") {
    const maybe = response as { content?: unknown; text?: unknown };
    if (Array.isArray(maybe.content)) return responseText(maybe.content);
    if (typeof maybe.text === "string") return maybe.text;
  }
  return response === undefined ? "" : JSON.stringify(response);
}

/** The JSON object inside a result text, when there is one (results are one text block of JSON). */
export function parseResult(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}
