/** Replay: hand-built trials with known answers, ledgers in the live format, bad input, the real packets. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import {
  checkMatches,
  domainPrompt,
  groupByPacket,
  observability,
  packetOf,
  replayArm,
  replayTrees,
  trialEvents,
} from "../lib/trajectories/replay.ts";
import { agentTexts, parseTrajectory, type ToolEvent } from "../lib/trajectories/atif.ts";
import { detectSeat } from "../lib/guard/engine/seat.ts";
import { main, parseArgs } from "../replay.ts";
import { connect, sqlString } from "../lib/results/columnar.ts";
import { FIXTURE_ANSWER, fixtureTrials, writeTrials } from "./support/atif_fixture.ts";

const s = suite("replay");
const root = mkdtempSync(join(tmpdir(), "replay-"));
const packet = join(root, "packet");
const out = join(root, "out");
writeTrials(packet);
s.after(() => rmSync(root, { recursive: true, force: true }));

const SHARED = join(import.meta.dirname ?? ".", "..", "..", "shared", "leaderboard");

async function captured(args: string[]): Promise<{ code: number; stdout: string }> {
  const log = console.log;
  const err = console.error;
  let stdout = "";
  console.log = (...a: unknown[]) => void (stdout += a.join(" ") + "\n");
  console.error = () => {};
  try {
    return { code: await main(args), stdout };
  } finally {
    console.log = log;
    console.error = err;
  }
}

s("--json: the known answer for the hand-built trials", async () => {
  const { code, stdout } = await captured([
    packet,
    "--arm",
    "checklist",
    "--rules",
    "PP-01",
    "--json",
    "--out",
    out,
    "--ledgers",
  ]);
  assert.is(code, 1, "the fixture holds one unreadable trial");
  assert.equal(JSON.parse(stdout), FIXTURE_ANSWER);
});

s("--json keys are exactly the issue's shape", async () => {
  const { stdout } = await captured([packet, "--arm", "critic", "--json", "--no-ledgers", "--workers", "0"]);
  assert.equal(Object.keys(JSON.parse(stdout)), [
    "trials",
    "passed",
    "failed",
    "unreadable",
    "not_observable",
    "by_rule",
    "closure_gate",
    "trials_blocked",
    "rescue_estimate",
    "rescue_ignoring_time",
    "not_observable_fires",
    "next_call",
  ]);
});

s(
  "ledgers: one per readable trial, in its packet's folder, live format, replay-marked, first block marked once",
  () => {
    // The hand-built tree has no results.csv, so its packet is the path given: out/<arm>/<its name>/.
    const ledgers = join(out, "checklist", "packet");
    assert.equal(readdirSync(join(out, "checklist")), ["packet"]);
    const files = readdirSync(ledgers).sort();
    assert.is(files.length, 9);
    for (const f of files) {
      const { records, corrupt } = parseLedger(readFileSync(join(ledgers, f), "utf8"));
      assert.is(corrupt, 0);
      assert.ok(records.every((r) => r.replay === true && r.arm === "checklist"), f);
      assert.ok(records.filter((r) => r.first_block).length <= 1, f);
      assert.is(records[0].event, "prompt");
      assert.is(records.at(-1)!.event, "stop");
    }
    const denied = parseLedger(
      readFileSync(join(ledgers, "pa_t001_new_referral__aaaaaaa.jsonl"), "utf8"),
    );
    const first = denied.records.find((r) => r.first_block)!;
    assert.equal([first.event, first.decision, first.tool, first.rules?.[0].id], [
      "pre",
      "deny",
      "auth.submit_authorization",
      "PP-01",
    ]);
    // Shadow semantics: the denied call still happened, so its result is recorded after the deny.
    assert.ok(denied.records.some((r) => r.event === "post" && r.tool === "auth.submit_authorization"));
  },
);

s(
  "trials.parquet and decisions.parquet beside the ledgers: one row per trial and per ledger record",
  async () => {
    const ledgers = join(out, "checklist", "packet");
    const records = readdirSync(ledgers).reduce(
      (n, f) => n + parseLedger(readFileSync(join(ledgers, f), "utf8")).records.length,
      0,
    );
    const duck = await connect();
    if ("why" in duck) throw new Error(duck.why);
    try {
      const [t] = await duck.all<{ n: bigint; scored: bigint }>(
        `SELECT count(*) AS n, count(passed) AS scored FROM read_parquet(${
          sqlString(join(out, "trials.parquet"))
        })`,
      );
      const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
      assert.is(Number(t.n), summary.trials.length + summary.unreadable.length);
      const by = await duck.all<{ arm: string; n: bigint; trials: bigint }>(
        `SELECT arm, count(*) AS n, count(DISTINCT trial) AS trials
       FROM read_parquet(${sqlString(join(out, "decisions.parquet"))}) GROUP BY arm`,
      );
      assert.equal(by.map((r) => [r.arm, Number(r.n), Number(r.trials)]), [["checklist", records, 9]]);
    } finally {
      duck.close();
    }
  },
);

s(
  "without --ledgers: summary.json and the Parquet summary only, decisions.parquet the same as with them",
  async () => {
    const slim = join(root, "slim");
    const args = [packet, "--arm", "checklist", "--rules", "PP-01", "--json", "--out", slim];
    const { code, stdout } = await captured(args);
    assert.is(code, 1, "the fixture holds one unreadable trial");
    assert.equal(JSON.parse(stdout), FIXTURE_ANSWER);
    assert.equal(readdirSync(slim).sort(), [
      "decisions.parquet",
      "summary.json",
      "trials.parquet",
      "verdicts.parquet",
    ]);
    const summary = JSON.parse(readFileSync(join(slim, "summary.json"), "utf8"));
    assert.ok(
      summary.trials.every((t: { arms: { checklist: { ledger: unknown } } }) =>
        t.arms.checklist.ledger === null
      ),
    );
    const duck = await connect();
    if ("why" in duck) {
      throw new Error(duck.why);
    }
    try {
      const rows = (dir: string) =>
        `SELECT * FROM read_parquet(${sqlString(join(dir, "decisions.parquet"))})`;
      const [n] = await duck.all<{ n: bigint }>(`SELECT count(*) AS n FROM (${rows(slim)})`);
      assert.ok(Number(n.n) > 0);
      const apart = await duck.all(
        `(${rows(slim)} EXCEPT ${rows(out)}) UNION ALL (${rows(out)} EXCEPT ${rows(slim)})`,
      );
      assert.equal(apart, [], "the same rows, ledger paths included, as a replay that kept its ledgers");
    } finally {
      duck.close();
    }
    assert.match((await captured([...args, "--ledgers"])).stdout, /"trials"/);
    assert.ok(readdirSync(join(slim, "checklist", "packet")).length > 0, "--ledgers keeps them");
  },
);

s("--no-out writes nothing, and refuses --out or --ledgers beside it", async () => {
  const cwd = Deno.cwd();
  const here = join(root, "no-out");
  Deno.mkdirSync(here);
  Deno.chdir(here);
  try {
    assert.is((await captured([packet, "--arm", "checklist", "--no-out"])).code, 1);
    assert.equal(readdirSync(here), []);
  } finally {
    Deno.chdir(cwd);
  }
  assert.equal(parseArgs([packet, "--no-ledgers"]).out, null, "the former name still works");
  assert.throws(() => parseArgs([packet, "--no-out", "--ledgers"]), /--no-out writes nothing/);
});

/** The SQL blocks of docs/parquet.md's verdicts recipe: the rule table, then the rescue estimate. */
function parquetRecipe(): string[] {
  const readme = readFileSync(join(import.meta.dirname ?? ".", "..", "docs", "parquet.md"), "utf8");
  const at = readme.indexOf("<!-- recipe: verdicts");
  assert.ok(at >= 0, "docs/parquet.md has no verdicts recipe");
  return [...readme.slice(at).matchAll(/```sql\n([\s\S]*?)```/g)].slice(0, 2).map((m) => m[1]);
}

