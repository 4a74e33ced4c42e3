/**
 * The aggregator: reproduces every leaderboard packet's results.csv under the recipe that made it, paired
 * statistics on hand-built arms with known answers, bad input listed and counted, guard ledger counts.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { aggregateArms, aggregateArmsParallel, type Row } from "../lib/results/aggregate.ts";
import { writeSamples } from "../lib/samples/trials.ts";
import { csvTable, LEADERBOARD_COLUMNS } from "../lib/results/aggregate_report.ts";
import { parsePrices, type Recipe } from "../lib/results/cost.ts";
import { main, parseArgs } from "../aggregate.ts";
import { connect, sqlString } from "../lib/results/columnar.ts";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import { findTrials } from "../lib/results/trials.ts";
import { type FakeTrial, tempDir, writeArm } from "./support/trial_dirs.ts";

const s = suite("aggregate");
const LEADERBOARD = join(import.meta.dirname!, "..", "..", "shared", "leaderboard");
const PRICES = await parsePrices(
  readFileSync(join(import.meta.dirname!, "..", "data", "prices.yaml"), "utf8"),
);
const made: string[] = [];
s.after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
const arm = (trials: FakeTrial[]) => {
  const dir = writeArm(trials);
  made.push(dir);
  return dir;
};

// harness.md §5.3: which recipe made which packet, and the published columns its trial folders contradict
// (recipe A writes walltime 0, and cost 0 for an unpriced model).
const PACKETS: [string, Recipe, string[]][] = [
  ["2026-05-28-claude-opus-4-8", "A", ["mean_cost_usd", "mean_walltime_s"]],
  ["2026-07-06-glm-5-2-openai-agents", "A", ["mean_walltime_s"]],
  ["2026-07-06-sonnet-5-claude-code", "A", ["mean_walltime_s"]],
  ["2026-07-24-gpt-5-6-sol-codex", "B", []],
];

/** The published columns a result's packet problems name, in order. */
function contradicted(problems: { kind?: string; message: string }[]): string[] {
  return problems.map((p) => `${p.kind}:${/publishes (\w+)/.exec(p.message)?.[1]}`);
}

function parseCsv(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split("\n").map((l) => l.split(","));
  return lines.map((l) => Object.fromEntries(head.map((h, i) => [h, l[i]])));
}

for (const [packet, recipe, columns] of PACKETS) {
  s(
    `reproduces ${packet} results.csv under recipe ${recipe}; flags ${columns.join(", ") || "nothing"}`,
    () => {
      const dir = join(LEADERBOARD, packet);
      if (!existsSync(join(dir, "results.csv"))) {
        console.warn(`skipped: ${dir} is absent (needs ../shared/leaderboard beside the repo)`);
        return;
      }
      const res = aggregateArms([{ name: packet, roots: [dir] }], {
        recipe,
        prices: PRICES,
        toolCalls: false,
        iters: 10,
      });
      assert.equal(contradicted(res.problems), columns.map((c) => `packet:${c}`));
      assert.ok(res.problems.every((p) => p.path === join(dir, "results.csv")));
      const want = parseCsv(readFileSync(join(dir, "results.csv"), "utf8"));
      const got = csvTable(res);
      assert.is(got.length - 1, want.length);
      for (const w of want) {
        const row = res.rows.find((r) => r.domain === w.domain)!;
        assert.ok(row, `no ${w.domain} row`);
        for (
          const col of ["benchmark", "dataset_version", "submission_id", "team", "agent", "model"] as const
        ) {
          assert.is(row[col], w[col], `${w.domain} ${col}`);
        }
        assert.is(row.pass_at_1, Number(w.pass_at_1), `${w.domain} pass_at_1`);
        assert.is(row.n_trials, Number(w.n_trials), `${w.domain} n_trials`);
        assert.is(row.n_tasks, Number(w.n_tasks), `${w.domain} n_tasks`);
        assert.ok(
          Math.abs(row.mean_cost_usd! - Number(w.mean_cost_usd)) <= 1e-6,
          `${w.domain} cost ${row.mean_cost_usd}`,
        );
        assert.ok(Math.abs(row.mean_walltime_s! - Number(w.mean_walltime_s)) <= 1e-6, `${w.domain} walltime`);
      }
    },
  );
}

