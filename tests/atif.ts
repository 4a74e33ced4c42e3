/** ATIF reading: every file form and version, harness spellings, codex scripts, errors, counts, prompt. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zstdCompressSync } from "node:zlib";
import {
  codexOutput,
  countToolCalls,
  parseTrajectory,
  readTrajectory,
  resultText,
  taskPrompt,
  toolEvents,
  TrajectoryError,
} from "../lib/trajectories/atif.ts";
import { parseCodexScript } from "../lib/trajectories/codex_script.ts";
import {
  claudeV12,
  claudeV17Json,
  codexV15,
  type FixtureCall,
  hermes,
  mcpJson,
  openaiAgents,
  PROMPTS,
} from "./support/atif_fixture.ts";

const s = suite("atif");
const dir = mkdtempSync(join(tmpdir(), "atif-"));
s.after(() => rmSync(dir, { recursive: true, force: true }));

const CALLS: FixtureCall[] = [
  { name: "cases_create_from_order", args: { patient_id: "PAT-1" }, result: '{"case_id":"CASE-1"}' },
  { name: "auth_submit_authorization", args: { case_id: "CASE-1" }, result: "not ready", error: true },
];

function tools(text: string): (string | null)[] {
  return toolEvents(parseTrajectory(text)).calls.map((c) => c.tool);
}

// Harness spellings → namespace.method, one row per form.
const FORMS: [string, string][] = [
  ["claude-code v1.2 healthverse", claudeV12(PROMPTS.provider, CALLS)],
  ["claude-code v1.2 chi-bench", claudeV12(PROMPTS.provider, CALLS, "chi-bench")],
  ["claude-code v1.7 json", claudeV17Json(PROMPTS.provider, CALLS)],
  ["openai-agents v1.2", openaiAgents(PROMPTS.provider, CALLS)],
];
for (const [name, text] of FORMS) {
  s(`${name}: names normalised`, () => {
    assert.equal(tools(text), ["cases.create_from_order", "auth.submit_authorization"]);
  });
  s(`${name}: error detected on the failed call only`, () => {
    assert.equal(toolEvents(parseTrajectory(text)).calls.map((c) => c.isError), [false, true]);
  });
  s(`${name}: prompt is the first user message`, () => {
    assert.ok(taskPrompt(parseTrajectory(text)).startsWith("# Clinical Intake"));
  });
}

s("bare names (early codex) normalise", () => {
  const text = claudeV12(PROMPTS.provider, [{ name: "Read", args: {}, result: "x" }]).replace(
    '"Read"',
    '"chart_get_patient_chart_by_patient"',
  );
  assert.equal(tools(text), ["chart.get_patient_chart_by_patient"]);
});

s("zstd, plain JSONL and single JSON read from disk", () => {
  const jsonl = claudeV12(PROMPTS.payer, CALLS);
  writeFileSync(join(dir, "a.jsonl.zst"), zstdCompressSync(new TextEncoder().encode(jsonl)));
  writeFileSync(join(dir, "b.jsonl"), jsonl);
  writeFileSync(join(dir, "c.json"), claudeV17Json(PROMPTS.payer, CALLS));
  for (const f of ["a.jsonl.zst", "b.jsonl", "c.json"]) {
    const t = readTrajectory(join(dir, f));
    assert.is(toolEvents(t).calls.length, 2, f);
  }
  assert.is(readTrajectory(join(dir, "a.jsonl.zst")).version, "1.2");
  assert.is(readTrajectory(join(dir, "c.json")).version, "1.7");
});

const BAD: [string, Uint8Array | string, RegExp][] = [
  ["missing", "", /missing/],
  ["empty", "", /empty/],
  [
    "truncated zstd",
    zstdCompressSync(new TextEncoder().encode(claudeV12(PROMPTS.cm, CALLS))).slice(0, 20),
    /zstd/,
  ],
  ["not ATIF", '{"hello":1}\n', /_atif_header/],
];
for (const [name, bytes, reason] of BAD) {
  s(`bad input: ${name}`, () => {
    const path = join(
      dir,
      `bad-${name.replace(/ /g, "_")}.jsonl${bytes instanceof Uint8Array ? ".zst" : ""}`,
    );
    if (name !== "missing") writeFileSync(path, bytes);
    try {
      readTrajectory(path);
      assert.unreachable("should throw");
    } catch (err) {
      assert.instance(err, TrajectoryError);
      assert.match((err as TrajectoryError).reason, reason);
    }
  });
}

s("a truncated last line is counted, not fatal", () => {
  const text = claudeV12(PROMPTS.cm, CALLS);
  const t = parseTrajectory(text.slice(0, text.length - 30));
  assert.is(t.corrupt, 1);
});

s("header-only trajectory (agent timeout) has no calls", () => {
  const t = parseTrajectory(
    '{"_atif_header":{"schema_version":"ATIF-v1.2","agent":{"name":"openai-agents"}}}\n',
  );
  assert.equal(toolEvents(t).calls, []);
  assert.equal(countToolCalls(t), { all: 0, mcp: 0 });
});

s("pairing by id across the file: a result in a later step", () => {
  const lines = claudeV12(PROMPTS.cm, []).trim().split("\n");
  lines.push(JSON.stringify({
    step_id: 2,
    source: "agent",
    tool_calls: [{
      tool_call_id: "t1",
      function_name: "mcp__healthverse__cm_intake_open_case",
      arguments: {},
    }],
  }));
  lines.push(JSON.stringify({
    step_id: 3,
    source: "user",
    observation: { results: [{ source_call_id: "t1", content: '{"case_id":"CM-CASE-1"}' }] },
  }));
  const [call] = toolEvents(parseTrajectory(lines.join("\n"))).calls;
  assert.is(call.text, '{"case_id":"CM-CASE-1"}');
  assert.ok(call.answered);
});

s("sidechain steps are kept and marked", () => {
  const text = claudeV12(PROMPTS.cm, [CALLS[0]]).replace('"is_sidechain":false', '"is_sidechain":true');
  assert.equal(toolEvents(parseTrajectory(text)).calls.map((c) => c.sidechain), [true]);
});

// Codex scripts: [script, expected calls as name + input, unresolved paths].
const SCRIPTS: [string, string, { name: string; input: Record<string, unknown> }[], string[]][] = [
  ["plain object", 'await tools.mcp__healthverse__cases_get_case({case_id:"CASE-1"})', [
    { name: "mcp__healthverse__cases_get_case", input: { case_id: "CASE-1" } },
  ], []],
  ["single quotes, trailing comma, comments", "tools.x_y({a: 'b', // note\n c: [1, 2,], /* d */ e: true,})", [
    { name: "x_y", input: { a: "b", c: [1, 2], e: true } },
  ], []],
  [
    "const substitution and shorthand",
    'const id = "C-1";\nconst plan = {goals: [{text: "g"}]};\ntools.a_b({id, plan_data: plan})',
    [
      { name: "a_b", input: { id: "C-1", plan_data: { goals: [{ text: "g" }] } } },
    ],
    [],
  ],
  ["bracket name and no arguments", 'tools["mcp__healthverse__p2p_list"]()', [
    { name: "mcp__healthverse__p2p_list", input: {} },
  ], []],
  ["dynamic values", "for (const c of cs) tools.a_b({case_id: c.id, n: `x${c}`})", [
    { name: "a_b", input: { case_id: { __unresolved__: "c.id" }, n: { __unresolved__: "`x${c}`" } } },
  ], ["case_id ← c.id", "n ← `x${c}`"]],
  ["reassigned let is dynamic", 'let s = "a";\ns = "b";\ntools.a_b({s})', [
    { name: "a_b", input: { s: { __unresolved__: "s" } } },
  ], ["s ← s"]],
  ["ALL_TOOLS is not a call", 'ALL_TOOLS.filter(x => x.name.startsWith("mcp__healthverse__"))', [], []],
];
for (const [name, script, calls, unresolved] of SCRIPTS) {
  s(`codex script: ${name}`, () => {
    const found = parseCodexScript(script);
    assert.equal(found.map((c) => ({ name: c.name, input: c.input })), calls);
    assert.equal(found.flatMap((c) => c.unresolved), unresolved);
  });
}

