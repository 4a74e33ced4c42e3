/**
 * Run integrity on hand-built Harbor trial dirs: each failure mode a guarded run can hide (a dead guard,
 * hooks that matched nothing, a stock arm with hooks, a missing ledger, bad input) gives its verdict and
 * `deno task verify`'s exit code; the demo's guarded arm verifies; aggregate carries the same roll-up.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { armIntegrity, guardCoverage, trialIntegrity } from "../lib/results/integrity.ts";
import { readFacts } from "../lib/results/trial_facts.ts";
import { findTrials } from "../lib/results/trials.ts";
import { verifyTrees } from "../lib/results/verify.ts";
import { aggregateArms } from "../lib/results/aggregate.ts";
import { writeSamples } from "../lib/samples/trials.ts";
import { main } from "../verify.ts";
import { main as aggregateMain } from "../aggregate.ts";
import { unknownArmNote } from "../lib/guard/engine/record.ts";
import { captured } from "./support/captured.ts";
import { type GuardedTrialOptions, tempDir, writeArm, writeGuardedTrial } from "./support/trial_dirs.ts";

const s = suite("integrity");
const made: string[] = [];
s.after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function fresh(): string {
  const dir = tempDir("fiable-integrity-");
  made.push(dir);
  return dir;
}

const SIX = [
  { tool: "review.get_md_review_data" },
  { tool: "review.save_md_review" },
  { tool: "review.submit_md_case_decision", denied: true },
  { tool: "review.submit_md_case_decision" },
  { tool: "determination.finalize" },
  { tool: "payer_letter_center.deliver" },
];

/** A trial dir written with the options, and its integrity as verify reports it (bad input included). */
function trial(o: Partial<GuardedTrialOptions> & { arm: string }) {
  const root = fresh();
  const dir = writeGuardedTrial(root, { calls: SIX, ...o });
  return { root, dir, t: verifyTrees([root]).arms[0].trials[0] };
}

/** verify.ts in-process. */
const verify = (args: string[]) => captured(main, args);

