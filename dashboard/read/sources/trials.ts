/** Source: the trial folders under the log roots: each one's result, scorecard, cost and what it ran as. */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  readScorecard,
  readTrial,
  trialKey,
  type TrialRef,
  type TrialSummary,
} from "../../../lib/results/trials.ts";
import { type Prices, type Recipe, trialCost } from "../../../lib/results/cost.ts";
import type { GuardFacts } from "../../../lib/results/guard_facts.ts";
import { readGuardFacts } from "../../../lib/results/guard_facts_reader.ts";
import type { Outcome } from "../model.ts";
import { type ArmClaim, claimOf, ranAsOf } from "../arms.ts";

/** Reads a JSON file, or null when it is missing or invalid. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** A trial folder as the store knows it: its files, arm, summary, outcome, cost and failed checks. */
export interface TrialInfo {
  ref: TrialRef;
  /** Its arm's name, given by the store over all trials (read/arms.ts armNames). */
  arm: string;
  /** What its arm is made of: its run and what it says it ran as. */
  claim: ArmClaim;
  summary: TrialSummary;
  outcome: Outcome;
  cost: number | null;
  failedChecks: string[];
  synthetic: boolean;
  /** The name it goes by in replay's summary.json too (`trialKey`: its packet folder's name and its own). */
  key: string;
  /** Epoch ms of the last write to the folder, trial.log or agent/ while it has no result; 0 once it has one. */
  touched: number;
  /** The guard's facts in result.json (a packet's guarded trial), when valid. */
  facts: GuardFacts | null;
}

/** result.json's guard facts when they are there and valid; a viewer shows what it can and never fails a scan. */
function factsOf(raw: Record<string, unknown> | null, path: string): GuardFacts | null {
  try {
    const read = raw ? readGuardFacts(raw, path) : null;
    return read && "facts" in read ? read.facts : null;
  } catch {
    return null;
  }
}

/** The latest modification time of a trial folder, its trial.log and its agent folder (0: none readable). */
function lastWritten(dir: string): number {
  let at = 0;
  for (const path of [dir, join(dir, "trial.log"), join(dir, "agent")]) {
    try {
      at = Math.max(at, statSync(path).mtimeMs);
    } catch {
      // absent
    }
  }
  return at;
}

/** A JSON object file, or null when it is missing, invalid or not an object. */
function readObject(path: string): Record<string, unknown> | null {
  const value = readJsonFile(path);
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}

/** What the store knows of one trial folder (below `root`, named by `--logs NAME=DIR`), read from its files. */
export function readTrialInfo(
  ref: TrialRef,
  root: { dir: string; name?: string },
  pricing: { recipe?: Recipe; prices?: Prices },
): TrialInfo {
  const summary = readTrial(ref);
  const failedChecks = trialChecks(ref.scorecard, []).filter((c) => c.passed === false).map((c) => c.id);
  const outcome: Outcome = !summary.readable
    ? "running"
    : summary.passed === null
    ? "unscored"
    : summary.passed
    ? "passed"
    : "failed";
  const raw = summary.readable ? readObject(ref.result) : null;
  const facts = factsOf(raw, ref.result);
  const ranAs = ranAsOf({
    config: readObject(join(ref.dir, "config.json")),
    harness: readObject(join(ref.dir, "agent", "fiable", "harness.json")),
    result: raw,
    facts,
  });
  const claim = claimOf(root, ref.dir, ranAs);
  return {
    ref,
    arm: claim.run,
    claim,
    summary,
    outcome,
    cost: summary.readable ? trialCost(summary, pricing.recipe ?? "B", pricing.prices ?? {}) : null,
    failedChecks,
    synthetic: raw?.source === "fiable-samples",
    key: trialKey(ref.dir),
    touched: outcome === "running" ? lastWritten(ref.dir) : 0,
    facts,
  };
}

/**
 * Every check of a trial with its verdict, from its scorecard; without a readable one, the failed checks the
 * store already holds (each false).
 */
export function trialChecks(
  scorecard: string | null,
  failed: readonly string[],
): { id: string; passed: boolean | null }[] {
  if (scorecard) {
    try {
      return readScorecard(scorecard).checks;
    } catch {
      // the failed checks known below
    }
  }
  return failed.map((id) => ({ id, passed: false }));
}