s(
  "verdicts.parquet: docs/parquet.md's DuckDB recipe gives replay's rule table and rescue estimate",
  async () => {
    const duck = await connect();
    if ("why" in duck) throw new Error(duck.why);
    const file = sqlString(join(out, "verdicts.parquet"));
    const [rules, rescue] = parquetRecipe().map((sql) => sql.replaceAll("'verdicts.parquet'", file));
    try {
      const rows = await duck.all<Record<string, bigint | string>>(rules);
      const table = Object.fromEntries(rows.map(({ arm: _, rule, ...n }) => [
        rule,
        Object.fromEntries(Object.entries(n).map(([k, v]) => [k, Number(v)])),
      ]));
      assert.equal(table, { ...FIXTURE_ANSWER.by_rule, "closure gate": FIXTURE_ANSWER.closure_gate });
      const [r] = await duck.all<{ upper: bigint; strict: bigint }>(rescue);
      assert.equal({ upper: Number(r.upper), strict: Number(r.strict) }, FIXTURE_ANSWER.rescue_estimate);
    } finally {
      duck.close();
    }
  },
);

s(
  "DuckDB unavailable: the ledgers and summary.json are written, the Parquet summary is skipped with why",
  async () => {
    const dir = join(root, "no-duckdb");
    const report = await replayTrees([packet], {
      arms: ["checklist"],
      out: dir,
      workers: 0,
      duckdb: () => Promise.reject(new Error("no native binding for this platform")),
    });
    assert.ok(existsSync(join(dir, "summary.json")));
    assert.is(readdirSync(join(dir, "checklist", "packet")).length, 9);
    assert.not.ok(existsSync(join(dir, "decisions.parquet")));
    assert.equal(report.columnar, {
      skipped: "DuckDB cannot load here (no native binding for this platform)",
    });
  },
);

