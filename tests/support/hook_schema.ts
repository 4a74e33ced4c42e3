/**
 * The hook input schema in zod: the reference the hand-written check in lib/guard/engine/hook.ts is tested against
 * (tests/hook.ts). It was the guard's own parser until issue 20 took zod off the hook path.
 */
import * as z from "zod/mini";
import en from "zod/locales/en";

z.config(en());

const Base = z.object({
  session_id: z.string().check(z.minLength(1)),
  hook_event_name: z.string(),
  transcript_path: z.optional(z.string()),
  cwd: z.optional(z.string()),
  agent_id: z.optional(z.string()),
});

/** PreToolUse input. */
export const PreToolUseInput = z.extend(Base, {
  hook_event_name: z.literal("PreToolUse"),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z._default(z.string(), ""),
});
/** PostToolUse input: `tool_response` is a content-block array for MCP tools, but parse it defensively. */
export const PostToolUseInput = z.extend(Base, {
  hook_event_name: z.literal("PostToolUse"),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z._default(z.record(z.string(), z.unknown()), {}),
  tool_response: z.unknown(),
  tool_use_id: z._default(z.string(), ""),
  duration_ms: z.catch(z.optional(z.number()), undefined),
});
/** PostToolUseFailure input (an MCP result with isError, or a thrown tool). */
export const PostToolUseFailureInput = z.extend(Base, {
  hook_event_name: z.literal("PostToolUseFailure"),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z._default(z.record(z.string(), z.unknown()), {}),
  tool_use_id: z._default(z.string(), ""),
  error: z._default(z.string(), ""),
  duration_ms: z.catch(z.optional(z.number()), undefined),
});
/** Stop / SubagentStop input. */
export const StopInput = z.extend(Base, {
  hook_event_name: z.enum(["Stop", "SubagentStop"]),
  stop_hook_active: z._default(z.boolean(), false),
  last_assistant_message: z.optional(z.string()),
});
/** StopFailure input: the turn ended on an API error. */
export const StopFailureInput = z.extend(Base, {
  hook_event_name: z.literal("StopFailure"),
  error: z._default(z.string(), "unknown"),
  error_details: z.optional(z.string()),
  last_assistant_message: z.optional(z.string()),
});
/** UserPromptSubmit input. */
export const UserPromptSubmitInput = z.extend(Base, {
  hook_event_name: z.literal("UserPromptSubmit"),
  prompt: z.string(),
});
/** SessionStart input. */
export const SessionStartInput = z.extend(Base, {
  hook_event_name: z.literal("SessionStart"),
  source: z._default(z.string(), "startup"),
});

/** Any hook input the guard handles. */
export const HookInput = z.discriminatedUnion("hook_event_name", [
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

/** What zod makes of a parsed JSON value: the input, or its issues as `prettifyError` prints them. */
export function zodHookInput(raw: unknown): { ok: true; input: HookInput } | { ok: false; message: string } {
  const parsed = HookInput.safeParse(raw);
  return parsed.success
    ? { ok: true, input: parsed.data }
    : { ok: false, message: z.prettifyError(parsed.error) };
}
