/** Judge figures from per-trial replay results: hand-built trials with known answers, and packet grouping. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { formatJudgeReport, judgeReport, judgeReportByPacket } from "../lib/results/judge_figures.ts";
import type { ArmResult, FiredCall, TrialReplay } from "../lib/trajectories/replay.ts";

const s = suite("judge figures");

const FINALIZE: FiredCall = {
  step: 9,
  at: 9,
  id: "t9",
  tool: "auth.finalize_provider_determination",
  decision: "deny",
};
const BUNDLE: FiredCall = {
  step: 7,
  at: 7,
  id: "t7",
  tool: "docs.create_submission_bundle",
  decision: "deny",
};
const MD: FiredCall = { step: 4, at: 4, id: "t4", tool: "review.submit_md_case_decision", decision: "allow" };

function arm(extra: Partial<ArmResult> = {}): ArmResult {
  return { rules: {}, closure: [], blocked: false, firstBlock: null, ledger: null, votes: {}, ...extra };
}

function trial(
  name: string,
  passed: boolean,
  failed: string[],
  arms: TrialReplay["arms"],
  expects?: TrialReplay["expects"],
): TrialReplay {
  return {
    ...(expects ? { expects } : {}),
    dir: `/x/${name.split("/")[0]}/trials/pa/${name.split("/")[1]}`,
    name: name.split("/")[1],
    domain: "pa_provider",
    harness: "claude-code",
    version: "1.2",
    passed,
    failedChecks: failed,
    toolCalls: { all: 1, mcp: 1 },
    unresolved: [],
    arms,
  };
}

const SC_CHECKS = ["provider_pre_submission.final_action", "new_referral.case_status"];
const TRIALS: TrialReplay[] = [
  // Only the judge blocks, and it explains every failed check: a new rescue for the critic arm.
  trial("pkt-a/hold_submitted", false, ["provider_pre_submission.final_action"], {
    checklist: arm(),
    critic: arm({
      blocked: true,
      rules: { "CRITIC-01": { checks: SC_CHECKS, calls: [FINALIZE] } },
      votes: { "self-consistency": [FINALIZE] },
    }),
  }),
  // The same judge after the bundle that doomed packet_absent (call 5): too late, no rescue.
  {
    ...trial("pkt-a/bundled_first", false, [
      "provider_pre_submission.final_action",
      "provider_pre_submission.packet_absent",
    ], {
      checklist: arm(),
      critic: arm({
        blocked: true,
        rules: {
          "CRITIC-01": { checks: [...SC_CHECKS, "provider_pre_submission.packet_absent"], calls: [FINALIZE] },
        },
        votes: { "self-consistency": [FINALIZE] },
      }),
    }),
    doom: {
      "provider_pre_submission.packet_absent": { at: 5, step: 5, tool: "docs.create_submission_bundle" },
    },
  },
  // A passing trial the shadow judge objected in: recorded, never blocked.
  trial("pkt-b/p2p_right", true, [], { checklist: arm(), critic: arm({ votes: { "p2p-contract": [MD] } }) }),
  // The shadow judge in a failed trial the checklist already blocks (UM-09).
  trial("pkt-b/p2p_wrong", false, ["md.signed_off", "p2p.result_recorded"], {
    checklist: arm({ blocked: true, rules: { "UM-09": { checks: ["p2p.result_recorded"], calls: [MD] } } }),
    critic: arm({
      blocked: true,
      rules: { "UM-09": { checks: ["p2p.result_recorded"], calls: [MD] } },
      votes: { "p2p-contract": [MD] },
    }),
  }),
];

const ASKED: TrialReplay[] = [
  // A passing submission: the checkpoint asks once at its bundle (CRITIC-01's vote there is a defect).
  trial("pkt-a/submit_right", true, [], {
    checklist: arm(),
    critic: arm({
      blocked: true,
      rules: { "CHECKPOINT-01": { checks: [], calls: [BUNDLE] } },
      votes: { "disposition-checkpoint": [BUNDLE], "self-consistency": [BUNDLE] },
    }),
  }, "submit"),
  // The checkpoint and CRITIC-01 on one bundle call: one extra call, not two.
  trial("pkt-a/hold_bundled", false, ["provider_pre_submission.packet_absent"], {
    checklist: arm(),
    critic: arm({
      blocked: true,
      rules: {
        "CHECKPOINT-01": { checks: [], calls: [BUNDLE] },
        "CRITIC-01": { checks: ["provider_pre_submission.packet_absent"], calls: [BUNDLE] },
      },
      votes: { "disposition-checkpoint": [BUNDLE], "self-consistency": [BUNDLE] },
    }),
  }, "hold"),
];

s(
  "a fire where a submission was expected is named; a checkpoint is a cost: extra calls, trials touched",
  () => {
    const r = judgeReport([...TRIALS, ...ASKED], (t) => t.dir.split("/")[2]);
    assert.equal([r.judges[0].fires_submit_expected, r.judges[0].submit_expected], [1, [
      "pkt-a/submit_right",
    ]]);
    assert.equal(r.judges.map((j) => j.id), ["CRITIC-01", "CRITIC-02"]);
    assert.equal(r.checkpoints, [{
      id: "CHECKPOINT-01",
      name: "disposition-checkpoint",
      provider_trials: 2,
      trials_asked: 2,
      extra_calls: 1,
      submit_expected_passed: 1,
      submit_expected_passed_asked: 1,
      hold_expected_failed_asked: 1,
    }]);
    const text = formatJudgeReport(r, judgeReportByPacket([...TRIALS, ...ASKED], (t) => t.dir.split("/")[2]));
    assert.match(text, "trials expecting a submission a judge objected in:\n  CRITIC-01: pkt-a/submit_right");
    assert.match(
      text,
      "CHECKPOINT-01 disposition-checkpoint (critic arm, a cost, never a rescue): 1 extra calls",
    );
    assert.match(text, "| pkt-a | 2 | 1 (0.50) | 2 | 1/1 (100%) | 1 |");
  },
);

s(
  "per judge: fires in failed, with a protected check failed (in time, too late), in passed, what it adds alone",
  () => {
    const r = judgeReport(TRIALS, (t) => t.dir.split("/")[2]);
    const [sc, p2p] = r.judges;
    assert.equal(
      [sc.id, sc.fires_failed, sc.fires_failed_protected, sc.in_time, sc.too_late, sc.fires_passed],
      ["CRITIC-01", 2, 2, 1, 1, 0],
    );
    // Only the block before the doom is a rescue.
    assert.equal([sc.only_it_blocks, sc.rescue_added], [2, { upper: 1, strict: 1 }]);
    assert.equal(
      [
        p2p.id,
        p2p.fires_failed,
        p2p.fires_failed_protected,
        p2p.fires_passed,
        p2p.only_it_blocks,
        p2p.passing,
      ],
      ["CRITIC-02", 1, 1, 1, 0, ["pkt-b/p2p_right"]],
    );
    // UM-09 alone leaves md.signed_off unexplained; the p2p judge protects it, so enforcing it would add a rescue.
    assert.equal(p2p.rescue_added, { upper: 1, strict: 1 });
  },
);

s("critic − checklist: the trials only the critic arm blocks, and its rescue increment", () => {
  assert.equal(judgeReport(TRIALS).delta, {
    trials_blocked: { failed: 2, passed: 0 },
    rescue_estimate: { upper: 1, strict: 1 },
  });
});

s("no checklist arm: fires are still counted, increments are not", () => {
  const only = TRIALS.map((t) => ({ ...t, arms: { critic: t.arms.critic } }));
  const r = judgeReport(only);
  assert.is(r.delta, null);
  assert.is(r.judges[0].fires_failed, 2);
  assert.equal(r.judges[0].rescue_added, { upper: 0, strict: 0 });
});

s("per packet: grouped by the packet folder, in name order", () => {
  const by = judgeReportByPacket(TRIALS, (t) => t.dir.split("/")[2]);
  assert.equal(Object.keys(by), ["pkt-a", "pkt-b"]);
  assert.equal([by["pkt-a"].trials, by["pkt-b"].passed, by["pkt-b"].judges[1].fires_passed], [2, 1, 1]);
  const text = formatJudgeReport(judgeReport(TRIALS), by);
  assert.match(text, "| CRITIC-01 self-consistency | enforced | 2 | 2 | 1 | 1 | 0 | 0 | 2 | +1 / +1 |");
  assert.match(text, "| CRITIC-02 p2p-contract | shadow | 1 | 1 | 1 | 0 | 1 | 0 | 0 | +1 / +1 |");
  assert.match(
    text,
    "critic − checklist: trials blocked +2 failed, 0 passed; rescue estimate (in time) upper +1, strict +1",
  );
  assert.match(text, "| pkt-a | 2 (0) | 2/1/1/0/0 | 0/0/0/0/0 | +2 / 0 | +1 / +1 |");
  assert.match(text, "| pkt-b | 2 (1) | 0/0/0/0/0 | 1/1/0/1/0 | 0 / 0 | 0 / 0 |");
});

s.run();
