/**
 * The aggregator: reproduces every leaderboard packet's results.csv under the recipe that made it, paired
 * statistics on hand-built arms with known answers, bad input listed and counted, guard ledger counts.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { aggregateArms, aggregateArmsParallel, type Comparison, type Row } from "../lib/results/aggregate.ts";
import { pilotVerdict } from "../lib/results/pilot.ts";
import { writeSamples } from "../lib/samples/trials.ts";
import { csvTable, LEADERBOARD_COLUMNS } from "../lib/results/aggregate_report.ts";
import { parsePrices, type Recipe } from "../lib/results/cost.ts";
import { main as aggregateMain, parseArgs } from "../aggregate.ts";
import { quietly } from "./support/quiet.ts";
import { connect, sqlString } from "../lib/results/columnar.ts";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import { findTrials } from "../lib/results/trials.ts";
import { captured } from "./support/captured.ts";
import { type FakeTrial, tempDir, writeArm, writeGuardedTrial } from "./support/trial_dirs.ts";
import { mcnemarExact } from "../lib/results/stats.ts";
import { REGISTERED } from "../lib/results/protocol.ts";
import padjust from "@stdlib/stats-padjust";

/** aggregate.ts's main, its printed paths and problem lines kept off the test output. */
async function main(args: string[]): Promise<number> {
  return (await quietly(() => aggregateMain(args))).value;
}

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

/** `attempts` trials per task over the given tasks, passing the first `passes(task)` of them. */
function attemptsOf(tasks: [string, string][], attempts: number, passes: (i: number) => number): FakeTrial[] {
  return tasks.flatMap(([task, domain], i) =>
    Array.from({ length: attempts }, (_, a) => ({ task, domain, reward: a < passes(i) ? 1 : 0 }))
  );
}
const PROVIDER: [string, string][] = [1, 2, 3, 4].map((i) => [`pa_t00${i}_x_provider`, "pa_provider"]);
const CM: [string, string][] = [["cm_a", "cm"], ["cm_b", "cm"]];

s(
  "arms of 1, 2 and 3 attempts and a domain missing from one arm: every output, pass^k where defined",
  async () => {
    // one: 1 attempt, provider only (no cm); two: 2 attempts; three: 3 attempts, both domains.
    const one = arm(attemptsOf(PROVIDER, 1, (i) => i % 2));
    const two = arm(attemptsOf([...PROVIDER, ...CM], 2, (i) => i % 3));
    const three = arm(attemptsOf([...PROVIDER, ...CM], 3, (i) => i % 4));
    const out = tempDir();
    made.push(out);
    const code = await main([
      ...["--arm", `one=${one}`, "--arm", `two=${two}`, "--arm", `three=${three}`],
      ...["--control", "one", "--out", out, "--iters", "50"],
    ]);
    assert.is(code, 0);
    for (const f of ["results.csv", "aggregate.json", "summary.md", "trials.parquet"]) {
      assert.ok(existsSync(join(out, f)), f);
    }
    const res = JSON.parse(readFileSync(join(out, "aggregate.json"), "utf8"));
    const row = (a: string, d: string) => res.rows.find((r: Row) => r.arm === a && r.domain === d) as Row;
    const ks = (r: Row) => r.pass_hat_k.map((e) => `${e.k}:${e.n_tasks}`);
    assert.equal(ks(row("one", "overall")), ["1:4"]);
    assert.equal(ks(row("two", "overall")), ["1:6", "2:6"]);
    assert.equal(ks(row("three", "cm")), ["1:2", "2:2", "3:2"]);
    assert.is(row("one", "cm"), undefined);
    // Every comparison is on the tasks both arms share; none against a domain the control never ran.
    assert.equal(
      res.comparisons.map((c: { arm: string; domain: string; n_shared: number }) =>
        `${c.arm}/${c.domain}:${c.n_shared}`
      ),
      ["two/overall:4", "two/pa_provider:4", "three/overall:4", "three/pa_provider:4"],
    );
    const md = readFileSync(join(out, "summary.md"), "utf8");
    const line = (a: string, d: string) => md.split("\n").find((l) => l.startsWith(`| ${a} | ${d} |`))!;
    assert.match(line("one", "overall"), /\| n\/a \| n\/a \| n\/a \| n\/a \|/);
    assert.match(line("two", "overall"), /· 6 tasks \| [^|]+ · 6 tasks \| n\/a \| n\/a \|/);
    assert.match(
      line("three", "cm"),
      /· 2 tasks \| [^|]+ · 2 tasks \| [^|]+ · 2 tasks \| [^|]+ · 2 tasks \|/,
    );
    const csv = parseCsv(readFileSync(join(out, "results.csv"), "utf8"));
    const oneRow = csv.find((r) => r.arm === "one" && r.domain === "overall")!;
    assert.equal([oneRow.pass_hat_3, oneRow.pass_hat_3_n_tasks, oneRow.pass_at_2_n_tasks], ["", "", ""]);
    assert.is(csv.find((r) => r.arm === "three" && r.domain === "overall")!.pass_hat_3_n_tasks, "6");
  },
);

