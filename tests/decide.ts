/** The engine per arm: what each arm enforces, records and injects, and its bounds. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { decide, DEFAULT_BOUNDS, type GuardEvent } from "../lib/guard/engine/decide.ts";
import { type Arm, ARMS, type LedgerRecord } from "../lib/guard/engine/record.ts";
import { recordsOf, toolCall } from "../lib/guard/engine/rule.ts";
import { PAYER_PROMPT, PROVIDER_PROMPT } from "./support/payloads.ts";

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

s("post and post-fail keep the call's duration_ms; a negative or absent one is left out", () => {
  const post = { word: "post" as const, session: "s", tool: "mcp__healthverse__cases_get_case", input: {} };
  const timed = run("checklist", { ...post, toolUseId: "t3", response: "{}", durationMs: 142 });
  assert.is(timed.record?.duration_ms, 142);
  const failed = run("shadow", { ...post, word: "post-fail", toolUseId: "t4", error: "boom", durationMs: 9 });
  assert.is(failed.record?.duration_ms, 9);
  assert.not.ok("duration_ms" in run("checklist", { ...post, toolUseId: "t5", response: "{}" }).record!);
  const negative = run("checklist", { ...post, toolUseId: "t6", response: "{}", durationMs: -1 });
  assert.not.ok("duration_ms" in negative.record!);
});

s("an API-error ending (StopFailure) is recorded with its kind, never decided, never blocked", () => {
  for (const arm of ["shadow", "checklist", "critic"] as const) {
    const out = run(arm, {
      word: "stop-fail",
      session: "s",
      error: "rate_limit",
      details: "429 Too Many Requests; key sk-ant-api03-abcdefghijklmnopqrstuvwxyz01",
    });
    assert.equal(out.reply, {});
    assert.equal([out.record?.event, out.record?.decision, out.record?.error], [
      "stop-fail",
      "record",
      "rate_limit",
    ]);
    assert.match(out.record?.note ?? "", "429 Too Many Requests");
    assert.not.match(JSON.stringify(out.record), "sk-ant-api03");
  }
  assert.is(run("stock", { word: "stop-fail", session: "s", error: "overloaded" }).record, null);
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

/** A provider session whose own questionnaire answer denies a completed step, then a submit_pa decision. */
const GAP_RECORDS = recordsOf({
  prompt: PROVIDER_PROMPT,
  calls: [
    toolCall("cases_create_from_order", { patient_id: "PAT-c7e617a246b7" }, {
      result: { case: { id: "CASE-ACT-001", patient_id: "PAT-c7e617a246b7" } },
    }),
    toolCall("forms_list_required_forms", { case_id: "CASE-ACT-001" }, {
      result: {
        items: [{ questions: [{ key: "counseling_completed", label: "Was counseling completed?" }] }],
      },
    }),
    toolCall("forms_save_form_response", {
      case_id: "CASE-ACT-001",
      form_id: "FORM-POLICY-CASE-ACT-001-QUESTIONNAIRE-01",
      answers: { counseling_completed: "No. A referral was placed on 03/10." },
    }),
  ],
});
const DECIDE_SUBMIT: GuardEvent = {
  word: "pre",
  session: "s",
  tool: "mcp__healthverse__auth_finalize_provider_determination",
  input: {
    case_id: "CASE-ACT-001",
    final_action: "submit_pa",
    override_reason:
      "Personal history of breast cancer diagnosed at 43 meets the multi-gene panel criterion.",
  },
  toolUseId: "t9",
};

