/**
 * The Rules page's model: every protector that can block — the contract rules, the decision-point judges, the
 * critic panel's own block and the closure gate — with its fires in guarded trials (the ledgers) and in each
 * replay (replay's own summary of its verdicts), most fired in failed trials first, then in time, then in
 * passing trials; what never fired is apart.
 */
import { RULES } from "../../../rules/mod.ts";
import { JUDGES } from "../../../lib/guard/engine/judges/mod.ts";
import type { FireCounts } from "../../../lib/trajectories/verdict.ts";
import { addCounts, type NextCallCounts, nextCallCounts } from "../../../lib/trajectories/next_call.ts";
import { replayArmSummary } from "../../read/figures.ts";
import { GATE } from "../../read/ledgers.ts";
import type { Row } from "../../read/model.ts";

/**
 * The critic panel's own block (lib/guard/engine/critic.ts criticHits): two of its three judges objected at a
 * decision point. It names no check, so its fires are never counted in time or too late.
 */
export const PANEL = "CRITIC";

/** Fires of one protector across rows. */
export interface RuleFires {
  id: string;
  name: string;
  kind: "rule" | "judge" | "panel" | "gate";
  seat: string;
  protects: readonly string[];
  /** Guarded trials it fired in, by outcome (other: unscored or running). */
  failed: number;
  passed: number;
  other: number;
  /** Replay arm → replay's own fire counts for it (in time / too late; replay's summary). */
  replay: Record<string, FireCounts>;
  /** Its replayed deny reasons over every replay arm, by how complete the next call they name is. */
  nextCall: NextCallCounts;
}

/** The Rules page's figures: fired protectors in order, those that never fired, and the replay arms. */
export interface RulesModel {
  fired: RuleFires[];
  never: RuleFires[];
  replayArms: string[];
  /** Check id → trials it failed in. */
  failures: Map<string, number>;
}

function blank(id: string): RuleFires {
  const rule = RULES.find((r) => r.meta.id === id)?.meta;
  const judge = JUDGES.find((j) => j.meta.id === id)?.meta;
  const base = { id, failed: 0, passed: 0, other: 0, replay: {}, nextCall: nextCallCounts() };
  if (rule) return { ...base, name: rule.name, kind: "rule", seat: rule.seat, protects: rule.protects };
  if (judge) {
    return {
      ...base,
      name: `${judge.name} judge${judge.enforced ? "" : " (shadow)"}`,
      kind: "judge",
      seat: judge.seat,
      // A checkpoint's block protects no check (critic.ts criticHits).
      protects: judge.checkpoint ? [] : judge.protects,
    };
  }
  if (id === PANEL) {
    return {
      ...base,
      name: "critic panel: two of three judges objected",
      kind: "panel",
      seat: "all",
      protects: [],
    };
  }
  if (id === GATE) return { ...base, name: "closure gate", kind: "gate", seat: "all", protects: [] };
  return { ...base, name: "", kind: "rule", seat: "", protects: [] };
}

/** A protector's fires in failed trials, guarded and replayed. */
export function firesInFailed(f: RuleFires): number {
  return f.failed + Object.values(f.replay).reduce((a, r) => a + r.fires_failed, 0);
}

/** A protector's replayed fires that came in time. */
export function firesInTime(f: RuleFires): number {
  return Object.values(f.replay).reduce((a, r) => a + r.in_time, 0);
}

/** A protector's fires in passing trials, guarded and replayed (each one a defect to explain or fix). */
export function firesInPassed(f: RuleFires): number {
  return f.passed + Object.values(f.replay).reduce((a, r) => a + r.fires_passed, 0);
}

/** The Rules page's figures over the rows. */
export function ruleFires(rows: readonly Row[]): RulesModel {
  const fires = new Map<string, RuleFires>();
  const entry = (id: string): RuleFires => {
    let f = fires.get(id);
    if (!f) fires.set(id, f = blank(id));
    return f;
  };
  for (const r of RULES) entry(r.meta.id);
  for (const j of JUDGES) entry(j.meta.id);
  const failures = new Map<string, number>();
  const replayArms = new Set<string>();
  for (const row of rows) {
    for (const id of row.rules) {
      const f = entry(id);
      if (row.outcome === "failed") f.failed++;
      else if (row.outcome === "passed") f.passed++;
      else f.other++;
    }
    for (const m of row.replays) if (m.verdict) replayArms.add(m.arm);
    if (row.source === "trial") {
      for (const id of row.failedChecks) failures.set(id, (failures.get(id) ?? 0) + 1);
    }
  }
  for (const arm of replayArms) {
    // Replay's own counts (its verdicts), the closure gate as STOP-GATE.
    const summary = replayArmSummary(rows, arm);
    for (const [id, r] of Object.entries(summary.by_rule)) entry(id).replay[arm] = r;
    // A stop-gate obligation's reasons count for the gate's row.
    for (const [id, n] of Object.entries(summary.next_call ?? {})) {
      addCounts((fires.has(id) || !/^[A-Z]+-[A-Z]/.test(id) ? entry(id) : entry(GATE)).nextCall, n);
    }
    if (summary.closure_gate.fires_failed + summary.closure_gate.fires_passed) {
      entry(GATE).replay[arm] = summary.closure_gate;
    }
  }
  const all = [...fires.values()];
  const fired = all.filter((f) => firesInFailed(f) + firesInPassed(f) + f.other > 0);
  fired.sort((a, b) =>
    firesInFailed(b) - firesInFailed(a) || firesInTime(b) - firesInTime(a) ||
    firesInPassed(b) - firesInPassed(a) || a.id.localeCompare(b.id)
  );
  return {
    fired,
    never: all.filter((f) => !fired.includes(f)).sort((a, b) => a.id.localeCompare(b.id)),
    replayArms: [...replayArms].sort(),
    failures,
  };
}
