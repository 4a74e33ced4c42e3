/**
 * Replay's figures, computed once: a verdict per trial and arm (which rules fired, whether each came in time,
 * whether the trial counts as rescued), then the summary that counts verdicts. The CLI, summary.json, the
 * Parquet summary, the judge figures, rule_regression and the dashboard all read these two functions.
 *
 * Time-aware: a block helps a failed check only if it comes at or before the first executed call that dooms
 * the check (lib/trajectories/doom.ts; a block on that call itself counts); the closure gate blocks at the stop, so
 * it helps only checks doomed there. A shadow replay shows when a block would have come, not what the agent
 * would have done after it: "rescued" means every failed deterministic check had such a block.
 */
import { checkMatches } from "./doom.ts";
import { GATE_PROTECTS } from "../guard/engine/closure.ts";
import type { Arm } from "../guard/engine/record.ts";
// Types only: the records are summary.json's schema's (summary_file.ts), and this file loads no npm package.
import type { ArmResult, DoomPoint, FiredCall, TrialReplay } from "./summary_file.ts";
import { addCounts, type NextCallCounts, nextCallCounts } from "./next_call.ts";

export type { ArmResult, DoomPoint, FiredCall, TrialReplay };

/** Whether a rule's block came in time for a failed check it protects. */
export type Timing = "in time" | "too late";

/** One protector (a rule, a judge or the closure gate) in one trial. */
export interface Fire {
  /** A check it protects failed. */
  protected: boolean;
  /**
   * For a failed trial with a protected check failed: in time when it blocked at or before the doom of every
   * such check, too late when it came after the doom of at least one (it could not have saved them all).
   */
  timing: Timing | null;
}

/** A rescue verdict: strict when no judge check failed either. */
export type Rescue = "strict" | "upper" | null;

/** What one arm would have done in one observable trial, counted once for every figure. */
export interface ArmVerdict {
  passed: boolean;
  blocked: boolean;
  rules: Record<string, Fire>;
  /** The closure gate, when it would have blocked the stop. */
  gate: Fire | null;
  /**
   * Each failed check of a failed trial: `in time` when a block protecting it came at or before its doom,
   * `too late` when such blocks came only after, null when none protects it. The rescue figures read this.
   */
  checks: Record<string, Timing | null>;
  /** Time-aware: every failed deterministic check had a protecting block at or before its doom. */
  rescue: Rescue;
  /** The same, counting blocks that came after the doom (the figure before issue 29). */
  rescueIgnoringTime: Rescue;
  /** Rules whose only blocks rested on an id a saved result may hold (`ArmResult.unobservable`). */
  unobservable?: string[];
  /** The trial's deny reasons by protector and grade (`ArmResult.nextCall`). */
  nextCall?: Record<string, NextCallCounts>;
}

/** The closure gate's name where protectors are listed together (verdicts.parquet, the CLI table). */
export const GATE_ROW = "closure gate";

/** The stop's position: after every call. */
const STOP = Number.POSITIVE_INFINITY;

function isJudgeCheck(id: string): boolean {
  return id.startsWith("judge.");
}

function doomAt(t: TrialReplay, check: string): number {
  return t.doom?.[check]?.at ?? STOP;
}

/**
 * A protector's fire in a trial: whether a check it protects failed, and whether its blocks (positions `at`,
 * the stop being after every call) came at or before the doom of every such check.
 */
export function fireIn(t: TrialReplay, checks: readonly string[], at: readonly number[]): Fire {
  const hit = t.passed ? [] : t.failedChecks.filter((c) => checks.some((p) => checkMatches(p, c)));
  if (!hit.length) return { protected: false, timing: null };
  const early = hit.every((c) => at.some((a) => a <= doomAt(t, c)));
  return { protected: true, timing: early ? "in time" : "too late" };
}