s("a task with fewer attempts than others in its arm: pass^k covers only the tasks that have k", () => {
  const trials = [...attemptsOf([PROVIDER[0]], 3, () => 3), ...attemptsOf([PROVIDER[1]], 1, () => 1)];
  const row = aggregateArms([{ name: "x", roots: [arm(trials)] }], { prices: PRICES, iters: 20 }).rows[0];
  assert.equal(row.pass_hat_k.map((e) => [e.k, e.n_tasks, e.value]), [[1, 2, 1], [2, 1, 1], [3, 1, 1]]);
});

// Passes of 3 attempts on 8 tasks (t1–t4 provider, t5–t8 cm), built so each McNemar count is known:
// H1 checklist − stock: gained t1–t5, lost t7 (b 5, c 1); H2 plan − stock: gained t1 (1, 0);
// H3 critic − checklist: gained t7, t8 (2, 0).
const PASSES: Record<string, number[]> = {
  stock: [0, 0, 0, 0, 1, 3, 3, 0],
  plan: [3, 0, 0, 0, 1, 3, 3, 0],
  checklist: [3, 3, 2, 2, 3, 3, 0, 0],
  critic: [3, 3, 3, 3, 3, 3, 3, 3],
};
const EIGHT: [string, string][] = Array.from(
  { length: 8 },
  (_, i) => i < 4 ? [`pa_t00${i + 1}_x_provider`, "pa_provider"] : [`cm_t${i + 1}`, "cm"],
);