s("the CSV starts with exactly the leaderboard's columns", () => {
  const res = aggregateArms([{ name: "a", roots: [arm([{ task: "pa_t001_x" }])] }], { prices: PRICES });
  assert.equal(csvTable(res)[0].slice(0, 12), [...LEADERBOARD_COLUMNS]);
});

// Hand-built arms: control passes a,b,c; arm passes b,c,d,e; f fails in both; g only in the arm.
const CONTROL: FakeTrial[] = [
  { task: "cm_a", domain: "cm", reward: 1 },
  { task: "cm_b", domain: "cm", reward: 1 },
  { task: "pa_t001_c_triage_payer", reward: 1 },
  { task: "pa_t002_d_triage_payer", reward: 0 },
  { task: "pa_t003_e_triage_payer", reward: 0 },
  { task: "pa_t004_f_triage_payer", reward: 0 },
];
const GUARDED: FakeTrial[] = [
  { task: "cm_a", domain: "cm", reward: 0 },
  { task: "cm_b", domain: "cm", reward: 1 },
  { task: "pa_t001_c_triage_payer", reward: 1 },
  { task: "pa_t002_d_triage_payer", reward: 1 },
  { task: "pa_t003_e_triage_payer", reward: 1 },
  { task: "pa_t004_f_triage_payer", reward: 0 },
  { task: "pa_t005_g_triage_payer", reward: 1 },
];

s("paired comparison on hand-built arms: difference, flips and McNemar", () => {
  const res = aggregateArms(
    [{ name: "stock", roots: [arm(CONTROL)] }, { name: "guarded", roots: [arm(GUARDED)] }],
    { control: "stock", prices: PRICES },
  );
  const overall = res.comparisons.find((c) => c.domain === "overall")!;
  assert.equal(
    [overall.n_shared, overall.gained, overall.lost, overall.both, overall.neither],
    [6, ["pa_t002_d_triage_payer", "pa_t003_e_triage_payer"], ["cm_a"], 2, 1],
  );
  assert.ok(Math.abs(overall.diff! - 1 / 6) < 1e-12);
  assert.is(overall.p_mcnemar, 1); // b=2, c=1: 2·(1+3)/8 = 1
  const cm = res.comparisons.find((c) => c.domain === "cm")!;
  assert.equal([cm.diff, cm.lo, cm.hi, cm.lost, cm.p_mcnemar], [-0.5, -1, 0, ["cm_a"], 1]);
  const g = res.rows.find((r) => r.arm === "guarded" && r.domain === "overall")!;
  assert.equal([g.n_tasks, g.n_trials, g.n_passed], [7, 7, 5]);
});

s("pass^k and pass@k use every attempt: 3 attempts per task", () => {
  const trials: FakeTrial[] = [1, 1, 1, 1, 0, 0].map((reward, i) => ({
    task: i < 3 ? "cm_a" : "cm_b",
    domain: "cm",
    reward,
  }));
  const row = aggregateArms([{ name: "x", roots: [arm(trials)] }], { prices: PRICES }).rows[0];
  assert.equal([row.n_tasks, row.n_trials, row.pass_at_1], [2, 6, (1 + 1 / 3) / 2]);
  const near = (got: (number | null)[], want: number[]) =>
    assert.ok(got.every((g, i) => Math.abs(g! - want[i]) < 1e-12), `${got} ≉ ${want}`);
  near(row.pass_hat_k.map((e) => e.value), [2 / 3, 0.5, 0.5]);
  near(row.pass_at_k.map((e) => e.value), [2 / 3, 5 / 6, 1]);
});

