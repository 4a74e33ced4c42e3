/**
 * From guarded trials to a leaderboard packet that carries its own proof: two fiable-cc trials on the stand-in
 * Harbor 0.20 (real Claude Code 2.1.219, the Node bundle; one ends with the agent's stop, one on an API error),
 * their result.json carrying the guard's facts; chi-bench's real `prepare_packet` (../shared/sources/chi-bench,
 * run with `sh ../shared/tools/chi-bench-python.sh`) turning the trial tree and install.ts's submission YAML into
 * a packet, which keeps result.json and the trajectory and drops the ledgers; then `verify` proving the guard
 * from result.json alone, `aggregate` reproducing the packet's results.csv, the dashboard showing the facts, and
 * `deno task packet` writing the disclosure, and refusing the packet once one trial is unguarded.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { FACTS_MAX_BYTES, factsIn, type GuardFacts } from "../../lib/results/guard_facts.ts";
import { loadFactsReader } from "../../lib/results/guard_facts_reader.ts";
import { ledgerDigest, ruleSetDigest } from "../../lib/results/guard_summary.ts";
import { sha256 } from "../../lib/results/calls_digest.ts";
import { provenLine, verified, verifyTrees } from "../../lib/results/verify.ts";
import { aggregateArms } from "../../lib/results/aggregate.ts";
import { csvTable } from "../../lib/results/aggregate_report.ts";
import { parsePrices } from "../../lib/results/cost.ts";
import { readTrajectory } from "../../lib/trajectories/atif.ts";
import { worldCalls } from "../../lib/results/tool_counts.ts";
import { submissionFile, submissionId } from "../../lib/install/submission.ts";
import { AGENTS_DIR } from "../../lib/install/harnesses.ts";
import { DISCLOSURE, main as packetMain } from "../../packet.ts";
import { createApp } from "../../dashboard/app.tsx";
import { PAYER, PAYER_PROMPT } from "../support/e2e/scenario.ts";
import {
  installedCheckout,
  killedGuardTrial,
  standInAvailable,
  type StandInTrial,
  standInTrial,
} from "../support/standin_trial.ts";
import { CHI_BENCH_SOURCE, chiBenchPython } from "../support/chibench_python.ts";
import { captured } from "../support/captured.ts";

await loadFactsReader();
const ROOT = join(import.meta.dirname ?? ".", "..", "..");
const available = standInAvailable();
const py = chiBenchPython();
const skip = !available.ok ? available.why : "why" in py ? py.why : null;
const s = suite(
  "e2e leaderboard packet (stand-in Harbor → chi-bench's prepare_packet → verify, aggregate, packet)",
);

const trials: StandInTrial[] = [];
const work = mkdtempSync(join(tmpdir(), "fiable-leaderboard-packet-"));
let packet = "";

/** A trial's result.json facts (they must be there and valid). */
function factsOf(trial: StandInTrial): GuardFacts {
  const read = factsIn(JSON.parse(readFileSync(join(trial.trialDir, "result.json"), "utf8")), trial.trialDir);
  assert.ok(read && "facts" in read, JSON.stringify(read ?? trial.result.agent_result));
  return (read as { facts: GuardFacts }).facts;
}

s.before(async () => {
  if (skip) return console.log(`  (skipped: ${skip})`);
  // A clean guarded trial that the agent ends itself, and one the API ends (every request refused after a call).
  trials.push(await killedGuardTrial({ kill: false }));
  const refused = {
    status: 400,
    type: "invalid_request_error",
    message: "scripted: request refused",
  } as const;
  trials.push(
    await standInTrial({
      task: "pa_um_md_review_standin_apierr",
      prompt: PAYER_PROMPT,
      script: [{ calls: [PAYER.queue] }, ...Array(6).fill({ apiError: refused })],
    }),
  );
});