s(
  "--protocol: H1–H3 from one call, McNemar on 3 attempts (half the attempts), Holm across the family",
  async () => {
    const out = tempDir();
    made.push(out);
    const arms = Object.entries(PASSES).flatMap(([name, p]) => [
      "--arm",
      `${name}=${arm(attemptsOf(EIGHT, 3, (i) => p[i]))}`,
    ]);
    assert.is(await main([...arms, "--protocol", "--out", out, "--iters", "200", "--no-tool-calls"]), 0);
    const res = JSON.parse(readFileSync(join(out, "aggregate.json"), "utf8"));
    const overall = res.comparisons.filter((c: { domain: string }) => c.domain === "overall");
    assert.equal(
      overall.map((
        c: Record<string, unknown>,
      ) => [c.id, c.arm, c.control, c.gained, c.lost, c.p_mcnemar_basis]),
      [
        [
          "H1",
          "checklist",
          "stock",
          ["cm_t5", ...EIGHT.slice(0, 4).map(([t]) => t)].sort(),
          ["cm_t7"],
          "half",
        ],
        ["H2", "plan", "stock", ["pa_t001_x_provider"], [], "half"],
        ["H3", "critic", "checklist", ["cm_t7", "cm_t8"], [], "half"],
      ],
    );
    const ps = [mcnemarExact(5, 1), mcnemarExact(1, 0), mcnemarExact(2, 0)];
    assert.equal(overall.map((c: { p_mcnemar: number }) => c.p_mcnemar), ps);
    const want = padjust(ps, "holm") as number[];
    overall.forEach((c: { p_mcnemar_adjusted: number }, i: number) =>
      assert.ok(Math.abs(c.p_mcnemar_adjusted - want[i]) < 1e-12, `${c.p_mcnemar_adjusted} ≉ ${want[i]}`)
    );
    assert.equal(res.correction, {
      method: "holm",
      family: ["checklist:stock", "plan:stock", "critic:checklist"],
    });
    // Per-domain rows are descriptive: computed, never adjusted.
    const domains = res.comparisons.filter((c: { domain: string }) => c.domain !== "overall");
    assert.is(domains.length, 6);
    assert.ok(domains.every((c: { p_mcnemar_adjusted: null }) => c.p_mcnemar_adjusted === null));
    const md = readFileSync(join(out, "summary.md"), "utf8");
    assert.match(md, /Holm-adjusted across checklist:stock, plan:stock, critic:checklist/);
    assert.match(
      md,
      /^\| H1 checklist − stock \| overall \| 8 \| [^|]+ \| \w+ \| 0\.219 \| 0\.656 \| half \| 5 \| 1 \| \*\*not comparable\*\* \(below\): not the guard's effect \|$/m,
    );
    assert.match(
      md,
      /^\| H3 critic − checklist \| overall \| 8 \| \+33\.3 pts \[[^|]+\] \| \w+ \| 0\.500 \| 1\.00 \| half \| 2 \| 0 \| \*\*not comparable\*\* \(below\): not the guard's effect \|$/m,
    );
    // Hand-made trials of no guard, read without their trajectories: named arms, but not shown to be them.
    assert.match(
      md,
      /^- H1 checklist − stock: how arm checklist ran was not checked \(--no-tool-calls\), so it is not known to be the checklist arm; how arm stock ran/m,
    );
    const csv = parseCsv(readFileSync(join(out, "comparisons.csv"), "utf8"));
    assert.equal(csv.filter((r) => r.domain === "overall").map((r) => [r.id, r.correction]), [
      ["H1", "holm"],
      ["H2", "holm"],
      ["H3", "holm"],
    ]);
  },
);

s("on the terminal: the overall table and every comparison; --no-out writes nothing", async () => {
  const stock = arm(attemptsOf(PROVIDER, 1, () => 0));
  const other = arm(attemptsOf(PROVIDER, 1, (i) => (i < 3 ? 1 : 0)));
  const cwd = Deno.cwd();
  const here = tempDir();
  made.push(here);
  Deno.chdir(here);
  try {
    const run = await captured(aggregateMain, [
      "--arm",
      `a=${stock}`,
      "--arm",
      `b=${other}`,
      "--control",
      "a",
      "--no-out",
    ]);
    assert.is(run.code, 0, run.err);
    const lines = run.out.split("\n");
    assert.equal(lines.slice(0, 4).map((l) => l.replace(/ +/g, " ")), [
      "Overall (recipe B; unreadable trials count as failures until fixed):",
      "arm tasks trials pass@1 [95% CI] cost/trial unscored unreadable",
      // Sonnet 5's recipe B on the fake tokens: (200k × 3 + 10k × 15 + 800k × 0.3) / 1e6 = $0.99.
      "a 4 4 0.0% [0.0%, 0.0%] $0.99 0 0",
      "b 4 4 75.0% [25.0%, 100.0%] $0.99 0 0",
    ]);
    assert.match(
      run.out,
      /^ {2}b − a on overall: \+75\.0 pts \[[^\]]+\] over 4 tasks, \w+; McNemar p 0\.250 \(3 gained, 0 lost\)$/m,
    );
    assert.not.ok(existsSync(join(here, "results")), "--no-out wrote nothing");
    assert.throws(
      () => parseArgs(["--arm", `a=${stock}`, "--no-out", "--out", here]),
      /--no-out writes nothing/,
    );
  } finally {
    Deno.chdir(cwd);
  }
});

