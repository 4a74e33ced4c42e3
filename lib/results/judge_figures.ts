/**
 * Replay figures for the critic's decision-point judges, from the per-trial replay results: per judge, how
 * often it objects in failed and in passing trials and in trials whose task expected a submission, what it
 * alone adds to the checklist arm (trials blocked, rescue estimate), and the critic arm's increment over the
 * checklist arm, overall and per packet (a judge tuned to one agent's wording shows it there). Checkpoints
 * (`meta.checkpoint`) find no fact, so they get a cost instead: the calls they add and the trials they touch.
 * Packets are replay's own (`packetOf`, set on each trial).
 */
import type { Arm } from "../guard/engine/record.ts";
import { packetName, packetOf } from "../trajectories/replay.ts";
import {
  countFire,
  type FireCounts,
  fireCounts,
  fireIn,
  summarize,
  type TrialReplay,
} from "../trajectories/verdict.ts";
import { JUDGES } from "../guard/engine/judges/mod.ts";

/** One judge's figures (counts are trials), its fires counted as replay counts a rule's (verdict.ts). */
export interface JudgeRow extends FireCounts {
  id: string;
  name: string;
  enforced: boolean;
  /** The passing trials it objected in, by name: each one is examined in the judge's header. */
  passing: string[];
  /** Provider trials whose task expected a submission (`TrialReplay.expects`) that it objected in: a defect. */
  fires_submit_expected: number;
  submit_expected: string[];
  /** Failed trials it objects in where the checklist arm blocked no call and no stop. */
  only_it_blocks: number;
  /** What it alone adds to the checklist arm's (time-aware) rescue estimate. */
  rescue_added: { upper: number; strict: number };
}

/** The critic arm minus the checklist arm. */
export interface ArmDelta {
  trials_blocked: { failed: number; passed: number };
  rescue_estimate: { upper: number; strict: number };
}

/** What a checkpoint costs in the critic arm (counts are trials unless named calls). */
export interface CheckpointRow {
  id: string;
  name: string;
  /** Observable provider trials (its seat's). */
  provider_trials: number;
  /** Trials in which it blocks a call. */
  trials_asked: number;
  /** Calls it blocks that nothing else in the critic arm blocked: each is one extra call for the agent. */
  extra_calls: number;
  /** Passing trials whose task expected a submission, and how many of them it blocks a call in. */
  submit_expected_passed: number;
  submit_expected_passed_asked: number;
  /** Failed trials whose task expected a hold that it asks in: where the question could matter. */
  hold_expected_failed_asked: number;
}

/** Judge figures over a set of trials. */
export interface JudgeReport {
  trials: number;
  passed: number;
  judges: JudgeRow[];
  /** The checkpoints' cost; empty when the critic arm was not replayed. */
  checkpoints: CheckpointRow[];
  /** Null unless both the checklist and the critic arm were replayed. */
  delta: ArmDelta | null;
}

/** The arm whose recorded votes are read: the critic arm when replayed (votes are recorded on every guarded arm). */
function voteArm(trials: TrialReplay[]): Arm | null {
  const arms = new Set(trials.flatMap((t) => Object.keys(t.arms) as Arm[]));
  for (const arm of ["critic", "checklist", "plan", "shadow"] as Arm[]) if (arms.has(arm)) return arm;
  return null;
}

/** The trial as if the checklist arm had also enforced one judge (its objections become blocks). */
function withJudge(t: TrialReplay, name: string, id: string, checks: string[], from: Arm): TrialReplay {
  const fired = t.arms[from]?.votes?.[name];
  const base = t.arms.checklist;
  if (!fired?.length || !base) return t;
  const rules = { ...base.rules, [id]: { checks, calls: fired } };
  return { ...t, arms: { ...t.arms, checklist: { ...base, rules, blocked: true } } };
}