s(
  "each guarded trial's result.json carries the guard's facts: arm, hooks, versions, coverage, ending",
  async () => {
    if (skip) return;
    const checkout = await installedCheckout();
    const bundle = readFileSync(join(checkout, AGENTS_DIR, "fiable_guard.cjs"));
    for (const trial of trials) {
      const facts = factsOf(trial);
      const why = JSON.stringify(facts);
      assert.ok(JSON.stringify(facts).length <= FACTS_MAX_BYTES, why);
      assert.equal([facts.arm, facts.hooks, facts.hooks_reason], ["checklist", "http", "answered"], why);
      assert.match(facts.guard.commit ?? "", /^[0-9a-f]{40}(-dirty)?$/, why);
      assert.is(facts.guard.bundle_sha256, sha256(bundle), "the facts name the bundle the trial ran");
      assert.is(facts.rules.digest, ruleSetDigest());
      assert.is(facts.claude_code, "2.1.219");
      const fiable = join(trial.trialDir, "agent", "fiable");
      const ledgers = readdirSync(fiable).filter((n) => n.endsWith(".jsonl"))
        .map((name) => ({ name, bytes: readFileSync(join(fiable, name)) }));
      assert.is(facts.ledger.digest, ledgerDigest(ledgers), "the facts name the ledger bytes");
      const calls = worldCalls(readTrajectory(join(trial.trialDir, "agent", "trajectory.json")));
      assert.equal(
        [facts.coverage?.calls, facts.coverage?.covered, facts.plan_injected, facts.fail_open],
        [calls.length, calls.length, true, 0],
        why,
      );
      assert.ok((facts.tool_ms?.calls ?? 0) > 0, `duration_ms recorded: ${why}`);
    }
    const [stopped, errored] = trials.map(factsOf);
    assert.equal([stopped.ending, stopped.api_errors], ["stop", {}]);
    assert.is(errored.ending, "api_error", "Claude Code 2.1.219's StopFailure reached the resident guard");
    assert.equal(Object.values(errored.api_errors), [1]);
    assert.ok((stopped.blocks_by_rule["GLOBAL-01"] ?? 0) >= 1, JSON.stringify(stopped.blocks_by_rule));
  },
);

s("chi-bench's prepare_packet turns the trial tree and install.ts's submission into a packet", async () => {
  if (skip || "why" in py) return;
  const opts = {
    id: "acme-lab",
    arm: "checklist" as const,
    team: "Acme Lab",
    contact: "team@acme.test",
    model: "anthropic/claude-scripted",
    environment: "docker" as const,
    attempts: 1,
    concurrency: 2,
    datasetVersion: "chi-bench-v1.0.0",
    claudeVersion: "2.1.219",
  };
  const out = join(work, "logs", "submissions", submissionId(opts));
  for (const trial of trials) {
    cpSync(trial.trialDir, join(out, "pa_um", basename(trial.trialDir)), { recursive: true });
  }
  const yaml = join(work, "sub.yaml");
  writeFileSync(yaml, (await submissionFile(opts)).bytes);
  writeFileSync(join(out, "sub.yaml"), readFileSync(yaml));
  const run = spawnSync(py.python, [
    "-c",
    "import sys\nfrom pathlib import Path\n" +
    "from chi_bench.experiment.submission import SubmissionConfig, prepare_packet\n" +
    "cfg = SubmissionConfig.from_yaml(sys.argv[1])\ncfg.paths.output_root = Path(sys.argv[2])\n" +
    "print(prepare_packet(cfg, out_dir=Path(sys.argv[3]), date='2026-12-01'))",
    yaml,
    out,
    join(work, "packets"),
  ], { cwd: CHI_BENCH_SOURCE, encoding: "utf8" });
  assert.is(run.status, 0, run.stderr);
  packet = run.stdout.trim().split("\n").at(-1)!;
  assert.is(basename(packet), "2026-12-01-acme-lab-fiable-cc-checklist");
  for (const trial of trials) {
    const at = join(packet, "trials", "pa_um", basename(trial.trialDir));
    assert.ok(
      existsSync(join(at, "result.json")) && existsSync(join(at, "agent", "trajectory.jsonl.zst")),
      at,
    );
    assert.not.ok(existsSync(join(at, "agent", "fiable")), "the ledgers stay behind");
  }
});

s("verify proves the guard from result.json alone", () => {
  if (!packet) return;
  const report = verifyTrees([packet]);
  assert.ok(verified(report), JSON.stringify(report.problems));
  const all = report.arms.flatMap((a) => a.trials);
  assert.equal(all.map((t) => [t.kind, t.arm, t.source, t.coverage, t.verdict]), [
    ["guarded", "checklist", "result.json", 1, "pass"],
    ["guarded", "checklist", "result.json", 1, "pass"],
  ]);
  assert.equal(all.map((t) => t.ending).sort(), ["api_error", "stop"]);
  assert.is(
    provenLine(report.arms.map((a) => a.integrity)),
    "guarded: 2 of 2 trials proven (from result.json)",
  );
});

