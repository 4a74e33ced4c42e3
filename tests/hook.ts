/** The hook protocol: parsing stdin per event and the replies Claude Code accepts. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  denyReply,
  parseHookInput,
  parseResult,
  responseText,
  stopBlockReply,
} from "../lib/guard/engine/hook.ts";
import { post, pre, prompt, stop } from "./support/payloads.ts";

const s = suite("hook");

const ACCEPTED: [string, string, "pre" | "post" | "stop" | "prompt"][] = [
  ["PreToolUse", pre("s", "auth_submit_authorization", { case_id: "CASE-ACT-001" }), "pre"],
  [
    "PostToolUse",
    post("s", "cases_get_case", { case_id: "CASE-ACT-001" }, { case: { id: "CASE-ACT-001" } }),
    "post",
  ],
  ["Stop", stop("s"), "stop"],
  ["SubagentStop as stop", JSON.stringify({ session_id: "s", hook_event_name: "SubagentStop" }), "stop"],
  ["UserPromptSubmit", prompt("s", "# x"), "prompt"],
];
for (const [name, text, word] of ACCEPTED) {
  s(`accepts ${name}`, () => assert.is(parseHookInput(text, word).ok, true));
}

const REFUSED: [string, string, string][] = [
  ["empty", "  ", "stdin was empty"],
  ["not JSON", "nope", "not JSON"],
  ["wrong event", stop("s"), 'Point this event at "guard stop"'],
  ["no session", JSON.stringify({ hook_event_name: "Stop" }), "session_id"],
  [
    "tool_input not an object",
    JSON.stringify({ session_id: "s", hook_event_name: "PreToolUse", tool_name: "x", tool_input: 3 }),
    "tool_input",
  ],
  ["unknown event", JSON.stringify({ session_id: "s", hook_event_name: "Notification" }), "hook_event_name"],
];
for (const [name, text, why] of REFUSED) {
  s(`refuses ${name}, saying why`, () => {
    const parsed = parseHookInput(text, "pre");
    assert.is(parsed.ok, false);
    if (!parsed.ok) assert.match(parsed.reason, why);
  });
}

s("a refusal names each problem and the key it is at, as zod prints it", () => {
  const parsed = parseHookInput(
    JSON.stringify({ session_id: "", hook_event_name: "PreToolUse", tool_name: 3, tool_input: [] }),
    "pre",
  );
  assert.is(parsed.ok, false);
  if (parsed.ok) return;
  for (const at of ["session_id", "tool_name", "tool_input"]) assert.match(parsed.reason, `→ at ${at}`);
  assert.match(parsed.reason, "Invalid input: expected string, received number");
});

s("an accepted input keeps its known keys, fills defaults and drops the rest", () => {
  const parsed = parseHookInput(
    JSON.stringify({ session_id: "s", hook_event_name: "PreToolUse", tool_name: "t", tool_input: {}, x: 1 }),
    "pre",
  );
  assert.equal(parsed, {
    ok: true,
    input: {
      session_id: "s",
      hook_event_name: "PreToolUse",
      tool_name: "t",
      tool_input: {},
      tool_use_id: "",
    },
  });
});

s("a post's duration_ms that is not a number is dropped, never refusing the input", () => {
  const parsed = parseHookInput(
    JSON.stringify({ ...JSON.parse(post("s", "cases_get_case", {}, {})), duration_ms: "slow" }),
    "post",
  );
  assert.is(parsed.ok, true);
  if (parsed.ok) assert.is((parsed.input as { duration_ms?: number }).duration_ms, undefined);
});

s("deny and stop-block replies carry the event name and reason", () => {
  assert.equal(denyReply("r"), {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "r",
    },
  });
  assert.equal(stopBlockReply("r"), { decision: "block", reason: "r" });
});

const RESPONSES: [string, unknown, string][] = [
  ["content blocks", [{ type: "text", text: '{"a":1}' }], '{"a":1}'],
  ["a string", "plain", "plain"],
  ["an object with content", { content: [{ type: "text", text: "t" }] }, "t"],
  ["an object", { a: 1 }, '{"a":1}'],
  ["nothing", undefined, ""],
];
for (const [name, response, text] of RESPONSES) {
  s(`responseText of ${name}`, () => assert.is(responseText(response), text));
}

s("parseResult reads JSON and leaves persisted-output previews as undefined", () => {
  assert.equal(parseResult('{"case_id":"CM-CASE-X"}'), { case_id: "CM-CASE-X" });
  assert.is(parseResult("<persisted-output> Preview (first 2KB): {"), undefined);
});

s.run();