/** The judge figures for replayed trials; `packet` names the packet in the list of passing trials. */
export function judgeReport(
  trials: TrialReplay[],
  packet: (t: TrialReplay) => string = trialPacket,
): JudgeReport {
  const from = voteArm(trials);
  const hasBoth = trials.some((t) => t.arms.checklist) && trials.some((t) => t.arms.critic);
  const checklist = hasBoth ? summarize(trials, 0, "checklist") : null;
  const judges = JUDGES.filter((j) => !j.meta.checkpoint).map((judge): JudgeRow => {
    const { id, name, protects, enforced } = judge.meta;
    const row: JudgeRow = {
      id,
      name,
      enforced,
      ...fireCounts(),
      passing: [],
      fires_submit_expected: 0,
      submit_expected: [],
      only_it_blocks: 0,
      rescue_added: { upper: 0, strict: 0 },
    };
    for (const t of trials) {
      const votes = from && t.observable !== false ? t.arms[from]?.votes?.[name] : undefined;
      if (!votes?.length) continue;
      if (t.expects === "submit") {
        row.fires_submit_expected++;
        row.submit_expected.push(`${packet(t)}/${t.name}`);
      }
      countFire(row, t.passed, fireIn(t, protects, votes.map((v) => v.at)));
      if (t.passed) row.passing.push(`${packet(t)}/${t.name}`);
      else if (t.arms.checklist && !t.arms.checklist.blocked) row.only_it_blocks++;
    }
    if (checklist && from) {
      const added = summarize(trials.map((t) => withJudge(t, name, id, protects, from)), 0, "checklist");
      row.rescue_added = {
        upper: added.rescue_estimate.upper - checklist.rescue_estimate.upper,
        strict: added.rescue_estimate.strict - checklist.rescue_estimate.strict,
      };
    }
    return row;
  });
  let delta: ArmDelta | null = null;
  if (checklist) {
    const critic = summarize(trials, 0, "critic");
    delta = {
      trials_blocked: {
        failed: critic.trials_blocked.failed - checklist.trials_blocked.failed,
        passed: critic.trials_blocked.passed - checklist.trials_blocked.passed,
      },
      rescue_estimate: {
        upper: critic.rescue_estimate.upper - checklist.rescue_estimate.upper,
        strict: critic.rescue_estimate.strict - checklist.rescue_estimate.strict,
      },
    };
  }
  const checkpoints = trials.some((t) => t.arms.critic)
    ? JUDGES.filter((j) => j.meta.checkpoint).map((j) => checkpointRow(trials, j.meta.id, j.meta.name))
    : [];
  return { trials: trials.length, passed: trials.filter((t) => t.passed).length, judges, checkpoints, delta };
}

/** A checkpoint's cost in the critic arm, over the observable trials of its seat (provider). */
function checkpointRow(trials: TrialReplay[], id: string, name: string): CheckpointRow {
  const row: CheckpointRow = {
    id,
    name,
    provider_trials: 0,
    trials_asked: 0,
    extra_calls: 0,
    submit_expected_passed: 0,
    submit_expected_passed_asked: 0,
    hold_expected_failed_asked: 0,
  };
  for (const t of trials) {
    const critic = t.arms.critic;
    if (!t.expects || !critic || t.observable === false) continue;
    row.provider_trials++;
    const asked = (critic.rules[id]?.calls ?? []).filter((c) => c.decision === "deny");
    const others = new Set(
      Object.entries(critic.rules).filter(([rule]) => rule !== id)
        .flatMap(([, r]) => r.calls.filter((c) => c.decision === "deny").map((c) => c.id)),
    );
    row.extra_calls += asked.filter((c) => !others.has(c.id)).length;
    if (asked.length) row.trials_asked++;
    if (t.expects === "submit" && t.passed) {
      row.submit_expected_passed++;
      if (asked.length) row.submit_expected_passed_asked++;
    }
    if (t.expects === "hold" && !t.passed && asked.length) row.hold_expected_failed_asked++;
  }
  return row;
}

/** A trial's packet name: the one replay set on it (`packetOf`), else found from its folder. */
function trialPacket(t: TrialReplay): string {
  return packetName(t.packet ?? packetOf(t));
}