s("aggregate on the packet equals the packet's results.csv (chi-bench's recipe A)", async () => {
  if (!packet) return;
  const prices = await parsePrices(readFileSync(join(ROOT, "data", "prices.yaml"), "utf8"));
  const res = aggregateArms([{ name: "packet", roots: [packet] }], { recipe: "A", prices, iters: 10 });
  const [head, ...lines] = readFileSync(join(packet, "results.csv"), "utf8").trim().split("\n").map((l) =>
    l.split(",")
  );
  const want = lines.map((l) => Object.fromEntries(head.map((h, i) => [h, l[i]])));
  assert.is(csvTable(res).length - 1, want.length);
  for (const w of want) {
    const row = res.rows.find((r) => r.domain === w.domain)!;
    assert.ok(row, `no ${w.domain} row`);
    for (const col of ["submission_id", "team", "agent", "model", "dataset_version"] as const) {
      assert.is(row[col], w[col], `${w.domain} ${col}`);
    }
    assert.equal(
      [row.pass_at_1, row.n_trials, row.n_tasks, row.mean_cost_usd, row.mean_walltime_s],
      [w.pass_at_1, w.n_trials, w.n_tasks, w.mean_cost_usd, w.mean_walltime_s].map(Number),
      w.domain,
    );
  }
  const overall = res.rows.find((r) => r.domain === "overall")!;
  assert.equal([overall.integrity?.guarded, overall.integrity?.proven], [2, { "result.json": 2 }]);
});

s("the dashboard shows the facts on the trial page and counts the arm from them", async () => {
  if (!packet) return;
  const { app, store } = createApp({ logs: [packet], results: [] }, { scanMs: 0, tailMs: 0 });
  store.refresh({ scanMs: 0, tailMs: 0 });
  const rows = store.rows();
  assert.equal(rows.map((r) => r.arm), ["checklist", "checklist"]);
  const page = await app.request(`/trials/${rows[0].id}`);
  const html = await page.text();
  assert.is(page.status, 200);
  assert.match(html, "Guard facts (result.json)");
  assert.match(html, ruleSetDigest().slice(0, 12));
});

s(
  "deno task packet writes the disclosure beside chi-bench's README; one unguarded trial is refused, named",
  async () => {
    if (!packet) return;
    const ok = await captured(packetMain, [packet]);
    assert.is(ok.code, 0, ok.err);
    assert.match(ok.out, "2 of 2 trials prove the guard in arm checklist");
    assert.ok(existsSync(join(packet, "README.md")));
    const text = readFileSync(join(packet, DISCLOSURE), "utf8");
    for (
      const says of [
        "arm checklist",
        "Zero extra model calls",
        ruleSetDigest(),
        "Claude Code 2.1.219",
        "| endings |",
      ]
    ) assert.match(text, says);

    const wrong = await captured(packetMain, [packet, "--arm", "critic"]);
    assert.is(wrong.code, 1);
    assert.match(wrong.err, "it ran arm checklist, and the packet declares critic");

    const copy = join(work, "unguarded");
    cpSync(packet, copy, { recursive: true });
    const name = basename(trials[1].trialDir);
    const path = join(copy, "trials", "pa_um", name, "result.json");
    const result = JSON.parse(readFileSync(path, "utf8"));
    delete result.agent_result.metadata;
    delete result.config;
    result.agent_info.name = "claude-code";
    writeFileSync(path, JSON.stringify(result));
    rmSync(join(copy, DISCLOSURE));
    const refused = await captured(packetMain, [copy]);
    assert.is(refused.code, 1, refused.out);
    assert.match(refused.err, `1 of 2 trials do not prove the guard`);
    assert.match(refused.err, `trials/pa_um/${name}: it ran unguarded (claude-code)`);
    assert.not.ok(existsSync(join(copy, DISCLOSURE)), "no disclosure for a refused packet");
  },
);

s.after(() => {
  for (const trial of trials) trial.dispose();
  rmSync(work, { recursive: true, force: true });
});

s.run();