s("summary.json: per-trial details, unreadable with path and reason, unresolved codex calls", () => {
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
  assert.equal(summary.summary.checklist, FIXTURE_ANSWER);
  assert.is(summary.unreadable.length, 1);
  assert.match(summary.unreadable[0].path, /cm_broken_001/);
  assert.match(summary.unreadable[0].reason, /zstd/);
  const codex = summary.trials.find((t: { name: string }) => t.name.startsWith("cm_afib"));
  assert.equal(codex.unresolved[0].values, ["case_id ← id"]);
  const pp = summary.trials.find((t: { name: string }) => t.name.startsWith("pa_t001"));
  assert.equal(pp.arms.checklist.rules["PP-01"].calls.map((c: { tool: string }) => c.tool), [
    "auth.submit_authorization",
  ]);
});

s("summary.json: one packet (the path given, no results.csv in the fixture) with the same figures", () => {
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
  assert.equal(summary.packets.map((p: { packet: string }) => p.packet), [packet]);
  assert.equal(summary.packets[0].summary.checklist, FIXTURE_ANSWER);
  assert.ok(summary.trials.every((t: { packet: string }) => t.packet === packet));
});

s("a trial that drove the simulator from a terminal is not observable: listed, and in no fire count", () => {
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
  const hidden = summary.trials.filter((t: { observable: boolean }) => !t.observable);
  assert.equal(hidden.map((t: { name: string }) => t.name), ["pa_t009_nurse_review_payer__iiiiiii"]);
  assert.match(hidden[0].unobservable, /terminal reached the simulator outside MCP \(from chi_bench\)/);
  // The engine still saw an open determination there; the summary leaves it out.
  assert.equal(hidden[0].arms.checklist.closure.map((o: string) => o.split(":")[0]), ["UM-DETERMINATION"]);
  assert.equal(FIXTURE_ANSWER.closure_gate.fires_passed, 0);
});

