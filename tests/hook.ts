/** The hook protocol: parsing stdin per event and the replies Claude Code accepts. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  checkHookInput,
  denyReply,
  type HookInput,
  parseHookInput,
  parseResult,
  responseText,
  stopBlockReply,
} from "../lib/guard/engine/hook.ts";
import { type HookInput as ZodHookInput, zodHookInput } from "./support/hook_schema.ts";
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

// The hand-written check is the zod schema it replaced: same verdict, same input, same message, on inputs
// generated from every field of every event with values of every JSON type (a seeded generator, so a
// failure names a case that can be rerun).
const KEYS = [
  "session_id",
  "hook_event_name",
  "transcript_path",
  "cwd",
  "agent_id",
  "tool_name",
  "tool_input",
  "tool_use_id",
  "tool_response",
  "error",
  "stop_hook_active",
  "last_assistant_message",
  "duration_ms",
  "error_details",
  "prompt",
  "source",
  "permission_mode",
];
const EVENT_NAMES = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "SubagentStop",
  "StopFailure",
  "UserPromptSubmit",
  "SessionStart",
  "Notification",
  "toString",
  "",
];
const VALUES: unknown[] = [
  "",
  "s",
  "CASE-1",
  0,
  7,
  -1.5,
  true,
  false,
  null,
  [],
  ["a"],
  {},
  { case_id: "C" },
  { length: 0 },
  { length: null },
  { length: 3 },
];

/** A seeded pseudo-random generator (mulberry32): numbers in [0, 1). */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A JSON value shaped like a hook input: each field absent, well-typed or (at a drawn rate) of another type. */
function generatedInput(random: () => number): unknown {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  if (random() < 0.03) return pick(VALUES);
  const wrong = random() < 0.5 ? 0.2 : 0.01;
  const raw: Record<string, unknown> = {};
  for (const key of KEYS) {
    if (random() < 0.25) continue;
    if (random() < wrong) raw[key] = pick(VALUES);
    else if (key === "hook_event_name") raw[key] = pick(EVENT_NAMES);
    else if (key === "tool_input") raw[key] = { case_id: "C", n: 1 };
    else if (key === "stop_hook_active") raw[key] = random() < 0.5;
    else if (key === "duration_ms") raw[key] = Math.floor(random() * 5000);
    else raw[key] = `${key} text`;
  }
  return raw;
}

s("the hand-written check agrees with the zod schema on 5,000 generated inputs", () => {
  const random = seeded(20);
  let accepted = 0;
  for (let i = 0; i < 5000; i++) {
    const raw = JSON.parse(JSON.stringify(generatedInput(random)));
    const ours = checkHookInput(raw);
    const zods = zodHookInput(raw);
    const shown = `case ${i}: ${JSON.stringify(raw)}`;
    assert.is("input" in ours, zods.ok, shown);
    if ("input" in ours && zods.ok) {
      accepted++;
      assert.equal(ours.input, zods.input, shown);
      assert.equal(Object.keys(ours.input), Object.keys(zods.input), shown);
    } else if (!zods.ok) {
      const reason = parseHookInput(JSON.stringify(raw), "pre");
      assert.is(reason.ok, false, shown);
      if (!reason.ok) assert.is(reason.reason, `Cannot read the hook input: ${zods.message}`, shown);
    }
  }
  // Both verdicts must be well represented, or the comparison proves little.
  assert.ok(accepted > 500 && accepted < 4500, `${accepted} of 5000 accepted`);
});

s("the hand-written input types are the zod schema's types", () => {
  // Compiles only while each type is assignable to the other.
  const same = (zod: ZodHookInput): HookInput => zod;
  const back = (ours: HookInput): ZodHookInput => ours;
  assert.type(same, "function");
  assert.type(back, "function");
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
