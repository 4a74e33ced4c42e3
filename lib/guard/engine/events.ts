/**
 * The hook's event words and the replies each event allows, apart from the input's schema: no npm package, so
 * `guard.ts` can answer (and, on a fresh clone, install the packages) before zod loads. `hook.ts` re-exports it.
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
