/** Trial discovery under every root layout and reading result/scorecard with bad input listed, not dropped. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { domainFromTask, findTrials, isoSeconds, readScorecard, readTrial } from "../lib/results/trials.ts";
import { tempDir, writeTrial } from "./support/trial_dirs.ts";

const s = suite("trials");
const root = tempDir();
s.after(() => rmSync(root, { recursive: true, force: true }));

// A chi-bench job dir (job.log + aggregate result.json) in a submission output root.
const job = join(root, "sub", "pa_um", "sub__pa_um");
mkdirSync(job, { recursive: true });
writeFileSync(join(job, "job.log"), "");
writeFileSync(join(job, "result.json"), JSON.stringify({ stats: {} }));
writeTrial(job, { task: "pa_t008_t008_o002_p01_mdreview_payer", domain: "." });
writeTrial(join(root, "packet", "trials"), { task: "cm_afib_moderate_anxious_001", domain: "cm", reward: 0 });
writeTrial(root, {
  task: "pa_t011_t011_o003_p01_new_referral_provider",
  domain: "loose",
  id: "nores",
  result: null,
});
writeTrial(root, {
  task: "pa_t012_t012_o001_p01_triage_payer",
  domain: "loose",
  id: "bad",
  result: "{not json",
});
writeTrial(root, {
  task: "pa_t013_t013_o001_p01_triage_payer",
  domain: "loose",
  id: "crash",
  reward: null,
  exception: "RewardFileNotFoundError",
});
writeTrial(root, {
  task: "pa_t014_t014_o001_p01_triage_payer",
  domain: "loose",
  id: "disagree",
  reward: 1,
  scorecardReward: 0,
});

// A trial that crashed before Harbor wrote result.json: the config.json it writes at the start, trial.log and
// exception.txt.
const early = join(root, "loose", "pa_t015_t015_o001_p01_triage_payer__early");
mkdirSync(early, { recursive: true });
writeFileSync(
  join(early, "config.json"),
  JSON.stringify({ task: { path: "x" }, trial_name: "pa_t015__early" }),
);
writeFileSync(join(early, "trial.log"), "");
writeFileSync(join(early, "exception.txt"), "EnvironmentStartTimeoutError");

// Not trials: a source tree with a verifier/ folder (chi-bench's src/chi_bench), another tool's config.json.
mkdirSync(join(root, "src", "chi_bench", "verifier", "stages"), { recursive: true });
writeFileSync(join(root, "src", "chi_bench", "verifier", "stages", "provider.py"), "");
writeFileSync(join(root, "src", "chi_bench", "config.json"), JSON.stringify({ name: "x" }));

const refs = findTrials([root]);
const byId = (id: string) => refs.find((r) => r.name.endsWith(`__${id}`))!;

s("finds every trial once, not the job dir, not a source tree with a verifier/ folder", () => {
  assert.is(refs.length, 7);
  assert.not.ok(refs.some((r) => r.dir === job));
  assert.not.ok(
    refs.some((r) => r.dir.includes(join("src", "chi_bench"))),
    refs.map((r) => r.dir).join("\n"),
  );
});

s("a root that is itself a trial dir is found", () => {
  assert.equal(findTrials([byId("crash").dir]).map((r) => r.name), [byId("crash").name]);
});

const DOMAIN: [string, string][] = [
  ["cm_afib_moderate_anxious_001", "cm"],
  ["pa_t011_t011_o003_p01_new_referr", "pa_provider"],
  ["pa_t012_t012_o001_p01_triage_pay", "pa_um"],
  ["something_else", "unknown"],
];
for (const [task, domain] of DOMAIN) {
  s(`domain of ${task} is ${domain}`, () => assert.is(domainFromTask(task), domain));
}

s("domain comes from the parent dir (packet, submission job dir) before the task name", () => {
  const domains = refs.map((r) => r.domain).sort();
  assert.equal(domains, ["cm", "pa_provider", ...Array(5).fill("pa_um")]);
});

s("a verified trial reads its task, model, tokens and pass", () => {
  const t = readTrial(refs.find((r) => r.domain === "cm")!);
  assert.equal(
    [t.task, t.model, t.passed, t.reward, t.tokens.cache, t.problems],
    ["cm_afib_moderate_anxious_001", "anthropic/claude-sonnet-5", false, 0, 800_000, []],
  );
  assert.ok(Math.abs(t.agentExecution.seconds! - 100) < 1e-9);
});

const BAD: [string, RegExp, boolean][] = [
  ["nores", /Cannot read .*result\.json: it is missing/, false],
  ["early", /Cannot read .*result\.json: it is missing/, false],
  ["bad", /Cannot read .*result\.json: .*JSON/, false],
  ["crash", /no verifier_result \(RewardFileNotFoundError\)/, true],
  ["disagree", /binary_reward 0 disagrees with result\.json reward 1/, true],
];
for (const [id, message, readable] of BAD) {
  s(`bad input "${id}" is listed with its path`, () => {
    const t = readTrial(byId(id));
    assert.is(t.readable, readable);
    assert.ok(t.problems.some((p) => message.test(p) && p.includes(byId(id).dir)), t.problems.join("\n"));
  });
}

s("readScorecard gives passed true/false/null and the check kind", () => {
  assert.equal(readScorecard(byId("disagree").scorecard!).checks, [
    { id: "outcome.target_status", passed: false, kind: "deterministic" },
    { id: "judge.md_review:final_decision", passed: null, kind: "judge" },
  ]);
});

s("isoSeconds keeps microseconds", () => {
  assert.ok(Math.abs((isoSeconds("1970-01-01T00:00:01.000001Z") ?? 0) - 1.000001) < 1e-12);
  assert.is(isoSeconds("yesterday"), null);
});

s.run();