s("--compare adds pairs to --control's; an unknown arm or a pair that is not A:B is refused", () => {
  const root = tempDir();
  made.push(root);
  for (const d of ["stock", "critic", "checklist"]) mkdirSync(join(root, d));
  const dirs = ["stock", "critic", "checklist"].flatMap((d) => ["--arm", `${d}=${root}/${d}`]);
  const a = parseArgs([...dirs, "--control", "stock", "--compare", "critic:checklist"]);
  assert.equal([a.control, a.compare], ["stock", [{ arm: "critic", control: "checklist" }]]);
  assert.throws(() => parseArgs([...dirs, "--compare", "critic:plan"]), /"plan" is no arm/);
  assert.throws(() => parseArgs([...dirs, "--compare", "critic"]), /is not A:B/);
  assert.equal(
    parseArgs([...dirs, "--protocol"]).compare.map((p) => p.id),
    ["H1", "H3"],
    "H2 needs the plan arm",
  );
});

s("the registered comparisons are the protocol's hypothesis table, and it names Holm for H1–H3", () => {
  const doc = readFileSync(join(import.meta.dirname!, "..", "docs", "EVALUATION_PROTOCOL.md"), "utf8");
  for (const r of REGISTERED) {
    const line = doc.split("\n").find((l) => l.startsWith(`| ${r.id} `));
    assert.ok(line?.includes(`${r.arm} − ${r.control}`), `${r.id}: ${line}`);
  }
  assert.match(
    doc,
    /Across the three arm-vs-comparator tests \(H1–H3\) the McNemar p-values are Holm-adjusted/,
  );
});

/** A fiable-cc arm in Harbor's layout: the provider tasks, passing the first `passes`, guarded unless stock. */
function fiableArm(name: string, passes: number): string {
  const root = tempDir();
  made.push(root);
  PROVIDER.forEach(([task], i) =>
    writeGuardedTrial(root, {
      arm: name,
      calls: [{ tool: "chart.get_patient_chart" }],
      domain: "pa_provider",
      task,
      id: `P${i}`,
      reward: i < passes ? 1 : 0,
    })
  );
  return root;
}

s(
  "--pilot: critic − stock on the provider tasks and the pre-stated verdict, written as one word",
  async () => {
    const out = tempDir();
    made.push(out);
    const stock = fiableArm("stock", 0);
    const critic = fiableArm("critic", 4);
    const args = ["--arm", `stock=${stock}`, "--arm", `critic=${critic}`, "--out", out, "--iters", "100"];
    assert.is(await main([...args, "--pilot"]), 0);
    assert.is(readFileSync(join(out, "pilot_verdict.txt"), "utf8"), "go\n");
    const md = readFileSync(join(out, "summary.md"), "utf8");
    assert.match(
      md,
      /## Pilot verdict .*\n\n\*\*go\*\*: critic − stock on pa_provider: Δ pass@1 \+100\.0 pts \[\+100\.0, \+100\.0\] over 4 tasks lies above 0/,
    );
    assert.throws(
      () => parseArgs(["--arm", `stock=${stock}`, "--pilot"]),
      /--pilot needs arms stock and critic; critic is missing/,
    );
    // The same outcomes from other harnesses' trials labelled stock and critic: no result, and why.
    const labelled = ["--arm", `stock=${arm(attemptsOf(PROVIDER, 1, () => 0))}`];
    labelled.push("--arm", `critic=${arm(attemptsOf(PROVIDER, 1, () => 1))}`, "--out", out, "--iters", "100");
    assert.is(await main([...labelled, "--pilot"]), 0);
    assert.is(readFileSync(join(out, "pilot_verdict.txt"), "utf8"), "no-result\n");
    assert.match(
      readFileSync(join(out, "summary.md"), "utf8"),
      /\*\*no-result\*\*: critic − stock on pa_provider is not the guard's effect: arm critic did not run as critic: its trials ran as unguarded claude-code; arm stock did not run as stock: its trials ran as unguarded claude-code\./,
    );
  },
);