s("codex: unbalanced script terminates", () => {
  const found = parseCodexScript("tools.a_b({x: {y: 1}); for (");
  assert.is(found.length, 1);
});

s("codex: calls, per-call results, errors and unresolved from exec scripts", () => {
  const text = codexV15(PROMPTS.cm, [
    {
      script: "const [a, b] = await Promise.all([\n" +
        ' tools.mcp__healthverse__cm_intake_get_referral({referral_id:"REF-1"}),\n' +
        " tools.mcp__healthverse__cm_chart_get_chart_data({case_id: caseId})]);\ntext(JSON.stringify({a,b}));",
      output: JSON.stringify({
        a: JSON.parse(mcpJson('{"referral_id":"REF-1"}')),
        b: JSON.parse(mcpJson("Error executing tool cm_chart.get_chart_data: no case", true)),
      }),
    },
    { script: 'await tools.exec_command({cmd:"ls"})', output: "a\nb" },
  ]);
  const t = parseTrajectory(text);
  const { calls, unresolved } = toolEvents(t);
  assert.equal(calls.map((c) => [c.tool, c.isError, c.text]), [
    ["cm_intake.get_referral", false, '{"referral_id":"REF-1"}'],
    ["cm_chart.get_chart_data", true, "Error executing tool cm_chart.get_chart_data: no case"],
  ]);
  assert.is(calls[0].batch, calls[1].batch);
  assert.equal(unresolved.map((u) => [u.tool, u.values]), [["cm_chart.get_chart_data", [
    "case_id ← caseId",
  ]]]);
  assert.equal(countToolCalls(t), { all: 2, mcp: 2 });
  assert.ok(taskPrompt(t).startsWith("# Ms. Zhang"), "environment context is skipped");
});