s("critic: a decisive judge blocks on its own, names the fact and both options", () => {
  const out = run("critic", DECIDE_SUBMIT, GAP_RECORDS);
  assert.is(permission(out.reply), "deny");
  assert.equal(out.record?.rules?.map((r) => r.id), ["CRITIC-01"]);
  assert.match(out.record?.reason ?? "", /\[CRITIC-01\] Cannot record submit_pa on CASE-ACT-001/);
  assert.match(out.record?.reason ?? "", /"No\. A referral was placed on 03\/10\."/);
  assert.match(
    out.record?.reason ?? "",
    /send the same call again: auth_finalize_provider_determination\(case_id=CASE-ACT-001, final_action=submit_pa\).*call auth_finalize_provider_determination\(case_id=CASE-ACT-001, final_action=gather_more_evidence.*do_not_submit/s,
  );
  const vote = out.record?.votes?.find((v) => v.judge === "self-consistency");
  assert.equal([vote?.object, vote?.mode], [true, "decisive"]);
});

s("critic: the judge asks once, then the same decision is released", () => {
  const first = run("critic", DECIDE_SUBMIT, GAP_RECORDS);
  const second = run("critic", { ...DECIDE_SUBMIT, toolUseId: "t10" }, [...GAP_RECORDS, first.record!]);
  assert.is(permission(second.reply), "allow");
  assert.is(second.record?.decision, "release");
});

s("checklist: the same objection is recorded as shadow, never enforced", () => {
  const out = run("checklist", DECIDE_SUBMIT, GAP_RECORDS);
  assert.is(permission(out.reply), "allow");
  assert.is(out.record?.decision, "shadow");
  assert.equal(out.record?.rules?.map((r) => r.id), ["CRITIC-01"]);
});

s("critic: the agent's recent text is read but never recorded", () => {
  const said = "Only 1 of 3 required bullets is met, so I will disclose it and submit.";
  const records = GAP_RECORDS.slice(0, 2); // the prompt and the case, no questionnaire answer
  const out = run("critic", { ...DECIDE_SUBMIT, recentText: ["secret plan", said] }, records);
  assert.is(permission(out.reply), "deny");
  assert.match(out.record?.reason ?? "", /your own note before this call says "Only 1 of 3/);
  assert.not.match(JSON.stringify(out.record), "secret plan");
});

s("critic: a shadow judge's objection is recorded and the call allowed", () => {
  const records = recordsOf({ prompt: PAYER_PROMPT, calls: [] });
  const out = run("critic", {
    word: "pre",
    session: "s",
    tool: "mcp__healthverse__review_submit_md_case_decision",
    input: { case_id: "CASE-3903B8ED", decision: "p2p_review", determination_rationale: "Close call." },
    toolUseId: "t11",
  }, records);
  const vote = out.record?.votes?.find((v) => v.judge === "p2p-contract");
  assert.equal([vote?.object, vote?.mode], [true, "shadow"]);
  assert.ok(!out.record?.rules?.some((r) => r.id === "CRITIC-02"));
});

const BUNDLE: GuardEvent = {
  word: "pre",
  session: "s",
  tool: "mcp__healthverse__docs_create_submission_bundle",
  input: { case_id: "CASE-ACT-001", document_ids: [] },
  toolUseId: "t20",
};

s("critic: the first bundle is asked once, by CRITIC-01 and the checkpoint in one deny", () => {
  const out = run("critic", BUNDLE, GAP_RECORDS);
  assert.is(permission(out.reply), "deny");
  assert.equal(out.record?.rules?.map((r) => r.id), ["CRITIC-01", "CHECKPOINT-01"]);
  assert.match(out.record?.reason ?? "", /\[CRITIC-01\] Cannot build a submission bundle for CASE-ACT-001/);
  assert.match(
    out.record?.reason ?? "",
    /\[CHECKPOINT-01\] .*Is each enumerated criterion of the governing policy/s,
  );
  assert.equal(out.record?.rules?.find((r) => r.id === "CHECKPOINT-01")?.checks, []);
  const again = run("critic", { ...BUNDLE, toolUseId: "t21" }, [...GAP_RECORDS, out.record!]);
  assert.is(permission(again.reply), "allow");
  assert.is(again.record?.decision, "release");
});

s("critic: a judge that asked at the bundle does not ask again at the determination on that case", () => {
  const asked = run("critic", BUNDLE, GAP_RECORDS);
  const bundled = recordsOf({
    calls: [toolCall("docs_create_submission_bundle", BUNDLE.input, { result: { case_id: "CASE-ACT-001" } })],
  });
  const out = run("critic", DECIDE_SUBMIT, [...GAP_RECORDS, asked.record!, ...bundled]);
  assert.is(permission(out.reply), "allow");
  assert.is(out.record?.decision, "release");
  assert.equal(out.record?.rules?.map((r) => r.id), ["CRITIC-01"]);
});

for (const arm of ["shadow", "plan", "checklist"] as const) {
  s(`${arm}: the checkpoint neither votes nor blocks`, () => {
    const out = run(arm, BUNDLE, GAP_RECORDS.slice(0, 2)); // the prompt and the case, no finding
    assert.is(permission(out.reply), "allow");
    assert.not.ok(out.record?.votes?.some((v) => v.judge === "disposition-checkpoint"));
    assert.not.ok(out.record?.rules?.some((r) => r.id === "CHECKPOINT-01"));
  });
}

s("every arm is covered", () => assert.equal([...ARMS], PRE_BY_ARM.map(([arm]) => arm)));

s.run();