/** The verdict of one arm on one trial; null when the arm was not replayed or the trial is not observable. */
export function armVerdict(t: TrialReplay, arm: Arm): ArmVerdict | null {
  const r = t.arms[arm];
  if (!r || t.observable === false) return null;
  const protectors = Object.values(r.rules).map((f) => ({ checks: f.checks, at: f.calls.map((c) => c.at) }));
  const rules: Record<string, Fire> = {};
  for (const [id, fired] of Object.entries(r.rules)) {
    rules[id] = fireIn(t, fired.checks, fired.calls.map((c) => c.at));
  }
  let gate: Fire | null = null;
  if (r.closure.length) {
    const checks = r.closure.flatMap((o) => GATE_PROTECTS[o.split(":")[0]] ?? []);
    protectors.push({ checks, at: [STOP] });
    gate = fireIn(t, checks, [STOP]);
  }
  const failed = t.passed ? [] : t.failedChecks;
  const checks: Record<string, Timing | null> = {};
  for (const c of failed) {
    const mine = protectors.filter((p) => p.checks.some((pattern) => checkMatches(pattern, c)));
    checks[c] = !mine.length
      ? null
      : mine.some((p) => p.at.some((a) => a <= doomAt(t, c)))
      ? "in time"
      : "too late";
  }
  const det = failed.filter((c) => !isJudgeCheck(c));
  const judged = failed.some(isJudgeCheck);
  const rescue = (inTime: boolean): Rescue => {
    const covered = (c: string) => inTime ? checks[c] === "in time" : checks[c] !== null;
    if (!det.length || !det.every(covered)) return null;
    return judged ? "upper" : "strict";
  };
  return {
    passed: t.passed,
    blocked: r.blocked,
    rules,
    gate,
    checks,
    rescue: rescue(true),
    rescueIgnoringTime: rescue(false),
    ...(r.unobservable ? { unobservable: Object.keys(r.unobservable).sort() } : {}),
    ...(r.nextCall ? { nextCall: r.nextCall } : {}),
  };
}

/** A protector's counts (trials): fires in failed, … with a protected check failed, split in time / too late. */
export interface FireCounts {
  fires_failed: number;
  fires_failed_protected: number;
  /** Of fires_failed_protected: objected at or before the doom of every protected failed check. */
  in_time: number;
  /** Of fires_failed_protected: objected after the doom of at least one of them. */
  too_late: number;
  fires_passed: number;
}

/**
 * The `--json` shape, per arm (counts are trials). `not_observable` trials count in trials/passed/failed
 * but in none of the fire, block or rescue figures: the guard could not have seen what they did.
 */
export interface ReplaySummary {
  trials: number;
  passed: number;
  failed: number;
  unreadable: number;
  not_observable: number;
  by_rule: Record<string, FireCounts>;
  closure_gate: FireCounts;
  trials_blocked: { failed: number; passed: number };
  /** Time-aware (see armVerdict). */
  rescue_estimate: { upper: number; strict: number };
  /** Counting blocks after the doom too: what the estimate was before it knew time. */
  rescue_ignoring_time: { upper: number; strict: number };
  /**
   * Per rule, trials (failed / passed) where it would have blocked on an id a saved oversized result may hold:
   * not observable in replay, and in no figure above.
   */
  not_observable_fires: Record<string, { failed: number; passed: number }>;
  /**
   * Per protector (a rule, a judge, the panel, a stop-gate obligation), its deny reasons by how complete the
   * next call they name is: complete (the tool and every id it needs, each in the evidence), partial, none.
   */
  next_call: Record<string, NextCallCounts>;
}

/** Counts with nothing counted yet. */
export function fireCounts(): FireCounts {
  return { fires_failed: 0, fires_failed_protected: 0, in_time: 0, too_late: 0, fires_passed: 0 };
}