s("hermes through its tool_call dispatcher is read as MCP calls (no open obligation)", () => {
  const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
  const h = summary.trials.find((t: { name: string }) => t.name.startsWith("pa_t008"));
  assert.is(h.harness, "hermes");
  assert.equal(h.toolCalls, { all: 3, mcp: 3 });
  assert.equal(h.arms.checklist.closure, []);
});

s("--by-packet: a column per packet, and by_packet in --json", async () => {
  const table = await captured([
    packet,
    "--arm",
    "checklist",
    "--no-ledgers",
    "--by-packet",
    "--workers",
    "0",
  ]);
  assert.match(table.stdout, /arm checklist by packet/);
  assert.match(table.stdout, /P1 packet: 10 trials, 5 passed, 4 failed, 1 unreadable, 1 not observable/);
  assert.match(table.stdout, /\| closure gate \| 3\/1\/1\/0 \|/);
  assert.match(table.stdout, /not observable \(1; counted in no fire, block or rescue figure\)/);
  const json = await captured([packet, "--arm", "checklist", "--no-ledgers", "--by-packet", "--json"]);
  const parsed = JSON.parse(json.stdout);
  assert.equal(Object.keys(parsed.by_packet), ["packet"]);
  assert.is(parsed.by_packet.packet.trials, parsed.trials);
});

s("several packets: the per-packet table is printed without asking, one column each", async () => {
  const second = join(root, "packet2");
  writeTrials(second, fixtureTrials().slice(0, 1));
  const { stdout } = await captured([packet, second, "--arm", "checklist", "--no-ledgers", "--workers", "0"]);
  assert.match(stdout, /P1 packet: 10 trials/);
  assert.match(stdout, /P2 packet2: 1 trials, 0 passed, 1 failed/);
  assert.match(stdout, /\| PP-01 \| 1\/1\/0\/0 \| 1\/1\/0\/0 \|/);
});

s("packetOf: the folder with results.csv or submission.json, else the given root, else the parent", () => {
  const tree = join(root, "tree");
  const trial = join(tree, "sub-a", "trials", "cm", "t1");
  const loose = join(tree, "loose", "t2");
  mkdirSync(trial, { recursive: true });
  mkdirSync(loose, { recursive: true });
  writeFileSync(join(tree, "sub-a", "submission.json"), "{}");
  assert.is(packetOf(trial, [tree]), join(tree, "sub-a"));
  assert.is(packetOf({ dir: loose }, [tree, join(tree, "loose")]), join(tree, "loose"));
  assert.is(packetOf(loose), join(tree, "loose"));
  const groups = groupByPacket([{ packet: "a", n: 1 }, { packet: "b", n: 2 }, { packet: "a", n: 3 }]);
  assert.equal([...groups].map(([k, v]) => [k, v.map((x) => x.n)]), [["a", [1, 3]], ["b", [2]]]);
});

const local = (raw: string, input: Record<string, unknown>): ToolEvent => ({
  id: "x",
  step: 3,
  raw,
  tool: null,
  input,
  text: "",
  isError: false,
  answered: true,
  sidechain: false,
  batch: 1,
});
const OBSERVED: [string, ToolEvent[], boolean][] = [
  ["no calls at all (the agent did nothing)", [], true],
  ["reads the simulator's source", [local("read_file", { path: "/opt/chi-bench/src/chi_bench/x.py" })], true],
  ["greps the handbook", [local("Bash", { command: "grep -r 64568 /workspace/skills" })], true],
  [
    "imports its services",
    [local("terminal", { command: "python3 -c 'from chi_bench.core import x'" })],
    false,
  ],
  ["curls an MCP port", [local("execute_code", { code: "urlopen('http://localhost:8100/mcp')" })], false],
];
for (const [name, calls, ok] of OBSERVED) {
  s(`observability: ${name}`, () => assert.is(observability(calls).observable, ok));
}

