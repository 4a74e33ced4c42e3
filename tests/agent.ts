/** fiable-agent unit tests: cost, retries, names, handbook confinement, config, the in-process guard, the loop. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { costOf, parsePrice, priceOf } from "../lib/agent/cost.ts";
import { backoff, isRetryable, type Model, ModelError, type Reply, withRetries } from "../lib/agent/model.ts";
import { combine, flatName, type Toolbox } from "../lib/agent/mcp.ts";
import { confine, handbookTools, sharedSearch } from "../lib/agent/handbook_tools.ts";
import { parseConfig } from "../lib/agent/config.ts";
import { inlineGuard } from "../lib/agent/guard.ts";
import { DEFAULT_LIMITS, runLoop, shownResult, trajectoryName } from "../lib/agent/loop.ts";
import { newTrajectory, writeTrajectory } from "../lib/agent/trajectory.ts";
import { DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import { engineFrom, readProfile, scrubber } from "../agent.ts";

const PROVIDER_PROMPT =
  "# Clinical Intake — Lumbar MRI\n\n- Use only provider namespaces: `chart`, `cases`, `auth`\n";
const KEY = "sk-ant-unit-0123456789abcdefABCDEF";

// ---- cost -------------------------------------------------------------------------------------------
const cost = suite("agent cost");
const COSTS: [string, Parameters<typeof costOf>[0], number][] = [
  ["input and output", { input_tokens: 1_000_000, output_tokens: 1_000_000 }, 18],
  [
    "cache read at the cache price",
    { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1_000_000 },
    0.3,
  ],
  ["cache write at 1.25 x input", {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 1_000_000,
  }, 3.75],
];
for (const [name, usage, usd] of COSTS) {
  cost(name, () => assert.is(Math.round(costOf(usage, priceOf("claude-sonnet-5").price) * 1e6) / 1e6, usd));
}
cost("prefixed and dated names find their price; unknown models fall back", () => {
  assert.is(priceOf("anthropic/claude-opus-5").known, true);
  assert.is(priceOf("claude-haiku-4-5-20251001").known, true);
  assert.equal(priceOf("some-new-model"), { price: { input: 5, output: 25, cacheRead: 0.5 }, known: false });
});
cost("--prices parses three numbers and refuses anything else", () => {
  assert.equal(parsePrice("3,15,0.3"), { input: 3, output: 15, cacheRead: 0.3 });
  assert.throws(() => parsePrice("3,15"), /Cannot use prices "3,15": expected three non-negative numbers/);
});
cost.run();

// ---- retries ----------------------------------------------------------------------------------------
const retry = suite("agent retries");
function httpError(status: number, retryAfter?: string) {
  return Object.assign(new Error(`${status} error`), {
    status,
    headers: { get: (k: string) => (k === "retry-after" ? retryAfter ?? null : null) },
  });
}
const RETRYABLE: [unknown, boolean][] = [
  [httpError(429), true],
  [httpError(500), true],
  [httpError(529), true],
  [httpError(400), false],
  [httpError(401), false],
  [new Error('{"type":"overloaded_error"}'), true],
  [new Error("socket hang up"), false],
];
for (const [err, verdict] of RETRYABLE) {
  retry(
    `${(err as Error).message} → ${verdict ? "retry" : "no retry"}`,
    () => assert.is(isRetryable(err), verdict),
  );
}
retry("backoff doubles from the base, caps at 30 s, and honours retry-after", () => {
  assert.equal([0, 1, 2, 10].map((n) => backoff(httpError(429), n, 1000)), [1000, 2000, 4000, 30_000]);
  assert.is(backoff(httpError(429, "7"), 0, 1000), 7000);
});
retry("429 then success: two attempts, one wait", async () => {
  const waits: number[] = [];
  let n = 0;
  const out = await withRetries(() => n++ === 0 ? Promise.reject(httpError(429)) : Promise.resolve("ok"), {
    retries: 3,
    backoffMs: 10,
    sleep: (ms) => (waits.push(ms), Promise.resolve()),
  });
  assert.equal(out, { value: "ok", attempts: 2 });
  assert.equal(waits, [10]);
});
retry("400 fails at once; 503 fails after the retries, with status and attempts", async () => {
  const sleep = () => Promise.resolve();
  const bad = await withRetries(() => Promise.reject(httpError(400)), { retries: 3, backoffMs: 1, sleep })
    .catch((e) => e);
  assert.ok(bad instanceof ModelError);
  assert.equal([bad.status, bad.attempts], [400, 1]);
  const down = await withRetries(() => Promise.reject(httpError(503)), { retries: 2, backoffMs: 1, sleep })
    .catch((e) => e);
  assert.equal([down.status, down.attempts], [503, 3]);
  assert.match(down.message, "Cannot get a model reply after 3 attempts");
});
retry.run();

// ---- names ------------------------------------------------------------------------------------------
const names = suite("agent tool names");
const FLAT: [string, string][] = [
  ["auth.submit_authorization", "auth_submit_authorization"],
  ["payer_letter_center.generate_approval", "payer_letter_center_generate_approval"],
  ["p2p_session.send_turn", "p2p_session_send_turn"],
  ["handbook_search", "handbook_search"],
];
for (const [registered, shown] of FLAT) {
  names(`${registered} → ${shown}`, () => assert.is(flatName(registered), shown));
}
names("trajectories spell MCP tools the Claude Code way and local tools as they are", () => {
  assert.is(
    trajectoryName("auth_submit_authorization", "auth.submit_authorization"),
    "mcp__healthverse__auth_submit_authorization",
  );
  assert.is(trajectoryName("handbook_search", "handbook_search"), "handbook_search");
  assert.is(trajectoryName("made_up", undefined), "made_up");
});
names.run();

// ---- handbook tools ---------------------------------------------------------------------------------
const hb = suite("agent handbook tools");
const ROOT = mkdtempSync(join(tmpdir(), "fiable-agent-hb-"));
const BOOK = join(ROOT, "handbook");
mkdirSync(join(BOOK, "references", "payer-um"), { recursive: true });
writeFileSync(
  join(BOOK, "references", "payer-um", "letters.md"),
  "# Denial letters\n\nEvery denial letter names the criterion.\n",
);
writeFileSync(join(ROOT, "secret.txt"), "outside");
symlinkSync(join(ROOT, "secret.txt"), join(BOOK, "escape.md"));
const CONFINE: [string, string | null][] = [
  ["references/payer-um/letters.md", null],
  ["/references/payer-um/letters.md", null],
  ["../secret.txt", "outside the handbook folder"],
  ["escape.md", "outside the handbook folder"],
  ["references", "it is a folder"],
  ["missing.md", "no such handbook file"],
];
for (const [path, error] of CONFINE) {
  hb(`read ${path} → ${error ?? "allowed"}`, () => {
    const at = confine(BOOK, path);
    if (error === null) assert.ok("file" in at, JSON.stringify(at));
    else assert.match("error" in at ? at.error : "", error);
  });
}
hb("handbook_read returns the page; handbook_search finds it through the shared index", async () => {
  const tools = handbookTools(BOOK, sharedSearch(BOOK));
  const read = await tools.call("handbook_read", { path: "references/payer-um/letters.md" });
  assert.equal([read.isError, read.text.startsWith("# Denial letters")], [false, true]);
  const found = await tools.call("handbook_search", { query: "denial letter criterion" });
  assert.is(found.isError, false, found.text);
  assert.match(found.text, "references/payer-um/letters.md");
  const outside = await tools.call("handbook_read", { path: "../secret.txt" });
  assert.equal([outside.isError, outside.text.includes("outside")], [true, true]);
});
hb.run();

// ---- config -----------------------------------------------------------------------------------------
const cfg = suite("agent config");
const ENV = { ANTHROPIC_API_KEY: KEY };
cfg("defaults: checklist arm, the container paths, the default limits", () => {
  const c = parseConfig([], ENV);
  assert.equal([c.arm, c.trajectory, c.ledgerDir, c.model], [
    "checklist",
    "/logs/agent/trajectory.json",
    "/logs/agent/fiable",
    "claude-sonnet-5",
  ]);
  assert.equal(c.limits, DEFAULT_LIMITS);
});
cfg("flags win over the environment", () => {
  const c = parseConfig(["--arm", "critic", "--max-turns", "9", "--model", "claude-opus-5"], {
    ...ENV,
    FIABLE_CC_ARM: "shadow",
    FIABLE_MAX_TURNS: "3",
    ANTHROPIC_MODEL: "claude-haiku-4-5",
  });
  assert.equal([c.arm, c.limits.maxTurns, c.model, c.price.input], ["critic", 9, "claude-opus-5", 5]);
});
const BAD: [string[], Record<string, string>, RegExp][] = [
  [[], {}, /ANTHROPIC_API_KEY is not set/],
  [["--arm", "critc"], ENV, /--arm "critc" is unknown. Use one of stock, shadow, plan, checklist, critic/],
  [["--max-cost", "-1"], ENV, /--max-cost "-1": it must be a non-negative number/],
  [["--api-key", KEY], ENV, /unknown option --api-key\. Use one of: --instruction-file, /],
  [["--arm"], ENV, /--arm needs a value/],
];
for (const [args, env, message] of BAD) {
  cfg(`refuses ${args.join(" ") || "no key"}`, () => assert.throws(() => parseConfig(args, env), message));
}
cfg("the key never reaches an error message", () => {
  try {
    parseConfig(["--api-key", KEY], ENV);
  } catch (err) {
    assert.not.match((err as Error).message, KEY);
  }
});
cfg.run();

// ---- the in-process guard ---------------------------------------------------------------------------
const guard = suite("agent inline guard");
const SUBMIT = { case_id: "CASE-ACT-001" };
guard("checklist: the plan comes back, a premature submit is denied, records go to memory and ledger", () => {
  const dir = join(ROOT, "ledger-1");
  const g = inlineGuard({
    session: "s1",
    config: { arm: "checklist", bounds: DEFAULT_BOUNDS },
    ledgerDir: dir,
  });
  assert.match(g.prompt(PROVIDER_PROMPT), "role plan");
  const verdict = g.pre("auth.submit_authorization", SUBMIT, "toolu_1");
  assert.is(verdict.allow, false);
  assert.match(verdict.allow ? "" : verdict.reason, "[PP-01]");
  const onDisk = parseLedger(readFileSync(join(dir, "s1.jsonl"), "utf8")).records;
  assert.equal(onDisk.map((r) => r.decision), g.records.map((r) => r.decision));
  assert.equal(onDisk.map((r) => r.decision), ["context", "deny"]);
});
guard("stock records nothing and allows; shadow records the would-be deny", () => {
  const stock = inlineGuard({
    session: "s",
    config: { arm: "stock", bounds: DEFAULT_BOUNDS },
    ledgerDir: null,
  });
  stock.prompt(PROVIDER_PROMPT);
  assert.equal([stock.pre("auth.submit_authorization", SUBMIT, "t").allow, stock.records.length], [true, 0]);
  const shadow = inlineGuard({
    session: "s",
    config: { arm: "shadow", bounds: DEFAULT_BOUNDS },
    ledgerDir: null,
  });
  shadow.prompt(PROVIDER_PROMPT);
  assert.is(shadow.pre("auth.submit_authorization", SUBMIT, "t").allow, true);
  assert.is(shadow.records.at(-1)?.decision, "shadow");
});
guard("fail-open: an exception allows the call, lets the stop through, and is recorded", () => {
  const g = inlineGuard({
    session: "s",
    config: { arm: "checklist", bounds: DEFAULT_BOUNDS },
    ledgerDir: null,
    fault: (word) => {
      if (word !== "prompt") throw new Error("boom");
    },
  });
  g.prompt(PROVIDER_PROMPT);
  assert.is(g.pre("auth.submit_authorization", SUBMIT, "t").allow, true);
  assert.is(g.stop().block, false);
  assert.equal(g.records.slice(1).map((r) => [r.event, r.decision]), [["pre", "error"], ["stop", "error"]]);
  assert.match(g.records[1].note ?? "", "internal error, allowed: Error: boom");
});
guard("an unwritable ledger warns and keeps the records in memory", () => {
  const warnings: string[] = [];
  const file = join(ROOT, "not-a-dir");
  writeFileSync(file, "");
  const g = inlineGuard({
    session: "s",
    config: { arm: "checklist", bounds: DEFAULT_BOUNDS },
    ledgerDir: file,
    warn: (l) => warnings.push(l),
  });
  g.prompt(PROVIDER_PROMPT);
  assert.is(g.records.length, 1);
  assert.match(warnings[0], "cannot write the ledger");
});
guard.run();

// ---- the loop with fakes ----------------------------------------------------------------------------
const loop = suite("agent loop");
type Turn = { text?: string; calls?: { id: string; name: string; input: Record<string, unknown> }[] };
function scripted(turns: Turn[]): Model & { seen: Parameters<Model>[0][] } {
  let n = 0;
  const seen: Parameters<Model>[0][] = [];
  const model = (request: Parameters<Model>[0]): Promise<Reply> => {
    seen.push(structuredClone(request));
    const turn = turns[n++] ?? { text: "Done." };
    const content = [
      ...(turn.text ? [{ type: "text", text: turn.text }] : []),
      ...(turn.calls ?? []).map((c) => ({ type: "tool_use", ...c })),
    ];
    return Promise.resolve({
      content,
      stop_reason: turn.calls?.length ? "tool_use" : "end_turn",
      usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 500 },
      model: "claude-sonnet-5",
      attempts: 1,
    });
  };
  return Object.assign(model, { seen });
}
function fakeMcp(calls: string[]): Toolbox {
  const names = new Map([["auth_submit_authorization", "auth.submit_authorization"]]);
  return {
    specs: [{ name: "auth_submit_authorization", description: "submit", input_schema: { type: "object" } }],
    registered: (shown) => names.get(shown),
    call: (shown, input) => {
      calls.push(`${shown} ${JSON.stringify(input)}`);
      return Promise.resolve({
        text: '{"ok":true}',
        isError: false,
        content: [{ type: "text", text: '{"ok":true}' }],
      });
    },
    close: () => Promise.resolve(),
  };
}
function deps(model: Model, tools: Toolbox, arm: "checklist" | "shadow" = "checklist") {
  return {
    model,
    modelName: "claude-sonnet-5",
    tools,
    guard: inlineGuard({ session: "s", config: { arm, bounds: DEFAULT_BOUNDS }, ledgerDir: null }),
    trajectory: newTrajectory("s", { version: "test", model: "claude-sonnet-5" }),
    limits: DEFAULT_LIMITS,
    price: priceOf("claude-sonnet-5").price,
    system: "Base prompt.",
    now: () => "2026-11-30T00:00:00.000Z",
  };
}
loop("a deny becomes an error tool_result with the reason; no tool call is made", async () => {
  const calls: string[] = [];
  const model = scripted([{ calls: [{ id: "toolu_a", name: "auth_submit_authorization", input: SUBMIT }] }]);
  const d = deps(model, fakeMcp(calls), "checklist");
  const out = await runLoop(PROVIDER_PROMPT, d);
  assert.equal(calls, []);
  const result =
    (model.seen[1].messages[2].content as { type: string; is_error?: boolean; content: string }[])[0];
  assert.equal([result.type, result.is_error], ["tool_result", true]);
  assert.match(result.content, "[PP-01]");
  assert.match(model.seen[0].system, "Base prompt.\n\n## fiable-agent role plan");
  assert.is(out.turns, 2 + d.guard.records.filter((r) => r.decision === "block").length);
});
loop("shadow lets the same call through and records it", async () => {
  const calls: string[] = [];
  const model = scripted([{ calls: [{ id: "toolu_a", name: "auth_submit_authorization", input: SUBMIT }] }]);
  const d = deps(model, fakeMcp(calls), "shadow");
  await runLoop(PROVIDER_PROMPT, d);
  assert.equal(calls, ['auth_submit_authorization {"case_id":"CASE-ACT-001"}']);
  assert.equal(d.guard.records.map((r) => `${r.event}:${r.decision}`).slice(1, 3), [
    "pre:shadow",
    "post:record",
  ]);
});
loop("trajectory metrics: prompt = input + cache, per step and summed", async () => {
  const d = deps(scripted([{ text: "Hello." }]), fakeMcp([]), "shadow");
  const out = await runLoop("# Some task", d);
  assert.is(out.reason, "end_turn");
  const agent = d.trajectory.steps.find((s) => s.source === "agent")!;
  assert.equal(
    [agent.metrics?.prompt_tokens, agent.metrics?.completion_tokens, agent.metrics?.cached_tokens],
    [1500, 100, 500],
  );
  assert.is(agent.metrics?.cost_usd, 0.00465);
  assert.equal(
    [d.trajectory.final_metrics.total_prompt_tokens, d.trajectory.final_metrics.total_cost_usd],
    [1500, 0.00465],
  );
  assert.equal(d.trajectory.steps.map((s) => s.source), ["system", "user", "agent"]);
});
loop("an API failure is a clean stop with the status in the reason and a halt record", async () => {
  const failing: Model = () =>
    Promise.reject(new ModelError("Cannot get a model reply after 5 attempts: 503", 503, 5));
  const d = deps(failing, fakeMcp([]), "checklist");
  const out = await runLoop(PROVIDER_PROMPT, d);
  assert.equal([out.reason, out.turns], ["api_error", 0]);
  assert.match(out.detail, "API error (HTTP 503)");
  assert.is(d.trajectory.final_metrics.extra.stop_reason, "api_error");
  assert.equal([d.guard.records.at(-1)?.event, d.guard.records.at(-1)?.decision], ["stop", "record"]);
});
loop("unknown tools answer with an error result, not a crash", async () => {
  const model = scripted([{ calls: [{ id: "toolu_x", name: "no_such_tool", input: {} }] }]);
  const d = deps(model, combine([fakeMcp([])]), "shadow");
  await runLoop("# task", d);
  const result = (model.seen[1].messages[2].content as { is_error?: boolean; content: string }[])[0];
  assert.equal([result.is_error, result.content.startsWith("Unknown tool no_such_tool")], [true, true]);
});
loop("the written trajectory goes through the scrubber", () => {
  const t = newTrajectory("s", { version: "test", model: "m" });
  t.agent.extra.note = `leaked ${KEY}`;
  const file = join(ROOT, "t", "trajectory.json");
  writeTrajectory(file, t, scrubber(KEY));
  const text = readFileSync(file, "utf8");
  assert.not.match(text, KEY);
  assert.match(text, "leaked [redacted]");
});
loop.run();

globalThis.addEventListener("unload", () => rmSync(ROOT, { recursive: true, force: true }));

const cap = suite("agent result cap");
cap("a result within the cap is shown whole; a longer one is cut with a note", () => {
  assert.is(shownResult("abc", 5), "abc");
  assert.is(shownResult("abcdefgh", 5), "abcde\n[… 3 more characters not shown]");
});
cap.run();

const engine = suite("agent engine config");
const BASE = parseConfig([], { ANTHROPIC_API_KEY: KEY });
const PROFILES: [
  string,
  Parameters<typeof engineFrom>[1],
  { rules?: boolean; blockBudget: number; stopBlocks: number },
][] = [
  ["no profile: every rule, default bounds", {}, { blockBudget: 2, stopBlocks: 3 }],
  ["profile budgets become the bounds", { budgets: { block_per_signature: 1, stop_blocks: 5 } }, {
    blockBudget: 1,
    stopBlocks: 5,
  }],
  ["a disabled rule leaves the rest enabled", { rules: { disabled: ["PP-01"] } }, {
    rules: true,
    blockBudget: 2,
    stopBlocks: 3,
  }],
];
engine(
  "a --profile file reaches the engine: its budgets become the bounds (it was a pending Promise)",
  async () => {
    const dir = Deno.makeTempDirSync();
    const file = `${dir}/profile.yaml`;
    Deno.writeTextFileSync(file, "budgets:\n  block_per_signature: 1\n  stop_blocks: 5\n");
    const e = engineFrom(BASE, await readProfile({ profile: file }));
    assert.equal([e.bounds.blockBudget, e.bounds.stopBlocks], [1, 5]);
    assert.equal(await readProfile({ profile: undefined }), {});
    Deno.removeSync(dir, { recursive: true });
  },
);

for (const [name, profile, want] of PROFILES) {
  engine(name, () => {
    const e = engineFrom(BASE, profile);
    assert.equal([e.arm, e.bounds.blockBudget, e.bounds.stopBlocks], [
      "checklist",
      want.blockBudget,
      want.stopBlocks,
    ]);
    if (!want.rules) assert.is(e.rules, undefined);
    else {assert.ok(
        e.rules && !e.rules.includes("PP-01") && e.rules.includes("UM-01"),
        JSON.stringify(e.rules),
      );}
  });
}
engine.run();