/** Counts one protector's fire in a trial. */
export function countFire(row: FireCounts, passed: boolean, f: Fire): void {
  if (passed) return void row.fires_passed++;
  row.fires_failed++;
  if (!f.protected) return;
  row.fires_failed_protected++;
  if (f.timing === "in time") row.in_time++;
  else row.too_late++;
}

/** One trial as the summary counts it: its verdict for the arm (null when it has none). */
export interface Counted {
  passed: boolean;
  /** False when the agent reached the simulator outside MCP: counted in trials, in no figure. */
  observable: boolean;
  verdict: ArmVerdict | null;
}

/**
 * The trial-level metrics of verdicts (the `--json` shape): `summarize` over replayed trials, the dashboard
 * over the verdicts replay wrote beside its ledgers — the same counting.
 */
export function summarizeVerdicts(trials: readonly Counted[], unreadable: number): ReplaySummary {
  const s: ReplaySummary = {
    trials: trials.length + unreadable,
    passed: 0,
    failed: 0,
    unreadable,
    not_observable: 0,
    by_rule: {},
    closure_gate: fireCounts(),
    trials_blocked: { failed: 0, passed: 0 },
    rescue_estimate: { upper: 0, strict: 0 },
    rescue_ignoring_time: { upper: 0, strict: 0 },
    not_observable_fires: {},
    next_call: {},
  };
  for (const t of trials) {
    if (t.passed) s.passed++;
    else s.failed++;
    if (!t.observable) s.not_observable++;
    const v = t.verdict;
    if (!v) continue;
    for (const [id, f] of Object.entries(v.rules)) countFire(s.by_rule[id] ??= fireCounts(), v.passed, f);
    if (v.gate) countFire(s.closure_gate, v.passed, v.gate);
    if (v.blocked) s.trials_blocked[v.passed ? "passed" : "failed"]++;
    for (const [id, n] of Object.entries(v.nextCall ?? {})) {
      addCounts(s.next_call[id] ??= nextCallCounts(), n);
    }
    for (const id of v.unobservable ?? []) {
      (s.not_observable_fires[id] ??= { failed: 0, passed: 0 })[v.passed ? "passed" : "failed"]++;
    }
    for (
      const [key, r] of [["rescue_estimate", v.rescue], [
        "rescue_ignoring_time",
        v.rescueIgnoringTime,
      ]] as const
    ) {
      if (r) s[key].upper++;
      if (r === "strict") s[key].strict++;
    }
  }
  s.by_rule = Object.fromEntries(Object.entries(s.by_rule).sort(([a], [b]) => a.localeCompare(b)));
  s.next_call = Object.fromEntries(Object.entries(s.next_call).sort(([a], [b]) => a.localeCompare(b)));
  return s;
}

/** The trial-level metrics of one arm over replayed trials (the `--json` shape). */
export function summarize(trials: readonly TrialReplay[], unreadable: number, arm: Arm): ReplaySummary {
  return summarizeVerdicts(
    trials.map((t) => ({
      passed: t.passed,
      observable: t.observable !== false,
      verdict: armVerdict(t, arm),
    })),
    unreadable,
  );
}

/** One failed check under one arm (counts are observable failed trials where it failed). */
export interface CheckCounts {
  failed: number;
  /** A block protecting it came at or before its doom. */
  in_time: number;
  /** Blocks protecting it came, all after its doom. */
  too_late: number;
}

/**
 * Per failed check, how many of its failures a block came in time for, from the same verdicts (and the same
 * per-check timing the rescue estimate reads); not-observable trials have no verdict and count in none.
 */
export function summarizeChecks(trials: readonly Counted[]): Record<string, CheckCounts> {
  const out: Record<string, CheckCounts> = {};
  for (const t of trials) {
    for (const [id, timing] of Object.entries(t.verdict?.checks ?? {})) {
      const c = out[id] ??= { failed: 0, in_time: 0, too_late: 0 };
      c.failed++;
      if (timing === "in time") c.in_time++;
      else if (timing === "too late") c.too_late++;
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}