const call = (id: string, tool: string, batch: number, extra: Partial<ToolEvent> = {}): ToolEvent => ({
  ...local("x", {}),
  id,
  tool,
  raw: tool,
  text: "{}",
  batch,
  ...extra,
});
const order = (calls: ToolEvent[]) =>
  trialEvents("s", "", calls).slice(1, -1).map((e) => `${e.event.word} ${e.call!.id}`);

s("a turn's read-only calls run together, each mutating call alone (Claude Code)", () => {
  const calls = [
    call("r1", "p2p.list", 1),
    call("r2", "review.get_md_review_data", 1),
    call("m1", "determination.finalize", 1),
    call("m2", "payer_letter_center.generate_approval", 1),
  ];
  assert.equal(order(calls), [
    "pre r1",
    "pre r2",
    "post r1",
    "post r2",
    "pre m1",
    "post m1",
    "pre m2",
    "post m2",
  ]);
});

s("a codex script's calls run one after the other: a letter right after finalize is not letter-first", () => {
  const calls = [
    call("f", "determination.finalize", 7, {
      sequential: true,
      input: { case_id: "CASE-3903B8ED", decision: "approved" },
    }),
    call("l", "payer_letter_center.generate_approval", 7, {
      sequential: true,
      input: { case_id: "CASE-3903B8ED" },
    }),
  ];
  assert.equal(order(calls), ["pre f", "post f", "pre l", "post l"]);
  const prompt = "# MD Review\n- Use only payer namespaces: `review`";
  const { result } = replayArm("s", prompt, calls, "checklist", { rules: ["UM-10"] });
  assert.equal(Object.keys(result.rules), []);
});

s("workers and in-process give the same summary", async () => {
  const a = await replayTrees([packet], { arms: ["checklist"], rules: ["PP-01"], out: null, workers: 0 });
  const b = await replayTrees([packet], { arms: ["checklist"], rules: ["PP-01"], out: null, workers: 2 });
  assert.equal(a.summary, b.summary);
});

s(
  "exit 1 when a trial is unreadable (the others still replayed) or none is found, 0 when all replayed",
  async () => {
    const broken = join(packet, "trials", "cm", "cm_broken_001__eeeeeee");
    assert.is((await captured([broken, "--no-ledgers"])).code, 1);
    assert.is(
      (await captured([join(root, "nothing-here"), "--no-ledgers"])).code,
      2,
      "a missing path is bad usage",
    );
    const some = await captured([packet, "--no-ledgers", "--arm", "checklist"]);
    assert.is(some.code, 1);
    assert.match(some.stdout, /arm checklist: 10 trials, 5 passed, 4 failed, 1 unreadable/);
    const readable = join(packet, "trials", "pa_provider");
    assert.is((await captured([readable, "--no-ledgers", "--arm", "checklist"])).code, 0);
  },
);

const ARG_ERRORS: [string[], RegExp][] = [
  [[], /no path given/],
  [["x", "--arm", "critc"], /--arm "critc" is unknown. Use one of stock, shadow, plan, checklist, critic/],
  [["x", "--workers", "two"], /not a whole number/],
  [["x", "--bogus"], /unknown option --bogus\. Use one of: --arm, /],
  [["/nope"], /^Cannot run replay: \/nope does not exist/],
];
for (const [args, message] of ARG_ERRORS) {
  s(`bad arguments: ${args.join(" ") || "(none)"}`, () => assert.throws(() => parseArgs(args), message));
}

s("defaults: both arms, out under results/replay/<name>", () => {
  const a = parseArgs(["../shared/leaderboard"]);
  assert.equal(a.arms, ["checklist", "critic"]);
  assert.is(a.out, join("results", "replay", "leaderboard"));
});

const PATTERNS: [string, string, boolean][] = [
  ["md.signed_off", "md.signed_off", true],
  ["p2p.*", "p2p.outcome_recorded", true],
  ["provider_pre_submission.document_absent.<kind>", "provider_pre_submission.document_absent.op_note", true],
  ["cm.*", "judge.cm.outreach.quality", false],
  ["md.audit", "md.audit_x", false],
];
for (const [pattern, id, ok] of PATTERNS) {
  s(`check pattern ${pattern} ~ ${id}`, () => assert.is(checkMatches(pattern, id), ok));
}

