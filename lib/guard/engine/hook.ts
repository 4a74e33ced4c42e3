/**
 * The Claude Code hook protocol: input shapes per event and the one JSON reply each event allows.
 *
 * The input is checked with zod (`zod/mini`, the tree-shakeable build, so the Node bundle stays small), its
 * refusals printed by zod's `prettifyError` in its English locale: each problem and the key it is at.
 */
import * as z from "zod/mini";
import en from "zod/locales/en";
import { EVENTS, type EventWord, eventWordOf } from "./events.ts";

export {
  allowReply,
  contextReply,
  denyReply,
  EVENTS,
  type EventWord,
  eventWordOf,
  type HookReply,
  isEventWord,
  neutralReply,
  parseResult,
  responseText,
  stopBlockReply,
} from "./events.ts";

z.config(en());

const Base = z.object({
  session_id: z.string().check(z.minLength(1)),
  hook_event_name: z.string(),
  transcript_path: z.optional(z.string()),
  cwd: z.optional(z.string()),
  agent_id: z.optional(z.string()),
});

/** PreToolUse input. */
const PreToolUseInput = z.extend(Base, {
  hook_event_name: z.literal("PreToolUse"),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z._default(z.string(), ""),
});
/**
 * PostToolUse input: `tool_response` is a content-block array for MCP tools, but parse it defensively.
 * `duration_ms` is how long the call took (Claude Code 2.1.x); a value that is not a number is dropped, never
 * costing the record its evidence.
 */
const PostToolUseInput = z.extend(Base, {
  hook_event_name: z.literal("PostToolUse"),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z._default(z.record(z.string(), z.unknown()), {}),
  tool_response: z.unknown(),
  tool_use_id: z._default(z.string(), ""),
  duration_ms: z.catch(z.optional(z.number()), undefined),
});
/** PostToolUseFailure input (an MCP result with isError, or a thrown tool). */
const PostToolUseFailureInput = z.extend(Base, {
  hook_event_name: z.literal("PostToolUseFailure"),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z._default(z.record(z.string(), z.unknown()), {}),
  tool_use_id: z._default(z.string(), ""),
  error: z._default(z.string(), ""),
  duration_ms: z.catch(z.optional(z.number()), undefined),
});
/** Stop / SubagentStop input. */
const StopInput = z.extend(Base, {
  hook_event_name: z.enum(["Stop", "SubagentStop"]),
  stop_hook_active: z._default(z.boolean(), false),
  last_assistant_message: z.optional(z.string()),
});
/**
 * StopFailure input: the turn ended on an API error, not by the agent stopping (Claude Code runs it instead of
 * Stop, ignoring its output). `error` is the error's kind (`rate_limit`, `overloaded`, `server_error`,
 * `invalid_request`, `max_output_tokens`, … in 2.1.332), `error_details` the API's text.
 */
const StopFailureInput = z.extend(Base, {
  hook_event_name: z.literal("StopFailure"),
  error: z._default(z.string(), "unknown"),
  error_details: z.optional(z.string()),
  last_assistant_message: z.optional(z.string()),
});
/** UserPromptSubmit input. */
const UserPromptSubmitInput = z.extend(Base, {
  hook_event_name: z.literal("UserPromptSubmit"),
  prompt: z.string(),
});
/** SessionStart input. */
const SessionStartInput = z.extend(Base, {
  hook_event_name: z.literal("SessionStart"),
  source: z._default(z.string(), "startup"),
});

/** Any hook input the guard handles. */
const HookInput = z.discriminatedUnion("hook_event_name", [
  PreToolUseInput,
  PostToolUseInput,
  PostToolUseFailureInput,
  StopInput,
  StopFailureInput,
  UserPromptSubmitInput,
  SessionStartInput,
]);
/** Any hook input the guard handles. */
export type HookInput = z.infer<typeof HookInput>;

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
  const checked = HookInput.safeParse(raw);
  if (!checked.success) {
    return { ok: false, reason: `Cannot read the hook input: ${z.prettifyError(checked.error)}` };
  }
  const input = checked.data;
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