s("bad input is listed with its path and counted, and recipes B and C differ on unscored trials", () => {
  const trials: FakeTrial[] = [
    { task: "pa_t001_a_triage_payer", reward: 1 },
    { task: "pa_t002_b_triage_payer", reward: null, exception: "AgentTimeoutError" },
    { task: "pa_t003_c_triage_payer", result: "{oops" },
    { task: "pa_t004_d_triage_payer", reward: 1, scorecardReward: 0 },
  ];
  const dir = arm(trials);
  const b = aggregateArms([{ name: "x", roots: [dir] }], { prices: PRICES }).rows[0];
  assert.equal([b.n_trials, b.n_unscored, b.n_unreadable, b.n_problems, b.pass_at_1], [2, 1, 1, 3, 1]);
  assert.equal(b.exceptions, { AgentTimeoutError: 1 });
  const c = aggregateArms([{ name: "x", roots: [dir] }], { recipe: "C", prices: PRICES });
  assert.equal([c.rows[0].n_trials, c.rows[0].pass_at_1], [3, 2 / 3]);
  assert.is(c.problems.length, 3);
  assert.ok(c.problems.every((p) => p.path.startsWith(dir)));
});

s("an unpriced model's cost is unknown under B, never 0, and named", () => {
  const row =
    aggregateArms([{ name: "x", roots: [arm([{ task: "cm_a", domain: "cm", model: "acme/mystery-1" }])] }], {
      prices: PRICES,
    }).rows[0];
  assert.equal([row.mean_cost_usd, row.n_cost_known, row.unpriced_models], [null, 0, ["acme/mystery-1"]]);
  assert.is(row.mean_reported_cost_usd, 1.5);
});

s("guard ledgers are counted per decision and per rule", () => {
  const rec = (decision: string, event: string, rules: string[] = []) => ({
    v: 1,
    t: "2026-07-01T00:00:00Z",
    session: "s1",
    event,
    arm: "checklist",
    decision,
    seat: "payer",
    rules: rules.map((id) => ({ id, checks: [], message: "" })),
  });
  const ledger = [
    rec("allow", "pre"),
    rec("deny", "pre", ["UM-09"]),
    rec("deny", "pre", ["UM-09", "GLOBAL-01"]),
    rec("release", "pre", ["UM-09"]),
    rec("block", "stop"),
    rec("error", "pre"),
    rec("shadow", "pre", ["PP-01"]),
  ];
  const row: Row =
    aggregateArms([{ name: "g", roots: [arm([{ task: "pa_t001_a_triage_payer", ledger }])] }], {
      prices: PRICES,
    }).rows[0];
  const g = row.guard!;
  assert.equal([g.ledgers, g.records, g.denies, g.stop_blocks, g.releases, g.errors, g.shadows], [
    1,
    7,
    2,
    1,
    1,
    1,
    1,
  ]);
  assert.equal(g.per_rule["UM-09"], { deny: 2, block: 0, release: 1, shadow: 0 });
  assert.equal(g.per_rule["STOP-GATE"], { deny: 0, block: 1, release: 0, shadow: 0 });
});

s(
  "sample arms: worker-counted tool calls equal this-thread counts, and the guarded arm has ledgers",
  async () => {
    const dir = tempDir();
    made.push(dir);
    const { arms } = writeSamples(dir);
    const input = Object.entries(arms).map(([name, root]) => ({ name, roots: [root] }));
    const one = aggregateArms(input, { prices: PRICES, control: "stock", iters: 50 });
    const two = await aggregateArmsParallel(input, {
      prices: PRICES,
      control: "stock",
      iters: 50,
      workers: 2,
    });
    assert.equal(two, one);
    const rows = one.rows.filter((r) => r.domain === "overall");
    assert.ok(rows.every((r) => r.n_trajectories === r.n_trials && r.mean_tool_calls! > 0));
    assert.equal(rows.map((r) => !!r.guard), [false, true]);
    assert.equal(one.problems, []);
  },
);

