/**
 * The guard's facts (lib/results/guard_facts.ts, guard_summary.ts): what a packet's result.json carries in
 * place of the ledgers. Each failure mode run integrity catches from a ledger is caught the same from the
 * facts alone; the facts are bounded, secret-free and free of case and session ids; a reader refuses facts of
 * another version, malformed ones, and facts written for another trajectory.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FACTS_KEY, FACTS_MAX_BYTES, factsIn, GuardFacts } from "../lib/results/guard_facts.ts";
import { loadFactsReader } from "../lib/results/guard_facts_reader.ts";
import { ledgerDigest, ruleSetIds, summariseGuard } from "../lib/results/guard_summary.ts";
import { endingOf, type TrialIntegrity } from "../lib/results/integrity.ts";
import { readFacts } from "../lib/results/trial_facts.ts";
import { findTrials, trialRef } from "../lib/results/trials.ts";
import { provenLine, verifyTrees } from "../lib/results/verify.ts";
import { writeSamples } from "../lib/samples/trials.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import { unknownArmNote } from "../lib/guard/engine/record.ts";
import { type GuardedTrialOptions, tempDir, writeGuardedTrial } from "./support/trial_dirs.ts";

await loadFactsReader();
const s = suite("guard_facts");
const made: string[] = [];
s.after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function fresh(): string {
  const dir = tempDir("fiable-facts-");
  made.push(dir);
  return dir;
}

const BUILD = { commit: "0123456789abcdef0123456789abcdef01234567", bundle_sha256: "ab".repeat(32) };

/** The facts for a trial dir, as `guard.ts facts` makes them (build and ledger digest given). */
function factsOf(dir: string, arm?: string): GuardFacts {
  return summariseGuard(readFacts(trialRef(dir)), {
    build: BUILD,
    ledgerDigest: ledgerDigest([{ name: "s.jsonl", bytes: new Uint8Array([1]) }]),
    arm: arm as GuardFacts["arm"] | undefined,
  });
}

/**
 * What `cb submission prepare` keeps of a trial: result.json (with the harness's facts in its metadata),
 * the verifier files and the trajectory; config.json, the ledgers and the hook settings stay behind.
 */
function packetize(dir: string, facts: GuardFacts, opts: { config?: boolean } = {}): void {
  const result = JSON.parse(readFileSync(join(dir, "result.json"), "utf8"));
  result.agent_result = { ...result.agent_result, metadata: { [FACTS_KEY]: facts } };
  if (opts.config) result.config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
  writeFileSync(join(dir, "result.json"), JSON.stringify(result));
  for (const gone of ["config.json", "agent/fiable", "agent/sessions"]) {
    rmSync(join(dir, gone), { recursive: true, force: true });
  }
}

const SIX = [
  { tool: "review.get_md_review_data" },
  { tool: "review.save_md_review" },
  { tool: "review.submit_md_case_decision", denied: true },
  { tool: "review.submit_md_case_decision" },
  { tool: "determination.finalize" },
  { tool: "payer_letter_center.deliver" },
];

const SHADOW_START = {
  v: 1,
  t: "2026-12-01T09:00:00.000Z",
  session: "3f1c2d4e-0000-4000-a000-000000000001",
  event: "session-start",
  arm: "shadow",
  decision: "allow",
  note: unknownArmNote("checklst"),
};

/** The fields of a GUARD-01 refusal. */
const GUARD01 = {
  event: "pre",
  decision: "deny",
  tool: "Bash",
  rules: [{ id: "GUARD-01", checks: [], message: "Cannot run Bash" }],
};

// Each case: the verdict from the ledger, and the same verdict, coverage and phrase from the facts alone.
const PARITY: [string, Partial<GuardedTrialOptions> & { arm: string }, string, RegExp | null][] = [
  ["full coverage (http)", { arm: "checklist" }, "pass", null],
  ["full coverage (command hooks, critic)", { arm: "critic", hooks: "command" }, "pass", null],
  ["a guard that died after call 3", { arm: "checklist", answered: 3 }, "fail", /guard coverage is 50\.0%/],
  ["hooks that matched nothing", { arm: "plan", server: "chi-bench-payer", answered: 0 }, "fail", /coverage/],
  ["a stock arm with hooks", { arm: "stock", hooks: "http", ledger: true }, "fail", /as stock: it has hooks/],
  ["a clean stock arm", { arm: "stock" }, "pass", null],
  ["a guarded arm without a ledger", { arm: "checklist", ledger: false }, "fail", /count no ledger record/],
  ["a plan that never reached the model", { arm: "plan", plan: false }, "fail", /role plan never reached/],
  ["an unknown FIABLE_CC_ARM (ran as shadow)", { arm: "checklist", extra: [SHADOW_START] }, "fail", /shadow/],
  [
    "a refused call owes no record",
    {
      arm: "checklist",
      calls: [...SIX, { tool: "determination.finalize", refused: true }],
    },
    "pass",
    null,
  ],
  ["a trajectory without call ids", { arm: "checklist", trajectory: "no-ids" }, "pass", null],
  ["a chained ledger as the guard wrote it", { arm: "checklist", chained: true }, "pass", null],
  [
    "a GUARD-01 refusal (an attempt, not tampering)",
    {
      arm: "checklist",
      chained: true,
      extra: [{ ...SHADOW_START, arm: "checklist", note: undefined, ...GUARD01 }],
    },
    "pass",
    null,
  ],
  [
    "a chained ledger with a forged line (tampered)",
    {
      arm: "checklist",
      chained: true,
      extra: ['{"v":2,"t":"","session":"x","event":"post","decision":"record"}'],
    },
    "fail",
    /tampered with/,
  ],
];

