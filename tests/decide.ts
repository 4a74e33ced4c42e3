/** The engine per arm: what each arm enforces, records and injects, and its bounds. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { decide, DEFAULT_BOUNDS, type GuardEvent } from "../lib/decide.ts";
import { type Arm, ARMS, type LedgerRecord } from "../lib/ledger.ts";
import { recordsOf, toolCall } from "../lib/rule.ts";
import { PROVIDER_PROMPT } from "./support/payloads.ts";

const s = suite("decide");

const SUBMIT: GuardEvent = {
  word: "pre",
  session: "s",
  tool: "mcp__healthverse__auth_submit_authorization",
  input: { case_id: "CASE-ACT-001" },
  toolUseId: "t1",
};
const PROMPTED = recordsOf({ prompt: PROVIDER_PROMPT });

function run(arm: Arm, event: GuardEvent, records: LedgerRecord[] = PROMPTED) {
  return decide(event, records, { arm, bounds: DEFAULT_BOUNDS }, "2026-11-30T00:00:00.000Z");
}

function permission(reply: Record<string, unknown>): string | undefined {
  return (reply.hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision;
}

const PRE_BY_ARM: [Arm, string, string | null][] = [
  ["stock", "allow", null],
  ["shadow", "allow", "shadow"],
  ["plan", "allow", "shadow"],
  ["checklist", "deny", "deny"],
  ["critic", "deny", "deny"],
];
for (const [arm, reply, recorded] of PRE_BY_ARM) {
  s(`${arm}: a premature submission is answered ${reply}, recorded ${recorded}`, () => {
    const out = run(arm, SUBMIT);
    assert.is(permission(out.reply), reply);
    assert.is(out.record?.decision ?? null, recorded);
  });
}

const PLAN_BY_ARM: [Arm, boolean][] = [["stock", false], ["shadow", false], ["plan", true], [
  "checklist",
  true,
], [
  "critic",
  true,
]];
for (const [arm, injects] of PLAN_BY_ARM) {
  s(`${arm}: the task prompt ${injects ? "gets" : "does not get"} the role plan`, () => {
    const out = run(arm, { word: "prompt", session: "s", prompt: PROVIDER_PROMPT }, []);
    const context = (out.reply.hookSpecificOutput as { additionalContext?: string } | undefined)
      ?.additionalContext;
    assert.is(Boolean(context), injects);
  });
}

s("session-start after compaction re-injects the plan for the known prompt", () => {
  const out = run("plan", { word: "session-start", session: "s", source: "compact" });
  assert.match(JSON.stringify(out.reply), "additionalContext");
});

s("a tool outside healthverse is allowed and not recorded", () => {
  const out = run("critic", { ...SUBMIT, tool: "Bash", input: { command: "ls" } });
  assert.is(permission(out.reply), "allow");
  assert.is(out.record, null);
});

s("post records the result, its ids, and redacts secrets", () => {
  const out = run("checklist", {
    word: "post",
    session: "s",
    tool: "mcp__healthverse__cases_get_case",
    input: { case_id: "CASE-ACT-001" },
    toolUseId: "t2",
    response: [{
      type: "text",
      text: '{"case":{"id":"CASE-ACT-001"},"note":"sk-ant-api03-abcdefghijklmnopqrstuvwxyz01"}',
    }],
  });
  assert.is(out.record?.event, "post");
  assert.ok(out.record?.ids?.includes("CASE-ACT-001"));
  assert.not.match(JSON.stringify(out.record), "sk-ant-api03");
});

s("a subagent stop is never blocked", () => {
  const out = run("checklist", { word: "stop", session: "s", subagent: true });
  assert.equal(out.reply, {});
});

s("shadow arm records the open obligations at stop without blocking", () => {
  const out = run("shadow", { word: "stop", session: "s", subagent: false });
  assert.equal(out.reply, {});
  assert.is(out.record?.decision, "shadow");
  assert.ok((out.record?.obligations ?? []).length > 0);
});

s("a stop with every obligation closed is allowed", () => {
  const records = recordsOf({
    prompt: PROVIDER_PROMPT,
    calls: [
      toolCall("cases_create_from_order", { patient_id: "PAT-c7e617a246b7" }, {
        result: { case: { id: "CASE-ACT-001" } },
      }),
      toolCall("auth_finalize_provider_determination", {
        case_id: "CASE-ACT-001",
        final_action: "do_not_submit",
        override_reason: "Coverage was inactive on the date of service.",
      }, { result: { case_id: "CASE-ACT-001", status: "closed" } }),
    ],
  });
  const out = run("checklist", { word: "stop", session: "s", subagent: false }, records);
  assert.equal(out.reply, {});
  assert.is(out.record?.decision, "allow");
});

s("every arm is covered", () => assert.equal([...ARMS], PRE_BY_ARM.map(([arm]) => arm)));

s.run();