s("codex output: Python repr parts decoded, header removed", () => {
  const content = "[{'type': 'input_text', 'text': 'Script completed\\nOutput:\\n'}, " +
    "{'type': 'input_text', 'text': \"it's \\\\u00e9 \\u00e9\\n\"}]";
  assert.is(codexOutput(content), "it's \\u00e9 \u00e9\n");
});

s("openai-agents text blocks unwrap", () => {
  assert.is(resultText('[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]'), "a\nb");
  assert.is(resultText("plain"), "plain");
  // openai-agents: one block, Python spacing, an error inside.
  assert.is(
    resultText('{"type": "text", "text": "Error executing tool p2p.list: boom"}'),
    "Error executing tool p2p.list: boom",
  );
});

// hermes: its dispatcher, its result wrappers and its error forms.
s("hermes: tool_call names the MCP tool; the wrapped FastMCP result reads as the tool's JSON", () => {
  const text = hermes(PROMPTS.payer, [
    { name: "p2p_list", args: { case_id: "CASE-1" }, result: '{"items":[{"id":"P2P-1"}]}' },
    { name: "p2p_schedule", via: "direct", args: { request_id: "P2P-1" }, result: '{"status":"event_open"}' },
  ]);
  const calls = toolEvents(parseTrajectory(text)).calls;
  assert.equal(calls.map((c) => [c.tool, c.input]), [
    ["p2p.list", { case_id: "CASE-1" }],
    ["p2p.schedule", { request_id: "P2P-1" }],
  ]);
  assert.equal(calls.map((c) => c.text), ['{"items":[{"id":"P2P-1"}]}', '{"status":"event_open"}']);
  assert.equal(countToolCalls(parseTrajectory(text)), { all: 2, mcp: 2 });
});

const HERMES_ERRORS: [string, string][] = [
  ["an unknown tool name", "Tool 'payer_intake_hub.get_intake_case' does not exist. Available tools: …"],
  ["the dispatcher refusing a tool", `{"error": "'triage.get' is not a deferrable tool."}`],
];
for (const [name, result] of HERMES_ERRORS) {
  s(`hermes: ${name} is a failed call`, () => {
    const lines = hermes(PROMPTS.payer, []).trim().split("\n");
    lines.push(JSON.stringify({
      step_id: 2,
      source: "agent",
      tool_calls: [{ tool_call_id: "h1", function_name: "triage.get", arguments: { case_id: "CASE-1" } }],
      observation: { results: [{ source_call_id: "h1", content: result }] },
    }));
    assert.equal(toolEvents(parseTrajectory(lines.join("\n"))).calls.map((c) => c.isError), [true]);
  });
}

s("hermes context compaction: calls recorded twice happen once, in the order the session made them", () => {
  // The compacted view (prompt, first turn, summary, retained tail, the turn after compaction), then the
  // archived history from the prompt again, whose middle turns the compacted view left out.
  const prompt = PROMPTS.provider;
  const turn = (step: number, id: string, name: string, content: string) => ({
    step_id: step,
    source: "agent",
    tool_calls: [{ tool_call_id: id, function_name: `mcp_healthverse_${name}`, arguments: {} }],
    observation: { results: [{ source_call_id: id, content }] },
  });
  const steps = [
    { step_id: 1, source: "user", message: prompt },
    turn(2, "a", "chart_search_patients", "[Duplicate tool output — same content as a more recent call]"),
    { step_id: 3, source: "user", message: "[CONTEXT COMPACTION — REFERENCE ONLY] summary" },
    turn(4, "d", "cases_create_from_order", '{"case":{"id":"CASE-ACT-001"}}'),
    turn(5, "e", "auth_submit_authorization", '{"status":"submitted"}'),
    { step_id: 6, source: "user", message: prompt },
    turn(7, "a", "chart_search_patients", '{"items":[{"id":"PAT-1"}]}'),
    turn(8, "b", "chart_get_patient_chart_by_patient", '{"patient":{"id":"PAT-1"}}'),
    turn(9, "d", "cases_create_from_order", '{"case":{"id":"CASE-ACT-001"}}'),
  ];
  const header = JSON.stringify({ _atif_header: { schema_version: "ATIF-v1.2", agent: { name: "hermes" } } });
  const text = [header, ...steps.map((x) => JSON.stringify(x))].join("\n");
  const calls = toolEvents(parseTrajectory(text)).calls;
  assert.equal(calls.map((c) => c.id), ["a", "b", "d", "e"]);
  assert.is(calls[0].text, '{"items":[{"id":"PAT-1"}]}', "the fullest recorded result is kept");
});

// Counting recipe (harness.md §6): [harness form, all, mcp].
const COUNTS: [string, string, number, number][] = [
  ["claude-code", claudeV12(PROMPTS.cm, [...CALLS, { name: "Read", args: {}, result: "x" }]), 3, 2],
  ["openai-agents", openaiAgents(PROMPTS.cm, CALLS), 2, 2],
];
for (const [name, text, all, mcp] of COUNTS) {
  s(`counts: ${name}`, () => assert.equal(countToolCalls(parseTrajectory(text)), { all, mcp }));
}

s.run();