// The verdict table: each case, the trial's verdict, its coverage, a phrase of its problem, verify's exit code.
const CASES: [
  string,
  Partial<GuardedTrialOptions> & { arm: string },
  string,
  number | null,
  RegExp | null,
  number,
][] = [
  ["full coverage (http)", { arm: "checklist" }, "pass", 1, null, 0],
  ["full coverage (command hooks, critic)", { arm: "critic", hooks: "command" }, "pass", 1, null, 0],
  [
    "a guard that died after call 3",
    { arm: "checklist", answered: 3 },
    "fail",
    0.5,
    /stopped answering after call 3/,
    1,
  ],
  [
    "hooks that matched nothing (another MCP server name)",
    {
      arm: "plan",
      server: "chi-bench-payer",
      answered: 0,
    },
    "fail",
    0,
    /none of its 6 χ-World tool calls \(named like mcp__chi-bench-payer__.*the hooks matched none/,
    1,
  ],
  [
    "a stock arm with hooks",
    { arm: "stock", hooks: "http", ledger: true },
    "fail",
    null,
    /as stock: it has hooks/,
    1,
  ],
  [
    "a stock arm with a settings.json hook only",
    {
      arm: "stock",
      settingsHooks: true,
    },
    "fail",
    null,
    /registers 1 hook handler/,
    1,
  ],
  ["a clean stock arm", { arm: "stock" }, "pass", null, null, 0],
  [
    "a guarded arm without a ledger",
    { arm: "checklist", ledger: false },
    "fail",
    0,
    /has no guard ledger/,
    1,
  ],
  [
    "a plan arm whose plan never reached the model",
    { arm: "plan", plan: false },
    "fail",
    1,
    /role plan never reached/,
    1,
  ],
  [
    "config.json and harness.json disagree on the arm",
    {
      arm: "checklist",
      harnessArm: "plan",
    },
    "fail",
    1,
    /config.json agent.kwargs.arm says checklist, harness.json says plan/,
    1,
  ],
  [
    "harness.json missing",
    { arm: "checklist", hooks: null, settingsHooks: true },
    "fail",
    1,
    /harness.json: it is missing/,
    1,
  ],
  ["no result.json", { arm: "checklist", result: false }, "fail", 1, /result.json: it is missing/, 1],
  [
    "a truncated trajectory",
    { arm: "checklist", trajectory: "truncated" },
    "fail",
    null,
    /trajectory.json: it is not valid JSON, so it is probably truncated/,
    1,
  ],
  [
    "no trajectory",
    { arm: "checklist", trajectory: "none" },
    "fail",
    null,
    /has no agent\/trajectory.json/,
    1,
  ],
  [
    "a ledger with corrupt lines",
    {
      arm: "checklist",
      extra: ['{"v":1,"t":"2026-12-01T09:', "not json"],
    },
    "fail",
    1,
    /2 lines are not a valid record/,
    1,
  ],
  [
    "a guard started with an unknown FIABLE_CC_ARM (it ran as shadow)",
    {
      arm: "checklist",
      extra: [{
        v: 1,
        t: "2026-12-01T09:00:00.000Z",
        session: "3f1c2d4e-0000-4000-a000-000000000001",
        event: "session-start",
        arm: "shadow",
        decision: "allow",
        note: unknownArmNote("checklst"),
      }],
    },
    "fail",
    1,
    /its guard ran with FIABLE_CC_ARM "checklst", no arm, so it ran as shadow and blocked nothing/,
    1,
  ],
  [
    "a call Claude Code refused before its hooks owes no record",
    { arm: "checklist", calls: [...SIX, { tool: "determination.finalize", refused: true }] },
    "pass",
    1,
    null,
    0,
  ],
  [
    "a trajectory without call ids (matched by order)",
    { arm: "checklist", trajectory: "no-ids" },
    "pass",
    1,
    null,
    0,
  ],
];

for (const [name, options, verdict, coverage, says, code] of CASES) {
  s(`${name}: ${verdict}, verify exits ${code}`, async () => {
    const { root, dir, t } = trial(options);
    assert.is(t.verdict, verdict, t.problems.join("\n"));
    if (verdict === "pass") assert.equal(t.problems, []);
    assert.is(t.coverage, coverage);
    const run = await verify([root]);
    assert.is(run.code, code, run.out);
    if (says) {
      const line = run.out.split("\n").find((l) => says.test(l));
      assert.ok(line, `no line matching ${says} in:\n${run.out}`);
      assert.ok(line!.startsWith("FAIL ") && line!.includes(dir), line);
    } else {
      assert.match(
        run.out,
        options.arm === "stock"
          ? /verify: 0 guarded trials: nothing to prove; 1 stock trial ran without hooks\.$/
          : /no guard-integrity problem\.$/,
      );
    }
  });
}

s(
  "trials of other harnesses only: 0 guarded trials, nothing to prove (not 'no guard-integrity problem')",
  async () => {
    const root = writeArm([{ task: "cm_a", domain: "cm" }, { task: "cm_b", domain: "cm", reward: 0 }]);
    made.push(root);
    const run = await verify([root]);
    assert.is(run.code, 0, run.out);
    assert.match(
      run.out,
      /\nverify: 0 guarded trials: nothing to prove; 2 trials read, none run with the guard\.$/,
    );
  },
);

s("a fail-open pre record without a tool_use_id is matched by order, and counted as an error", () => {
  const error = {
    v: 1,
    t: "2026-12-01T09:00:30.000Z",
    session: "3f1c2d4e-0000-4000-a000-000000000001",
    event: "pre",
    arm: "checklist",
    decision: "error",
    note: "internal error, allowed",
  };
  const post = { ...error, event: "post", decision: "record", tool: "payer_letter_center.deliver" };
  const { t } = trial({
    arm: "checklist",
    answered: 5,
    extra: [error, { ...post, tool_use_id: "toolu_01" + "5".padStart(22, "0") }],
  });
  assert.equal([t.coverage, t.match, t.fail_open_errors, t.verdict], [1, "tool_use_id+order", 1, "pass"]);
  assert.ok(Math.abs(t.errors_per_100_calls! - 100 / 6) < 1e-9);
  const arm = armIntegrity([t]);
  assert.equal([arm.errors_flag, arm.marked], [true, false]);
  assert.match(arm.problems.at(-1)!, /fail-open errors are 16\.67 per 100 χ-World tool calls \(1 in 6\)/);
});

s("a denied call needs no post record; a call that went through does", () => {
  const calls = [{ id: "a", tool: "x.y", raw: "x_y", answered: true, step: 1 }, {
    id: "b",
    tool: "x.y",
    raw: "x_y",
    answered: true,
    step: 2,
  }];
  const pre = (id: string, decision: string) => ({ event: "pre", tool: "x.y", tool_use_id: id, decision });
  // deno-lint-ignore no-explicit-any
  const records = [pre("a", "deny"), pre("b", "allow")] as any[];
  assert.equal(
    [guardCoverage(calls, records).coverage, guardCoverage(calls, records).post_due],
    [0.5, 1],
  );
  records.push({ event: "post", tool: "x.y", tool_use_id: "b", decision: "record" });
  assert.is(guardCoverage(calls, records).coverage, 1);
  records.push({ event: "pre", tool: "x.y", tool_use_id: "zzz", decision: "allow" });
  assert.is(guardCoverage(calls, records).orphans, 1);
  // A call Claude Code refused before its hooks ran (InputValidationError) owes the guard no record.
  const refused = { id: "c", tool: "x.y", raw: "x_y", answered: true, refused: true, step: 3 };
  assert.equal([
    guardCoverage([...calls, refused], records).calls,
    guardCoverage([...calls, refused], records).coverage,
  ], [2, 1]);
});

s("guard lifecycle records are counted, and coverage still comes from the trajectory", () => {
  const base = { v: 1, session: "guard", arm: "checklist", event: "guard" };
  const { t } = trial({
    arm: "checklist",
    answered: 4,
    extra: [
      { ...base, t: "2026-12-01T09:01:00Z", decision: "restart", note: "supervisor restart" },
      {
        ...base,
        t: "2026-12-01T09:01:00Z",
        decision: "gap",
        gap: { since: "2026-12-01T09:00:50Z", until: "2026-12-01T09:01:00Z", missed: 3 },
      },
    ],
  });
  assert.equal([t.gaps, t.missed, t.restarts, t.sessions], [1, 3, 1, 1]);
  assert.ok(t.coverage! < 1 && t.verdict === "fail");
});

s("the arm roll-up marks a guarded arm with a trial below coverage, and a mixed arm", () => {
  const good = trial({ arm: "checklist" }).t;
  const dead = trial({ arm: "checklist", answered: 2 }).t;
  const stock = trial({ arm: "stock" }).t;
  const arm = armIntegrity([good, dead]);
  assert.equal(
    [arm.trials, arm.with_ledger, arm.full_coverage, arm.below_coverage, arm.marked, arm.hook_modes],
    [2, 2, 1, 1, true, { http: 2 }],
  );
  assert.ok(Math.abs(arm.coverage_min! - 2 / 6) < 1e-9);
  assert.is(armIntegrity([good]).marked, false);
  const mixed = armIntegrity([good, stock]);
  assert.equal([mixed.marked, mixed.trial_arms], [false, { checklist: 1, stock: 1 }]);
  assert.match(mixed.problems.at(-1)!, /they ran as checklist \(1\), stock \(1\)/);
});

s("verify groups trials by the arm they ran and prints one row per arm", async () => {
  const root = fresh();
  writeGuardedTrial(join(root, "checklist"), { arm: "checklist", calls: SIX, id: "A" });
  writeGuardedTrial(join(root, "checklist"), { arm: "checklist", calls: SIX, id: "B", domain: "cm" });
  writeGuardedTrial(join(root, "stock"), { arm: "stock", calls: SIX, id: "C" });
  const report = verifyTrees([root]);
  assert.equal(report.arms.map((a) => [a.name, a.kind, a.integrity.trials, a.verdict]), [
    ["checklist", "guarded", 2, "ok"],
    ["stock", "stock", 1, "ok"],
  ]);
  const run = await verify([root, "--trials"]);
  assert.is(run.code, 0, run.out);
  assert.match(run.out, /^checklist +guarded +2 +2 +2\/2 +100\.0% +http:2 +2 +0\.00 /m);
  assert.match(run.out, /tool_use_id/);
  const json = await verify([root, "--json"]);
  assert.equal(JSON.parse(json.out).arms.length, 2);
});

s("verify: an empty dir, bad flags and --help", async () => {
  const empty = await verify([fresh()]);
  assert.is(empty.code, 1);
  assert.match(empty.out, /Cannot find trials below/);
  assert.is((await verify(["--bogus"])).code, 2);
  assert.is((await verify([])).code, 2);
  assert.is((await verify(["--help"])).code, 0);
});

s("the demo's trial dirs verify: its checklist arm has full coverage, its stock arm no hooks", () => {
  const dir = fresh();
  writeSamples(dir);
  const report = verifyTrees([dir]);
  assert.equal(report.problems, []);
  assert.equal(
    report.arms.map((a) => [a.name, a.kind, a.verdict, a.integrity.full_coverage, a.integrity.with_ledger]),
    [["checklist", "guarded", "ok", 18, 18], ["stock", "stock", "ok", 0, 0]],
  );
  assert.ok(report.arms[0].integrity.plan_injected === 18 && report.arms[0].integrity.hook_modes.http === 18);
});

s("aggregate: every row carries the integrity object; a marked arm marks its comparison", () => {
  const root = fresh();
  writeGuardedTrial(join(root, "stock"), { arm: "stock", calls: SIX, id: "S" });
  writeGuardedTrial(join(root, "checklist"), { arm: "checklist", calls: SIX, id: "G", answered: 4 });
  const res = aggregateArms([
    { name: "stock", roots: [join(root, "stock")] },
    { name: "checklist", roots: [join(root, "checklist")] },
  ], { control: "stock", iters: 10 });
  const row = res.rows.find((r) => r.arm === "checklist" && r.domain === "overall")!;
  const keys = [
    "trials",
    "with_ledger",
    "without_ledger",
    "full_coverage",
    "below_coverage",
    "coverage_min",
    "hook_modes",
    "fail_open_errors",
    "tool_calls",
    "errors_per_100_calls",
    "errors_flag",
    "gaps",
    "restarts",
    "plan_injected",
    "stop_blocks",
    "marked",
    "problems",
  ];
  for (const k of keys) assert.ok(k in row.integrity!, `integrity.${k}`);
  assert.equal([row.integrity!.marked, row.integrity!.below_coverage, row.integrity!.tool_calls], [
    true,
    1,
    6,
  ]);
  assert.equal(res.comparisons.find((c) => c.domain === "overall")!.marked, ["checklist"]);
  const problem = res.problems.find((p) => p.kind === "integrity")!;
  assert.match(problem.message, /guard coverage is 66\.7%/);
  assert.ok(problem.path.endsWith("__G"));
});

s(
  "aggregate names each bad input with its path: no result.json, truncated trajectory, corrupt ledger, no harness.json",
  () => {
    const root = fresh();
    const dirs = [
      writeGuardedTrial(root, { arm: "checklist", calls: SIX, id: "nores", result: false }),
      writeGuardedTrial(root, { arm: "checklist", calls: SIX, id: "trunc", trajectory: "truncated" }),
      writeGuardedTrial(root, { arm: "checklist", calls: SIX, id: "corrupt", extra: ["{oops"] }),
      writeGuardedTrial(root, {
        arm: "checklist",
        calls: SIX,
        id: "noharness",
        hooks: null,
        settingsHooks: true,
      }),
    ];
    const res = aggregateArms([{ name: "checklist", roots: [root] }], { iters: 10 });
    const says: RegExp[] = [
      /result\.json: it is missing/,
      /trajectory\.json: it is not valid JSON, so it is probably truncated/,
      /\.jsonl: 1 line is not a valid record/,
      /harness\.json: it is missing/,
    ];
    dirs.forEach((dir, i) => {
      const p = res.problems.find((x) => x.path === dir && says[i].test(x.message));
      assert.ok(
        p,
        `no problem matching ${says[i]} for ${dir}:\n${res.problems.map((x) => x.message).join("\n")}`,
      );
      assert.ok(p!.message.includes(dir), p!.message);
    });
    assert.is(res.rows[0].integrity!.marked, true);
  },
);

s("aggregate reports a guard that ran with an unknown FIABLE_CC_ARM as an integrity problem", () => {
  const root = fresh();
  const note = unknownArmNote("guarded");
  const record = { v: 1, t: "2026-12-01T09:00:00.000Z", session: "s", event: "pre", arm: "shadow", note };
  const dir = writeGuardedTrial(root, {
    arm: "checklist",
    calls: SIX,
    extra: [{ ...record, decision: "shadow" }],
  });
  const res = aggregateArms([{ name: "checklist", roots: [root] }], { iters: 10 });
  const p = res.problems.find((x) => x.kind === "integrity" && /FIABLE_CC_ARM "guarded"/.test(x.message));
  assert.ok(p, res.problems.map((x) => x.message).join("\n"));
  assert.is(p!.path, dir);
  assert.is(res.rows[0].integrity!.marked, true);
});

s("a guarded trial whose settings.json registers no hooks fails", () => {
  const root = fresh();
  const dir = writeGuardedTrial(root, { arm: "checklist", calls: SIX });
  writeFileSync(join(dir, "agent", "sessions", "settings.json"), "{}");
  const t = verifyTrees([root]).arms[0].trials[0];
  assert.match(t.problems.join("\n"), /settings\.json registers no hook handlers/);
});

s("a leaderboard-like trial (no config.json, no ledger) is unguarded: no coverage verdict", () => {
  const root = fresh();
  const dir = writeGuardedTrial(root, { arm: "stock", calls: SIX, ledger: false, hooks: null });
  rmSync(join(dir, "config.json"));
  const result = JSON.parse(readFileSync(join(dir, "result.json"), "utf8"));
  writeFileSync(join(dir, "result.json"), JSON.stringify({ ...result, agent_info: { name: "claude-code" } }));
  writeFileSync(join(dir, "agent", "sessions", "settings.json"), "{}");
  const [ref] = findTrials([root]);
  const t = trialIntegrity(readFacts(ref));
  assert.equal([t.kind, t.verdict, t.coverage, t.problems], ["unguarded", "n/a", null, []]);
});

/** aggregate.ts in-process, its outputs into a temp dir. */
const aggregate = (args: string[]) => captured(aggregateMain, [...args, "--out", fresh()]);

const PACKET_HEAD = "benchmark,dataset_version,submission_id,team,agent,model,domain,pass_at_1,n_trials," +
  "n_tasks,mean_cost_usd,mean_walltime_s,submitted_at";

/** A packet folder of fiable-cc trials whose results.csv publishes walltime 0 (bookkeeping, not the guard). */
function packetOf(trials: Partial<GuardedTrialOptions>[]): string {
  const root = fresh();
  const dir = join(root, "2026-12-04-handbuilt");
  trials.forEach((o, i) =>
    writeGuardedTrial(join(dir, "trials"), { arm: "checklist", calls: SIX, id: `T${i}`, ...o })
  );
  const n = trials.length;
  writeFileSync(
    join(dir, "results.csv"),
    `${PACKET_HEAD}\nchi-bench,v1,hb,T,fiable-cc,anthropic/claude-sonnet-5,overall,1.0,${n},1,,0.0,2026-12-04\n`,
  );
  return root;
}

const SONNET = join(
  import.meta.dirname!,
  "..",
  "..",
  "shared",
  "leaderboard",
  "2026-07-06-sonnet-5-claude-code",
);
const ERIUS = join(import.meta.dirname!, "..", "..", "shared", "leaderboard-extra", "2026-06-05-erius");

s(
  "exit codes on a real packet: its own bookkeeping warns (exit 0), --strict fails on it (exit 1)",
  async () => {
    if (!existsSync(SONNET) || !existsSync(ERIUS)) {
      console.warn("skipped: ../shared/leaderboard packets are absent (needs ../shared beside the repo)");
      return;
    }
    const run = await verify([SONNET]);
    assert.is(run.code, 0, run.out);
    assert.match(run.out, /^WARN \[packet\] Cannot trust .*results\.csv: it publishes mean_walltime_s 0\.0/m);
    assert.not.match(run.out, /^FAIL /m);
    assert.match(run.out, /1 warning \(WARN: not the guard's; they fail verify only with --strict\)/);
    assert.is((await verify([SONNET, "--strict"])).code, 1);
    const agg = await aggregate([SONNET, "--recipe", "A", "--no-tool-calls", "--iters", "10"]);
    assert.is(agg.code, 0, agg.err);
    assert.match(agg.err, /^warning \(packet\): \[2026-07-06-sonnet-5-claude-code\] Cannot trust/m);
    assert.is(
      (await aggregate([SONNET, "--recipe", "A", "--no-tool-calls", "--iters", "10", "--strict"])).code,
      1,
    );
    // Two harnesses in one packet (gampo, gampo-max): a warning too, never a guard failure.
    const mixed = await verify([ERIUS]);
    assert.is(mixed.code, 0, mixed.out);
    assert.match(mixed.out, /^WARN \[2026-06-05-erius\] Cannot treat these trials as one arm/m);
  },
);

s("exit codes on hand-built trial dirs: a broken guard fails (exit 1) beside a packet warning", async () => {
  const sound = packetOf([{}, { domain: "cm" }]);
  const ok = await verify([sound]);
  assert.is(ok.code, 0, ok.out);
  assert.match(ok.out, /^WARN \[packet\] .*publishes mean_walltime_s 0\.0/m);
  assert.is((await aggregate(["--arm", `checklist=${sound}`, "--iters", "10"])).code, 0);
  for (
    const [name, broken] of [
      ["a guard that stopped answering", { answered: 2 }],
      ["no ledger", { ledger: false }],
      ["a stock trial with hooks", { arm: "stock", ledger: true, hooks: "http" as const }],
    ] as [string, Partial<GuardedTrialOptions>][]
  ) {
    const root = packetOf([{}, { domain: "cm", ...broken }]);
    const run = await verify([root]);
    assert.is(run.code, 1, `${name}:\n${run.out}`);
    assert.match(run.out, /^FAIL \[(checklist|stock)\] Cannot trust /m, name);
    assert.match(run.out, /^WARN \[packet\] /m, name);
    const arm = broken.arm ?? "checklist";
    const agg = await aggregate(["--arm", `${arm}=${root}`, "--iters", "10"]);
    assert.is(agg.code, 1, `${name}:\n${agg.err}`);
    assert.match(agg.err, /^\[\w+\] Cannot trust /m, name);
  }
});

/** A GUARD-01 refusal as the guard records it (a Bash call at its folder). */
const REFUSAL = {
  v: 2,
  t: "2026-12-01T09:00:30.000Z",
  session: "3f1c2d4e-0000-4000-a000-000000000001",
  arm: "checklist",
  event: "pre",
  decision: "deny",
  tool: "Bash",
  tool_use_id: "toolu_bash",
  rules: [{ id: "GUARD-01", checks: [], message: "Cannot run Bash on /logs/agent/fiable/x.lock" }],
};

// Tampering (issue 40): the chain's verdict on each thing an agent's shell can do to a ledger, as verify says it.
const TAMPERED: [string, Partial<GuardedTrialOptions>, (fiable: string, file: string) => void, RegExp][] = [
  [
    "a forged post appended",
    {
      extra: [
        JSON.stringify({ v: 2, t: "", session: "x", event: "post", decision: "record", p: "0", c: "0" }),
      ],
    },
    () => {},
    /1 line junk|1 line forged/,
  ],
  [
    "a record deleted from the middle",
    {},
    (_fiable, file) => {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.splice(3, 1);
      writeFileSync(file, lines.join("\n"));
    },
    /1 line unlinked \(line 4, the lines before it are not the ones its writer found/,
  ],
  [
    "a record edited",
    {},
    (_fiable, file) =>
      writeFileSync(file, readFileSync(file, "utf8").replace('"decision":"deny"', '"decision":"allow"')),
    /1 line forged \(line \d+, not sealed with the trial's key/,
  ],
  [
    "two records swapped",
    {},
    (_fiable, file) => {
      const lines = readFileSync(file, "utf8").split("\n");
      [lines[2], lines[6]] = [lines[6], lines[2]];
      writeFileSync(file, lines.join("\n"));
    },
    /unlinked/,
  ],
  [
    "the ledger rewritten without its chain",
    {},
    (_fiable, file) => {
      const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
      writeFileSync(
        file,
        lines.map((l) => JSON.stringify({ ...JSON.parse(l), p: undefined, c: undefined })).join("\n") + "\n",
      );
    },
    /has no chained line, though this trial's guard chains every record/,
  ],
  [
    "the trial key removed",
    {},
    (fiable) => rmSync(join(fiable, "guard.key")),
    /guard\.key is gone, so the chain shows order, not who wrote it/,
  ],
  [
    "the guard's own report of a ledger changed behind it",
    {
      extra: [{
        v: 2,
        t: "",
        session: "3f1c2d4e-0000-4000-a000-000000000001",
        arm: "checklist",
        event: "guard",
        decision: "tamper",
        note: "tampering: the ledger was 10 bytes (cut)",
      }],
    },
    () => {},
    /the guard found 1 change behind it and kept its own evidence \(the ledger was 10 bytes \(cut\)\)/,
  ],
];

for (const [name, options, change, why] of TAMPERED) {
  s(`a chained ledger tampered with (${name}) is reported as tampered, and fails verify`, async () => {
    const root = fresh();
    const dir = writeGuardedTrial(root, { arm: "checklist", calls: SIX, chained: true, ...options });
    const fiable = join(dir, "agent", "fiable");
    change(fiable, join(fiable, "3f1c2d4e-0000-4000-a000-000000000001.jsonl"));
    const report = verifyTrees([root]);
    const t = report.arms[0].trials[0];
    assert.ok(t.tamper.tampered, JSON.stringify(t.tamper));
    assert.is(t.verdict, "fail");
    assert.match(t.problems.join("\n"), /its ledger was tampered with/);
    assert.match(t.problems.join("\n"), why);
    assert.is(report.arms[0].integrity.tampered, 1);
    const run = await verify([root]);
    assert.is(run.code, 1, run.out);
  });
}

s(
  "a chained ledger as the guard wrote it verifies; GUARD-01's refusals are attempts, named per trial",
  async () => {
    const clean = trial({ arm: "checklist", chained: true });
    assert.is(clean.t.verdict, "pass", clean.t.problems.join("\n"));
    assert.equal(clean.t.tamper, { refused: 0, reported: 0, untrusted: 0, tampered: false });
    const refused = trial({ arm: "checklist", chained: true, extra: [REFUSAL, REFUSAL] });
    assert.is(refused.t.verdict, "pass", refused.t.problems.join("\n"));
    assert.equal(refused.t.tamper, { refused: 2, reported: 0, untrusted: 0, tampered: false });
    const run = await verify([refused.root]);
    assert.is(run.code, 0, run.out);
    assert.match(run.out, /^NOTE \[checklist\] .*: tampering attempted: 2 \(GUARD-01 refused 2\)$/m);
    assert.match(run.out, /tampered\/attempts/);
    assert.match(run.out, /0\/2/);
  },
);

s("a forged pre never counts as coverage: the call it claims stays uncovered", () => {
  const forgedPre = (i: number) =>
    JSON.stringify({
      v: 2,
      t: "",
      session: "3f1c2d4e-0000-4000-a000-000000000001",
      arm: "checklist",
      event: "pre",
      decision: "allow",
      tool: SIX[5].tool,
      tool_use_id: `toolu_01${String(i).padStart(22, "0")}`,
      p: "0".repeat(64),
      c: "1".repeat(64),
    });
  const { t } = trial({ arm: "checklist", chained: true, answered: 5, extra: [forgedPre(5)] });
  assert.is(t.coverage, 5 / 6);
  assert.ok(t.tamper.tampered);
});

s.run();