const KEYS = [
  "kind",
  "arm",
  "verdict",
  "coverage",
  "plan_injected",
  "fail_open_errors",
  "stop_blocks",
  "tamper",
] as const;
const pick = (t: TrialIntegrity) => KEYS.map((k) => t[k]);

for (const [name, options, verdict, says] of PARITY) {
  s(`${name}: ${verdict} from the ledger and from result.json's facts alone`, () => {
    const root = fresh();
    const dir = writeGuardedTrial(root, { calls: SIX, ...options });
    const ledger = verifyTrees([root]).arms[0].trials[0];
    assert.is(ledger.verdict, verdict, ledger.problems.join("\n"));
    packetize(dir, factsOf(dir));
    const report = verifyTrees([root]);
    const facts = report.arms[0].trials[0];
    assert.equal(pick(facts), pick(ledger), facts.problems.join("\n"));
    assert.is(facts.source, "result.json");
    if (says) assert.match(facts.problems.join("\n"), says);
    else assert.equal(facts.problems, []);
  });
}

s("verify's summary says how many guarded trials proved the guard, and from where", () => {
  const root = fresh();
  const a = writeGuardedTrial(root, { arm: "critic", calls: SIX, id: "A" });
  writeGuardedTrial(root, { arm: "critic", calls: SIX, id: "B" });
  writeGuardedTrial(root, { arm: "critic", calls: SIX, id: "C", answered: 2 });
  assert.is(
    provenLine(verifyTrees([root]).arms.map((x) => x.integrity)),
    "guarded: 2 of 3 trials proven (from ledgers)",
  );
  packetize(a, factsOf(a));
  assert.is(
    provenLine(verifyTrees([root]).arms.map((x) => x.integrity)),
    "guarded: 2 of 3 trials proven (1 from ledgers, 1 from result.json)",
  );
  assert.is(provenLine([]), null);
});

s("the arm comes from the facts when result.json has no config, and must agree with one that has", () => {
  const root = fresh();
  const dir = writeGuardedTrial(root, { arm: "critic", calls: SIX });
  const facts = factsOf(dir);
  packetize(dir, facts);
  const [t] = verifyTrees([root]).arms[0].trials;
  assert.equal([t.arm, t.arm_source, t.verdict], ["critic", "result.json fiable_guard", "pass"]);
  const other = fresh();
  const dir2 = writeGuardedTrial(other, { arm: "critic", calls: SIX });
  packetize(dir2, { ...facts, arm: "checklist" }, { config: true });
  const [u] = verifyTrees([other]).arms[0].trials;
  assert.is(u.verdict, "fail");
  assert.match(u.problems.join("\n"), /result.json fiable_guard says checklist/);
});

s("facts written for another trajectory are refused", () => {
  const root = fresh();
  const dir = writeGuardedTrial(root, { arm: "checklist", calls: SIX });
  const facts = factsOf(dir);
  const shorter = fresh();
  const dir2 = writeGuardedTrial(shorter, { arm: "checklist", calls: SIX.slice(0, 4) });
  packetize(dir2, facts);
  const [t] = verifyTrees([shorter]).arms[0].trials;
  assert.is(t.verdict, "fail");
  assert.match(
    t.problems.join("\n"),
    /they count 6 χ-World tool calls, and .* has 4\. They were written for another run/,
  );
  const renamed = { ...facts, coverage: { ...facts.coverage!, calls_digest: "0".repeat(64) } };
  const same = fresh();
  const dir3 = writeGuardedTrial(same, { arm: "checklist", calls: SIX });
  packetize(dir3, renamed);
  assert.match(verifyTrees([same]).arms[0].trials[0].problems.join("\n"), /has 6 with other tool_use_ids/);
});