const DOMAINS: [string, string | null][] = [["pa_provider", "provider"], ["pa_um", "payer"], ["cm", "cm"], [
  "x",
  null,
]];
for (const [domain, seat] of DOMAINS) {
  s(
    `no recorded prompt: seat from domain ${domain}`,
    () => assert.is(detectSeat(domainPrompt(domain)), seat),
  );
}

/** A replayed call for the hand-built event tests. */
function event(step: number, tool: string, input: Record<string, unknown>, text = "{}"): ToolEvent {
  return {
    id: `t${step}`,
    step,
    raw: tool,
    tool,
    input,
    text,
    isError: false,
    answered: true,
    sidechain: false,
    batch: step,
  };
}

s("trialEvents: a judged call's pre carries the agent's last texts up to its step, never later ones", () => {
  const texts = [1, 2, 3, 4, 6, 8].map((step) => ({ step, text: `note ${step}` }));
  const calls = [
    event(5, "auth.submit_authorization", {}),
    event(7, "cases.get_case", {}),
    event(7, "auth.finalize_provider_determination", {}),
  ];
  const pres = trialEvents("s", "p", calls, texts).map((e) => e.event).filter((e) => e.word === "pre");
  assert.equal(pres.map((e) => e.word === "pre" ? e.recentText : null), [
    ["note 2", "note 3", "note 4"],
    undefined,
    ["note 3", "note 4", "note 6"],
  ]);
});

s("agentTexts: the agent's own messages, tool-call placeholders left out", () => {
  const t = parseTrajectory([
    JSON.stringify({ _atif_header: { schema_version: "ATIF-v1.2", agent: { name: "claude-code" } } }),
    JSON.stringify({ source: "user", message: "task" }),
    JSON.stringify({ source: "agent", message: "Reading the chart." }),
    JSON.stringify({ source: "agent", message: "Executed Read toolu_01" }),
    JSON.stringify({ source: "agent", message: "[tool call]" }),
  ].join("\n"));
  assert.equal(agentTexts(t), [{ step: 1, text: "Reading the chart." }]);
});

s("replayArm: a judge's objection is counted under votes, enforced or not", () => {
  const prompt = "# ⚕️ MD Review — MRI\n- Use only payer namespaces: `review`";
  const calls = [event(1, "review.submit_md_case_decision", {
    case_id: "CASE-3903B8ED",
    decision: "p2p_review",
    determination_rationale: "Close call on the imaging criterion.",
  })];
  const { result } = replayArm("s", prompt, calls, "critic");
  assert.equal(result.votes?.["p2p-contract"]?.map((c) => c.tool), ["review.submit_md_case_decision"]);
  assert.is(result.rules["CRITIC-02"], undefined);
});

s("the four real packets replay with no unreadable trial", async () => {
  assert.ok(
    existsSync(SHARED),
    `Cannot replay the real packets: ${SHARED} is absent. Check out the shared folder beside this ` +
      "checkout (../shared/leaderboard, read in place).",
  );
  // The stock arm reads every trajectory and scorecard but asks the engine nothing (the bench runs the rest).
  const report = await replayTrees([SHARED], { arms: ["stock"], out: null });
  const summary = report.summary.stock!;
  assert.equal(report.unreadable, []);
  assert.equal([summary.trials, summary.passed, summary.failed, summary.unreadable], [300, 73, 227, 0]);
  const harnesses = new Set(report.trials.map((t) => `${t.harness} v${t.version}`));
  assert.equal([...harnesses].sort(), ["claude-code v1.2", "codex v1.5", "openai-agents v1.2"]);
  assert.ok(report.trials.some((t) => t.unresolved.length), "codex unresolved arguments are listed");
});

s.run();
