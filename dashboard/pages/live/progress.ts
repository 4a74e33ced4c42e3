/**
 * A running ablation's progress for the Live page, with what is live kept apart from what was loaded from
 * disk: a trial is live while it has no result.json and something in its folder (its guard ledger, trial.log,
 * the folder itself) was written within the live window; the rate counts only the trials that finished
 * within that window. Finished runs loaded from disk count as done, never toward a rate, and the pass@1 and
 * cost beside an arm's count are of the very trials that count holds. Pure: the rows come from the store.
 */
import type { Slice } from "./experiments.ts";
import type { Row } from "../../read/model.ts";

/** One arm's progress. */
export interface ArmProgress {
  arm: string;
  /** Trials with a result (scored or not). */
  done: number;
  /** Of those, passed or failed. */
  scored: number;
  passed: number;
  /** Trials being written now: no result yet, written within the live window. */
  live: number;
  /** Trials with no result whose folder was last written before the live window: stopped or crashed. */
  stalled: number;
  /** From the experiment configs; null without them. */
  expected: number | null;
  /** passed / scored of this arm's done trials; null when none is scored. */
  passAt1: number | null;
  /** Σ cost of this arm's done trials whose cost is known, and how many those are. */
  costSoFar: number | null;
  costKnown: number;
}

/** The whole ablation. */
export interface Progress {
  arms: ArmProgress[];
  done: number;
  expected: number | null;
  live: number;
  stalled: number;
  /** Done trials whose result says they finished within the live window. */
  recent: number;
  /** The live window, in ms. */
  windowMs: number;
  /** Trials per hour over the live window (`recent` / window); null when none finished in it. */
  rate: number | null;
  /** Seconds until every expected trial is done at that rate; null when either is unknown. */
  eta: number | null;
  /** Trials under the logs that lie outside every config's trials dir (counted nowhere here). */
  outside: number;
  /** Notes on assumptions (task counts defaulted). */
  notes: string[];
}

function inside(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root.endsWith("/") ? root : root + "/");
}

/** When a row was last written while it had no result (a trial folder's, else its ledger's). */
function lastWrite(r: Row): number {
  return Math.max(r.touched, r.updated);
}

/**
 * Progress of the arms against the experiment configs (when given) at `now`, with `windowMs` the live
 * window: trials done, live and stalled per arm, pass@1 and cost of the done ones, the rate over the window.
 */
export function ablationProgress(
  rows: readonly Row[],
  slices: readonly Slice[],
  now: number,
  windowMs: number,
): Progress {
  const roots = slices.map((s) => s.trialsDir).filter((d): d is string => !!d);
  const trials = rows.filter((r) => r.source === "trial");
  const counted = trials.filter((r) =>
    !roots.length || (r.trialDir !== null && roots.some((d) => inside(r.trialDir!, d)))
  );
  const armOf = (r: Row): string => {
    const s = slices.find((x) => x.trialsDir && r.trialDir && inside(r.trialDir, x.trialsDir));
    return s ? s.arm : r.arm;
  };
  const isLive = (r: Row) => r.outcome === "running" && now - lastWrite(r) <= windowMs;
  // A guard ledger with no trial folder yet (or records posted live) is a trial being written too.
  const sessions = rows.filter((r) => r.source !== "trial" && isLive(r));
  const names = [
    ...new Set([
      ...slices.map((s) => s.arm),
      ...counted.map(armOf),
      ...(roots.length ? [] : sessions.map((r) => r.arm)),
    ]),
  ].sort();
  const arms = names.map((arm): ArmProgress => {
    const mine = counted.filter((r) => armOf(r) === arm);
    const done = mine.filter((r) => r.outcome !== "running");
    const scored = done.filter((r) => r.outcome === "passed" || r.outcome === "failed");
    const passed = scored.filter((r) => r.outcome === "passed").length;
    const priced = done.filter((r) => r.cost !== null);
    const own = slices.filter((s) => s.arm === arm);
    return {
      arm,
      done: done.length,
      scored: scored.length,
      passed,
      live: mine.filter(isLive).length + sessions.filter((r) => r.arm === arm).length,
      stalled: mine.filter((r) => r.outcome === "running" && !isLive(r)).length,
      expected: own.length ? own.reduce((a, s) => a + s.expected, 0) : null,
      passAt1: scored.length ? passed / scored.length : null,
      costSoFar: priced.length ? priced.reduce((a, r) => a + r.cost!, 0) : null,
      costKnown: priced.length,
    };
  });
  const sum = (f: (a: ArmProgress) => number) => arms.reduce((a, x) => a + f(x), 0);
  const done = sum((a) => a.done);
  const expected = slices.length ? slices.reduce((a, s) => a + s.expected, 0) : null;
  const recent =
    counted.filter((r) =>
      r.outcome !== "running" && r.finished !== null && r.finished <= now && now - r.finished <= windowMs
    ).length;
  const rate = recent ? recent / (windowMs / 3.6e6) : null;
  const eta = rate && expected !== null ? Math.max(0, expected - done) / rate * 3600 : null;
  const notes: string[] = [];
  const defaulted = slices.filter((s) => s.tasksFrom === "default");
  if (defaulted.length) {
    notes.push(
      `${defaulted.length} config(s) name neither n_tasks nor a readable dataset folder: counted as 25 tasks ` +
        "each (χ-Bench v1.0.0 has 25 per domain).",
    );
  }
  return {
    arms,
    done,
    expected,
    live: sum((a) => a.live),
    stalled: sum((a) => a.stalled),
    recent,
    windowMs,
    rate,
    eta,
    outside: trials.length - counted.length,
    notes,
  };
}