/** Judge figures per packet, packets in name order. */
export function judgeReportByPacket(
  trials: TrialReplay[],
  packet: (t: TrialReplay) => string = trialPacket,
): Record<string, JudgeReport> {
  const groups = new Map<string, TrialReplay[]>();
  for (const t of trials) {
    const name = packet(t);
    groups.set(name, [...groups.get(name) ?? [], t]);
  }
  const sorted = [...groups].sort(([a], [b]) => a.localeCompare(b));
  return Object.fromEntries(sorted.map(([name, group]) => [name, judgeReport(group, packet)]));
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

/** The human block replay prints after the arm tables: judges overall, then per packet. */
export function formatJudgeReport(all: JudgeReport, byPacket: Record<string, JudgeReport>): string {
  const lines = [
    `critic judges over ${all.trials} trials (${all.passed} passed); counts are trials, "fires" = objects to a call`,
    "",
    "| judge | mode | fires in failed | … protected check failed | … in time | … too late | fires in passed | fires where a submission was expected | failed, only it blocks | rescue in time it adds (upper / strict) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const j of all.judges) {
    lines.push(
      `| ${j.id} ${j.name} | ${j.enforced ? "enforced" : "shadow"} | ${j.fires_failed} | ` +
        `${j.fires_failed_protected} | ${j.in_time} | ${j.too_late} | ${j.fires_passed} | ` +
        `${j.fires_submit_expected} | ${j.only_it_blocks} | ` +
        `${signed(j.rescue_added.upper)} / ${signed(j.rescue_added.strict)} |`,
    );
  }
  if (all.delta) {
    const d = all.delta;
    lines.push(
      "",
      `critic − checklist: trials blocked ${signed(d.trials_blocked.failed)} failed, ` +
        `${signed(d.trials_blocked.passed)} passed; rescue estimate (in time) upper ${
          signed(d.rescue_estimate.upper)
        }, ` +
        `strict ${signed(d.rescue_estimate.strict)}`,
    );
  }
  const passing = all.judges.flatMap((j) => j.passing.map((name) => `  ${j.id}: ${name}`));
  if (passing.length) lines.push("", "passing trials a judge objected in:", ...passing);
  const expected = all.judges.flatMap((j) => j.submit_expected.map((name) => `  ${j.id}: ${name}`));
  if (expected.length) lines.push("", "trials expecting a submission a judge objected in:", ...expected);
  const head = all.judges.map((j) => `${j.id} failed/in time/too late/passed/submit expected`).join(" | ");
  lines.push(
    "",
    `| packet | trials (passed) | ${head} | critic − checklist blocked (failed / passed) | rescue in time (upper / strict) |`,
    `|---|---:|${all.judges.map(() => "---:|").join("")}---:|---:|`,
  );
  for (const [packet, r] of Object.entries(byPacket)) {
    const cells = r.judges.map((j) =>
      `${j.fires_failed}/${j.in_time}/${j.too_late}/${j.fires_passed}/${j.fires_submit_expected}`
    );
    const d = r.delta;
    lines.push(
      `| ${packet} | ${r.trials} (${r.passed}) | ${cells.join(" | ")} | ` +
        (d
          ? `${signed(d.trials_blocked.failed)} / ${signed(d.trials_blocked.passed)} | ` +
            `${signed(d.rescue_estimate.upper)} / ${signed(d.rescue_estimate.strict)} |`
          : "— | — |"),
    );
  }
  for (const c of all.checkpoints) lines.push("", ...formatCheckpoint(c, byPacket));
  return lines.join("\n");
}

function share(n: number, of: number): string {
  return `${n}/${of}${of ? ` (${Math.round((100 * n) / of)}%)` : ""}`;
}

/** One checkpoint's cost in the critic arm, overall then per packet. */
function formatCheckpoint(c: CheckpointRow, byPacket: Record<string, JudgeReport>): string[] {
  const perTrial = c.provider_trials ? (c.extra_calls / c.provider_trials).toFixed(2) : "0";
  const lines = [
    `${c.id} ${c.name} (critic arm, a cost, never a rescue): ${c.extra_calls} extra calls over ` +
    `${c.provider_trials} provider trials (${perTrial} per trial); asks in ${c.trials_asked} trials; ` +
    `passing trials expecting a submission it touches: ${
      share(c.submit_expected_passed_asked, c.submit_expected_passed)
    }; failed hold-expected trials it asks in: ${c.hold_expected_failed_asked}`,
    "",
    "| packet | provider trials | extra calls (per trial) | trials asked | passing submit-expected touched | failed hold-expected asked |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const [packet, r] of Object.entries(byPacket)) {
    const p = r.checkpoints.find((x) => x.id === c.id);
    if (!p) continue;
    const per = p.provider_trials ? (p.extra_calls / p.provider_trials).toFixed(2) : "—";
    lines.push(
      `| ${packet} | ${p.provider_trials} | ${p.extra_calls} (${per}) | ${p.trials_asked} | ` +
        `${
          share(p.submit_expected_passed_asked, p.submit_expected_passed)
        } | ${p.hold_expected_failed_asked} |`,
    );
  }
  return lines;
}