s("a trial dir in two arms is listed as a problem", () => {
  const dir = arm([{ task: "cm_a", domain: "cm" }]);
  const res = aggregateArms([{ name: "a", roots: [dir] }, { name: "b", roots: [join(dir, "cm")] }], {
    prices: PRICES,
  });
  assert.is(res.problems.length, 1);
  assert.match(res.problems[0].message, /is in arm "a" and arm "b"/);
});

const BAD_ARGS: [string[], RegExp][] = [
  [["--arm", "stock"], /is not NAME=DIR/],
  [["--recipe", "D", "x"], /Use one of A, B, C/],
  [["--bogus"], /unknown option --bogus/],
  [["/nope"], /\/nope \(arm "nope"\) does not exist/],
  [["--control", "x", "."], /--control "x" is no arm/],
  [["--iters"], /needs a value/],
];
for (const [args, message] of BAD_ARGS) {
  s(`rejects ${args.join(" ")}`, () => assert.throws(() => parseArgs(args), message));
}

s("a repeated --arm NAME adds a root; a bare dir is an arm named after it", () => {
  const root = tempDir();
  made.push(root);
  for (const d of ["x", "y", "guarded"]) mkdirSync(join(root, d));
  const a = parseArgs(["--arm", `s=${root}/x`, "--arm", `s=${root}/y`, `${root}/guarded/`]);
  assert.equal(a.arms.map((x) => [x.name, x.roots]), [["s", [`${root}/x`, `${root}/y`]], [
    "guarded",
    [`${root}/guarded/`],
  ]]);
});

s("main writes the CSV, JSON and Markdown and exits 1 when an input problem was found", async () => {
  const out = tempDir();
  made.push(out);
  const code = await main(["--arm", `x=${arm([{ task: "cm_a", domain: "cm", result: "{" }])}`, "--out", out]);
  assert.is(code, 1);
  for (const f of ["results.csv", "aggregate.json", "summary.md"]) assert.ok(existsSync(join(out, f)), f);
  assert.match(readFileSync(join(out, "summary.md"), "utf8"), /Input problems \(1\)/);
});

s(
  "main writes trials.parquet (one row per trial) and decisions.parquet (every guard ledger record)",
  async () => {
    const dir = tempDir();
    const out = tempDir();
    made.push(dir, out);
    const { arms } = writeSamples(dir, { attempts: 1 });
    const log = console.log;
    const lines: string[] = [];
    console.log = (...a: unknown[]) => void lines.push(a.join(" "));
    try {
      await main([...Object.entries(arms).flatMap(([n, d]) => ["--arm", `${n}=${d}`]), "--out", out]);
    } finally {
      console.log = log;
    }
    const refs = findTrials(Object.values(arms));
    const records = refs.flatMap((r) => r.ledgers).reduce(
      (n, p) => n + parseLedger(readFileSync(p, "utf8")).records.length,
      0,
    );
    assert.ok(records > 0, "the samples carry guard ledgers");
    assert.ok(
      lines.includes(
        `Parquet summary: ${join(out, "trials.parquet")}, ${join(out, "decisions.parquet")} ` +
          `(${refs.length} trials, ${records} decisions)`,
      ),
      lines.join("\n"),
    );
    const duck = await connect();
    if ("why" in duck) throw new Error(duck.why);
    try {
      const byArm = await duck.all<{ arm: string; n: bigint }>(
        `SELECT arm, count(*) AS n FROM read_parquet(${
          sqlString(join(out, "trials.parquet"))
        }) GROUP BY arm ORDER BY arm`,
      );
      const expected = Object.entries(arms).map(([n, d]) => [n, findTrials([d]).length]).sort();
      assert.equal(byArm.map((r) => [r.arm, Number(r.n)]), expected);
    } finally {
      duck.close();
    }
  },
);

s.run();
