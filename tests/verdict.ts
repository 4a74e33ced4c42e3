/** Replay's verdicts: a block helps only at or before the doom of the check it protects; one row per case. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  type ArmResult,
  type ArmVerdict,
  armVerdict,
  type DoomPoint,
  type FiredCall,
  summarize,
  summarizeChecks,
  type TrialReplay,
} from "../lib/trajectories/verdict.ts";

const s = suite("verdict");

const PACKET = "provider_pre_submission.packet_absent";
const ACTION = "provider_pre_submission.final_action";
const LETTERS = "outcome.letter_types";
const JUDGE = "judge.md_review:final_decision";

const at = (n: number): FiredCall => ({ step: n, at: n, id: `t${n}`, tool: "x.y", decision: "deny" });
const doomed = (n: number): DoomPoint => ({ at: n, step: n, tool: "docs.create_submission_bundle" });

function trial(
  failed: string[],
  rules: ArmResult["rules"],
  opts: { doom?: Record<string, DoomPoint>; closure?: string[]; observable?: boolean } = {},
): TrialReplay {
  return {
    dir: "/p/trials/pa/t",
    name: "t",
    domain: "pa_provider",
    harness: "claude-code",
    version: "1.2",
    passed: failed.length === 0,
    failedChecks: failed,
    ...(opts.doom ? { doom: opts.doom } : {}),
    toolCalls: { all: 1, mcp: 1 },
    unresolved: [],
    observable: opts.observable ?? true,
    arms: {
      checklist: {
        rules,
        closure: opts.closure ?? [],
        blocked: Object.keys(rules).length > 0 || (opts.closure ?? []).length > 0,
        firstBlock: null,
        ledger: null,
      },
    },
  };
}

type Row = [string, TrialReplay, Partial<ArmVerdict> | null];
const ROWS: Row[] = [
  [
    "a block before the doom: in time, rescued",
    trial([PACKET], { "PP-02": { checks: [PACKET], calls: [at(3)] } }, { doom: { [PACKET]: doomed(5) } }),
    {
      rules: { "PP-02": { protected: true, timing: "in time" } },
      checks: { [PACKET]: "in time" },
      rescue: "strict",
      rescueIgnoringTime: "strict",
    },
  ],
  [
    "a block on the dooming call itself: in time",
    trial([PACKET], { "PP-02": { checks: [PACKET], calls: [at(5)] } }, { doom: { [PACKET]: doomed(5) } }),
    { rules: { "PP-02": { protected: true, timing: "in time" } }, rescue: "strict" },
  ],
  [
    "a block after the doom: too late, no rescue (it counted before)",
    trial([PACKET], { "CRITIC-01": { checks: [PACKET], calls: [at(7)] } }, { doom: { [PACKET]: doomed(5) } }),
    {
      rules: { "CRITIC-01": { protected: true, timing: "too late" } },
      checks: { [PACKET]: "too late" },
      rescue: null,
      rescueIgnoringTime: "strict",
    },
  ],
  [
    "in time for one protected check, after the doom of another: too late",
    trial([PACKET, ACTION], { "CRITIC-01": { checks: [PACKET, ACTION], calls: [at(7)] } }, {
      doom: { [PACKET]: doomed(5), [ACTION]: doomed(9) },
    }),
    {
      rules: { "CRITIC-01": { protected: true, timing: "too late" } },
      checks: { [PACKET]: "too late", [ACTION]: "in time" },
      rescue: null,
    },
  ],
  [
    "a second fire before the doom makes it in time",
    trial([PACKET], { "PP-02": { checks: [PACKET], calls: [at(4), at(8)] } }, {
      doom: { [PACKET]: doomed(5) },
    }),
    { rules: { "PP-02": { protected: true, timing: "in time" } }, rescue: "strict" },
  ],
  [
    "the gate at the stop, the check doomed only there: in time",
    trial([LETTERS], {}, { closure: ["UM-LETTER: no letter"] }),
    { gate: { protected: true, timing: "in time" }, rescue: "strict" },
  ],
  [
    "the gate at the stop, the check doomed by a call: too late",
    trial([LETTERS], {}, { closure: ["UM-LETTER: no letter"], doom: { [LETTERS]: doomed(4) } }),
    { gate: { protected: true, timing: "too late" }, rescue: null, rescueIgnoringTime: "strict" },
  ],
  [
    "a fire that protects no failed check: neither",
    trial([LETTERS], { "PP-05": { checks: ["new_referral.procedure_code"], calls: [at(1)] } }),
    { rules: { "PP-05": { protected: false, timing: null } }, checks: { [LETTERS]: null }, rescue: null },
  ],
  [
    "a failed judge check too: upper only",
    trial([PACKET, JUDGE], { "PP-02": { checks: [PACKET], calls: [at(1)] } }, {
      doom: { [PACKET]: doomed(5) },
    }),
    { checks: { [PACKET]: "in time", [JUDGE]: null }, rescue: "upper", rescueIgnoringTime: "upper" },
  ],
  [
    "one failed check no block protects: no rescue",
    trial([PACKET, ACTION], { "PP-02": { checks: [PACKET], calls: [at(1)] } }),
    { checks: { [PACKET]: "in time", [ACTION]: null }, rescue: null, rescueIgnoringTime: null },
  ],
  [
    "a passing trial: fires count, nothing is protected",
    trial([], { "PP-01": { checks: [ACTION], calls: [at(1)] } }),
    { passed: true, rules: { "PP-01": { protected: false, timing: null } }, checks: {}, rescue: null },
  ],
  [
    "not observable: no verdict",
    trial([PACKET], { "PP-02": { checks: [PACKET], calls: [at(1)] } }, { observable: false }),
    null,
  ],
];

for (const [name, t, expected] of ROWS) {
  s(name, () => {
    const v = armVerdict(t, "checklist");
    if (expected === null) return assert.is(v, null);
    assert.ok(v);
    for (const [key, value] of Object.entries(expected)) {
      assert.equal(v[key as keyof ArmVerdict], value, key);
    }
  });
}

s("summarize counts the verdicts: in time + too late = protected fires; both rescue figures", () => {
  const sum = summarize(ROWS.map(([, t]) => t), 1, "checklist");
  assert.equal(sum.by_rule["CRITIC-01"], {
    fires_failed: 2,
    fires_failed_protected: 2,
    in_time: 0,
    too_late: 2,
    fires_passed: 0,
  });
  assert.equal(sum.closure_gate, {
    fires_failed: 2,
    fires_failed_protected: 2,
    in_time: 1,
    too_late: 1,
    fires_passed: 0,
  });
  assert.equal([sum.trials, sum.not_observable, sum.passed], [13, 1, 1]);
  assert.equal(sum.rescue_estimate, { upper: 5, strict: 4 });
  assert.equal(sum.rescue_ignoring_time, { upper: 8, strict: 7 });
});

s("summarizeChecks counts each failed check's failures and the blocks that came in time for them", () => {
  const counted = ROWS.map(([, t]) => ({
    passed: t.passed,
    observable: t.observable !== false,
    verdict: armVerdict(t, "checklist"),
  }));
  const by = summarizeChecks(counted);
  assert.equal(Object.keys(by), [JUDGE, LETTERS, PACKET, ACTION].sort());
  assert.equal(by[PACKET], { failed: 7, in_time: 5, too_late: 2 });
  assert.equal(by[ACTION], { failed: 2, in_time: 1, too_late: 0 });
  assert.equal(by[LETTERS], { failed: 3, in_time: 1, too_late: 1 });
  assert.equal(by[JUDGE], { failed: 1, in_time: 0, too_late: 0 });
});

s.run();
