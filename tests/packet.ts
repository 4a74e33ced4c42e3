/**
 * Packets that contradict themselves: hand-built packets with known contradictions, and the real extra
 * packets whose results.csv publishes a cost or walltime of 0 that their trial folders do not support.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findPackets, packetProblemsUnder, parseResultsCsv } from "../lib/results/packet.ts";
import { parsePrices } from "../lib/results/cost.ts";
import { findTrials, readTrial } from "../lib/results/trials.ts";
import { tempDir, writeTrial } from "./support/trial_dirs.ts";

const s = suite("packet");
const PRICES = await parsePrices(
  readFileSync(join(import.meta.dirname!, "..", "data", "prices.yaml"), "utf8"),
);
const EXTRA = join(import.meta.dirname!, "..", "..", "shared", "leaderboard-extra");
const made: string[] = [];
s.after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const HEAD = "benchmark,dataset_version,submission_id,team,agent,model,domain,pass_at_1,n_trials,n_tasks," +
  "mean_cost_usd,mean_walltime_s,submitted_at";

/** A packet of two cm trials (one passed) with the given results.csv rows (domain, pass, n, tasks, cost, wall). */
function packet(rows: string[]): string {
  const root = tempDir("fiable-packet-");
  made.push(root);
  const dir = join(root, "2026-12-01-test");
  writeTrial(join(dir, "trials"), { task: "cm_a", domain: "cm", reward: 1 }, 0);
  writeTrial(join(dir, "trials"), { task: "cm_b", domain: "cm", reward: 0 }, 1);
  const lines = rows.map((r) =>
    `chi-bench,v1,test,T,claude-code,anthropic/claude-sonnet-5,${r},2026-12-01T00:00:00Z`
  );
  writeFileSync(join(dir, "results.csv"), [HEAD, ...lines].join("\n") + "\n");
  return root;
}

function problems(root: string): string[] {
  const trials = findTrials([root]).map(readTrial);
  return packetProblemsUnder([root], trials, PRICES).map((p) => p.message);
}

const CASES: [string, string[], RegExp[]][] = [
  ["a packet that agrees with its trial folders", ["overall,0.5,2,2,1.2,100.0", "cm,0.5,2,2,1.2,100.0"], []],
  ["n_trials differs from the trial folders", ["overall,0.5,3,2,1.2,100.0"], [
    /publishes n_trials 3 for overall, but the packet has 2 trial folders/,
  ]],
  ["pass@1 the folders do not give", ["cm,0.4,2,2,1.2,100.0"], [
    /publishes pass_at_1 0\.4 for cm, but the trial folders give 0\.5 \(1 of 2 scored trials passed\)/,
  ]],
  ["cost 0 with tokens, priced model", ["overall,0.5,2,2,0.0,100.0", "cm,0.5,2,2,0.0,100.0"], [
    /publishes mean_cost_usd 0\.0 for overall, cm, but in overall its trials used 3,620,000 tokens, \$0\.9900 per trial under recipe B/,
  ]],
  ["walltime 0 with timestamps", ["overall,0.5,2,2,1.2,0.0"], [
    /publishes mean_walltime_s 0\.0 for overall, but in overall its trials' agent_execution spans average 100\.0 s/,
  ]],
];

for (const [name, rows, want] of CASES) {
  s(name, () => {
    const got = problems(packet(rows));
    assert.is(got.length, want.length, got.join("\n"));
    want.forEach((re, i) => assert.match(got[i], re));
    assert.ok(got.every((m) => m.includes("results.csv")));
  });
}

s("an unpriced model's cost of 0 is unknown, not 0", () => {
  const root = tempDir("fiable-packet-");
  made.push(root);
  const dir = join(root, "p");
  mkdirSync(dir);
  writeTrial(join(dir, "trials"), { task: "cm_a", domain: "cm", model: "acme/mystery-1" });
  writeFileSync(
    join(dir, "results.csv"),
    `${HEAD}\nchi-bench,v1,p,T,x,acme/mystery-1,overall,1.0,1,1,0.0,1.0,z\n`,
  );
  assert.match(
    problems(root)[0],
    /acme\/mystery-1 has no price in the prices file, so their cost is unknown, not 0/,
  );
});