s("a reader refuses facts of another version or shape, and says why the harness wrote none", () => {
  const path = "trial/result.json";
  const wrap = (v: unknown) => ({ agent_result: { metadata: { [FACTS_KEY]: v } } });
  const root = fresh();
  const good = factsOf(writeGuardedTrial(root, { arm: "checklist", calls: SIX }));
  assert.equal(factsIn(wrap(good), path), { facts: good });
  assert.is(factsIn({ agent_result: { metadata: null } }, path), null);
  assert.is(factsIn({}, path), null);
  const v3 = factsIn(wrap({ ...good, v: 3 }), path);
  assert.match(
    v3 && "problem" in v3 ? v3.problem : "",
    /has format v3, and this fiable-agent reads v1 and v2/,
  );
  // Facts of format 1 (before issue 40) are still read: they know no tampering.
  const { tamper: _, ...v1 } = good;
  assert.equal(factsIn(wrap({ ...v1, v: 1 }), path), { facts: { ...v1, v: 1 } });
  const bad = factsIn(wrap({ ...good, coverage: { ...good.coverage, covered: -1 } }), path);
  assert.match(bad && "problem" in bad ? bad.problem : "", /→ at coverage\.covered/);
  const secret = factsIn(wrap({ ...good, blocks_by_rule: { "CASE-1A2B3C4D": 1 } }), path);
  assert.ok(secret && "problem" in secret, "a key that is not a rule id is refused");

  const dir = writeGuardedTrial(fresh(), { arm: "checklist", calls: SIX, ledger: false, hooks: null });
  const result = JSON.parse(readFileSync(join(dir, "result.json"), "utf8"));
  result.agent_result.metadata = { [`${FACTS_KEY}_error`]: "node is not on the PATH of the host" };
  writeFileSync(join(dir, "result.json"), JSON.stringify(result));
  const [t] = verifyTrees([dir]).arms[0].trials;
  assert.match(t.problems.join("\n"), /could not summarise it \(node is not on the PATH of the host\)/);
});

s("the facts are bounded, and hold no case id, session id, argument or secret from the run", () => {
  const dir = fresh();
  writeSamples(dir);
  for (const ref of findTrials([dir])) {
    const facts = factsOf(ref.dir);
    const text = JSON.stringify(facts);
    assert.ok(text.length <= FACTS_MAX_BYTES, `${text.length} bytes`);
    const records: LedgerRecord[] = readFacts(ref).ledgers.flatMap((l) => l.records);
    const ids = new Set(
      records.flatMap((r) => [...(r.ids ?? []), r.case ?? "", r.session, r.tool_use_id ?? ""]),
    );
    for (const id of ids) {
      if (id.length >= 6) assert.not.ok(text.includes(id), `${id} in ${ref.name}'s facts`);
    }
    assert.ok(Object.keys(facts.blocks_by_rule).every((k) => ruleSetIds().includes(k)));
  }
  // The worst case: every rule blocking, many sessions, many API-error kinds.
  const root = fresh();
  const trial = writeGuardedTrial(root, { arm: "critic", calls: SIX });
  const worst = readFacts(trialRef(trial));
  const rec = (i: number, fields: Partial<LedgerRecord>): LedgerRecord => ({
    v: 1,
    t: new Date(Date.UTC(2026, 11, 1, 10, 0, i)).toISOString(),
    session: `s-${i}`,
    arm: "critic",
    event: "pre",
    decision: "deny",
    ...fields,
  });
  const all = ruleSetIds().map((id) => ({ id, checks: [], message: "x".repeat(500) }));
  worst.ledgers[0].records.push(
    ...Array.from({ length: 500 }, (_, i) => rec(i, { rules: all, tool: "determination.finalize" })),
    ...Array.from(
      { length: 200 },
      (_, i) => rec(i, { event: "stop-fail", decision: "record", error: `kind_${i}` }),
    ),
  );
  const facts = summariseGuard(worst, { build: BUILD, ledgerDigest: null });
  assert.ok(JSON.stringify(facts).length <= FACTS_MAX_BYTES, `${JSON.stringify(facts).length} bytes`);
});

s("the ending: the last of the agent's stop and an API error (StopFailure); a subagent stop is none", () => {
  const r = (t: string, event: LedgerRecord["event"], note?: string): LedgerRecord => ({
    v: 1,
    t,
    session: "s",
    arm: "checklist",
    event,
    decision: "record",
    ...(note ? { note } : {}),
  });
  assert.is(endingOf([]), "none");
  assert.is(endingOf([r("2026-01-01T00:00:01Z", "stop")]), "stop");
  assert.is(
    endingOf([r("2026-01-01T00:00:01Z", "stop"), r("2026-01-01T00:00:02Z", "stop-fail")]),
    "api_error",
  );
  assert.is(endingOf([r("2026-01-01T00:00:02Z", "stop-fail"), r("2026-01-01T00:00:03Z", "stop")]), "stop");
  assert.is(endingOf([r("2026-01-01T00:00:02Z", "stop", "subagent stop")]), "none");
});

s.run();
