/**
 * Replay figures for the critic's decision-point judges, from the per-trial replay results: per judge, how
 * often it objects in failed and in passing trials, what it alone adds to the checklist arm (trials blocked,
 * rescue estimate), and the critic arm's increment over the checklist arm, overall and per packet (a judge
 * tuned to one agent's wording shows it there). Packets are replay's own (`packetOf`, set on each trial).
 */
import type { Arm } from "../guard/engine/record.ts";
import { packetName, packetOf } from "../trajectories/replay.ts";
import { fireIn, summarize, type TrialReplay } from "../trajectories/verdict.ts";
import { JUDGES } from "../guard/engine/judges/mod.ts";

/** One judge's figures (counts are trials). */
export interface JudgeRow {
  id: string;
  name: string;
  enforced: boolean;
  fires_failed: number;
  fires_failed_protected: number;
  /** Of fires_failed_protected: objected at or before the doom of every protected failed check (verdict.ts). */
  in_time: number;
  /** Of fires_failed_protected: objected after the doom of at least one of them. */
  too_late: number;
  fires_passed: number;
  /** The passing trials it objected in, by name: each one is examined in the judge's header. */
  passing: string[];
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

/** Judge figures over a set of trials. */
export interface JudgeReport {
  trials: number;
  passed: number;
  judges: JudgeRow[];
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
  const judges = JUDGES.map((judge): JudgeRow => {
    const { id, name, protects, enforced } = judge.meta;
    const row: JudgeRow = {
      id,
      name,
      enforced,
      fires_failed: 0,
      fires_failed_protected: 0,
      in_time: 0,
      too_late: 0,
      fires_passed: 0,
      passing: [],
      only_it_blocks: 0,
      rescue_added: { upper: 0, strict: 0 },
    };
    for (const t of trials) {
      const votes = from && t.observable !== false ? t.arms[from]?.votes?.[name] : undefined;
      if (!votes?.length) continue;
      if (t.passed) {
        row.fires_passed++;
        row.passing.push(`${packet(t)}/${t.name}`);
        continue;
      }
      row.fires_failed++;
      const fire = fireIn(t, protects, votes.map((v) => v.at));
      if (fire.protected) row.fires_failed_protected++;
      if (fire.timing === "in time") row.in_time++;
      if (fire.timing === "too late") row.too_late++;
      if (t.arms.checklist && !t.arms.checklist.blocked) row.only_it_blocks++;
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
  return { trials: trials.length, passed: trials.filter((t) => t.passed).length, judges, delta };
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
    "| judge | mode | fires in failed | … protected check failed | … in time | … too late | fires in passed | failed, only it blocks | rescue in time it adds (upper / strict) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const j of all.judges) {
    lines.push(
      `| ${j.id} ${j.name} | ${j.enforced ? "enforced" : "shadow"} | ${j.fires_failed} | ` +
        `${j.fires_failed_protected} | ${j.in_time} | ${j.too_late} | ${j.fires_passed} | ${j.only_it_blocks} | ` +
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
  const head = JUDGES.map((j) => `${j.meta.id} failed/in time/too late/passed`).join(" | ");
  lines.push(
    "",
    `| packet | trials (passed) | ${head} | critic − checklist blocked (failed / passed) | rescue in time (upper / strict) |`,
    `|---|---:|${JUDGES.map(() => "---:|").join("")}---:|---:|`,
  );
  for (const [packet, r] of Object.entries(byPacket)) {
    const cells = r.judges.map((j) => `${j.fires_failed}/${j.in_time}/${j.too_late}/${j.fires_passed}`);
    const d = r.delta;
    lines.push(
      `| ${packet} | ${r.trials} (${r.passed}) | ${cells.join(" | ")} | ` +
        (d
          ? `${signed(d.trials_blocked.failed)} / ${signed(d.trials_blocked.passed)} | ` +
            `${signed(d.rescue_estimate.upper)} / ${signed(d.rescue_estimate.strict)} |`
          : "— | — |"),
    );
  }
  return lines.join("\n");
}