s("a truncated result.json in a real packet: counted as a failure, and the cross-check says so", () => {
  const src = join(import.meta.dirname!, "..", "..", "shared", "leaderboard", "2026-07-24-gpt-5-6-sol-codex");
  if (!existsSync(join(src, "results.csv"))) return console.warn(`skipped: ${src} absent`);
  const root = tempDir("fiable-packet-");
  made.push(root);
  const dir = join(root, "2026-07-24-gpt-5-6-sol-codex");
  // Only what the cross-check reads: results.csv and each trial's result.json.
  cpSync(src, dir, { recursive: true, filter: (p) => !/trajectory|\/agent$|\/verifier$/.test(p) });
  const trials = findTrials([root]).map(readTrial);
  assert.equal(packetProblemsUnder([root], trials, PRICES), [], "the copy agrees with its results.csv");
  const breaks = (passed: boolean) => {
    const t = trials.find((x) => x.domain === "pa_provider" && x.passed === passed)!;
    const path = join(t.ref.dir, "result.json");
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.slice(0, text.length / 2));
    const got = problems(root).filter((m) => m.includes("pass_at_1"));
    writeFileSync(path, text);
    return { got, path };
  };
  // A failed trial's result.json cut short: the readable folders disagree, the unreadable one explains it.
  const failed = breaks(false);
  assert.is(failed.got.length, 2, failed.got.join("\n"));
  for (const m of failed.got) {
    assert.match(
      m,
      /^Cannot check \S+results\.csv's pass_at_1 \S+ for (pa_provider|overall): 1 of its trial folders cannot be read/,
    );
    assert.ok(m.includes(failed.path));
    assert.match(
      m,
      /counting the unreadable ones as failures gives \S+, the published figure\. Fix or remove/,
    );
    assert.not.match(m, /Cannot trust/);
  }
  // A passing one: counted as a failure it no longer gives the published figure, and the message says that too.
  const passed = breaks(true);
  assert.ok(passed.got.every((m) => !m.includes("the published figure") && m.startsWith("Cannot check")));
});

s("parseResultsCsv reads quoted cells; findPackets finds packets below a root", () => {
  const rows = parseResultsCsv(`${HEAD}\nchi-bench,v1,"a, b",T,x,m,cm,0.2,25,25,,0.0,z\n`);
  assert.equal(rows, [{
    domain: "cm",
    agent: "x",
    model: "m",
    pass_at_1: 0.2,
    n_trials: 25,
    n_tasks: 25,
    mean_cost_usd: null,
    mean_walltime_s: 0,
  }]);
  const root = packet(["overall,0.5,2,2,1.2,100.0"]);
  assert.equal(findPackets([root]), [join(root, "2026-12-01-test")]);
});

// leaderboard-extra NOTICE.md: some packets publish a cost or walltime of 0 their trial folders do not support.
const EXTRA_FLAGS: [string, string[]][] = [
  ["2026-06-02-erius", ["mean_cost_usd", "mean_walltime_s"]],
  ["2026-06-05-erius", ["mean_cost_usd", "mean_walltime_s"]],
  ["2026-06-09-pa-codex-agent-gpt-5-5", ["mean_cost_usd", "mean_walltime_s"]],
  ["2026-07-06-cuilinke-hermes-medguard", ["mean_walltime_s"]],
  ["2026-07-24-gpt-5-6-terra-codex", []],
  ["2026-07-24-inkling-256k-openai-agents", []],
];

for (const [name, columns] of EXTRA_FLAGS) {
  s(`leaderboard-extra ${name}: flags ${columns.join(", ") || "nothing"}`, () => {
    const dir = join(EXTRA, name);
    if (!existsSync(join(dir, "results.csv"))) {
      console.warn(`skipped: ${dir} is absent (needs ../shared/leaderboard-extra beside the repo)`);
      return;
    }
    const got = problems(dir).map((m) => /publishes (\w+)/.exec(m)?.[1]);
    assert.equal(got, columns);
  });
}

s.run();