const PAIR = {
  id: null,
  arm: "critic",
  control: "stock",
  domain: "pa_provider",
  gained: [],
  lost: [],
  both: 0,
  not_comparable: [],
};
const VERDICTS: [string, Partial<Comparison>, string][] = [
  ["above 0: go", { n_shared: 25, diff: 0.4, lo: 0.2, hi: 0.6, decision: "improves", marked: [] }, "go"],
  [
    "spans 0: no-go",
    { n_shared: 25, diff: 0.1, lo: -0.1, hi: 0.3, decision: "inconclusive", marked: [] },
    "no-go",
  ],
  [
    "below 0: no-go",
    { n_shared: 25, diff: -0.4, lo: -0.6, hi: -0.2, decision: "harms", marked: [] },
    "no-go",
  ],
  [
    "a marked arm: no result",
    { n_shared: 25, lo: 0.2, hi: 0.6, decision: "improves", marked: ["critic"] },
    "no-result",
  ],
  ["no shared task: no result", { n_shared: 0, decision: null, marked: [] }, "no-result"],
  [
    "arms that differ by more than the guard: no result",
    {
      n_shared: 25,
      lo: 0.2,
      hi: 0.6,
      decision: "improves",
      marked: [],
      not_comparable: ["the model differs"],
    },
    "no-result",
  ],
];
for (const [name, c, want] of VERDICTS) {
  s(`the pilot's rule: ${name}`, () => {
    assert.is(pilotVerdict([{ ...PAIR, ...c } as Comparison]).verdict, want);
  });
}

s(
  "bad input is listed and counted (an unreadable trial as a failure); recipes B and C differ on unscored",
  () => {
    const trials: FakeTrial[] = [
      { task: "pa_t001_a_triage_payer", reward: 1 },
      { task: "pa_t002_b_triage_payer", reward: null, exception: "AgentTimeoutError" },
      { task: "pa_t003_c_triage_payer", result: "{oops" },
      { task: "pa_t004_d_triage_payer", reward: 1, scorecardReward: 0 },
    ];
    const dir = arm(trials);
    const b = aggregateArms([{ name: "x", roots: [dir] }], { prices: PRICES }).rows[0];
    // The unreadable trial counts as a failure of its task, never dropped from the denominator.
    assert.equal([b.n_trials, b.n_unscored, b.n_unreadable, b.n_problems, b.pass_at_1], [3, 1, 1, 3, 2 / 3]);
    assert.equal(b.exceptions, { AgentTimeoutError: 1 });
    const c = aggregateArms([{ name: "x", roots: [dir] }], { recipe: "C", prices: PRICES });
    assert.equal([c.rows[0].n_trials, c.rows[0].pass_at_1], [4, 2 / 4]);
    assert.is(c.problems.length, 3);
    assert.ok(c.problems.every((p) => p.path.startsWith(dir)));
  },
);

s("an unreadable attempt is one more failed attempt of its task (named from its folder's prefix)", () => {
  const task = "pa_t008_t008_o002_p01_new_referral_provider";
  const dir = arm([
    { task, domain: "pa_provider", reward: 1, id: "A1" },
    { task, domain: "pa_provider", result: '{"task_name": "actava-ai/pa_t0', id: "A2" },
  ]);
  const row = aggregateArms([{ name: "x", roots: [dir] }], { prices: PRICES }).rows[0];
  assert.equal([row.n_tasks, row.n_trials, row.n_unreadable, row.pass_at_1], [1, 2, 1, 0.5]);
  assert.equal(row.tasks, [{ task, n: 2, c: 1 }]);
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
    const { out: lines } = await quietly(() =>
      aggregateMain([...Object.entries(arms).flatMap(([n, d]) => ["--arm", `${n}=${d}`]), "--out", out])
    );
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
