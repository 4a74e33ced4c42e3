/**
 * The pilot's go / no-go verdict (docs/EVALUATION_PROTOCOL.md, protocol v3), stated before any result: go to
 * the full ablation when the 95% paired bootstrap interval of the provider pass@1 difference critic − stock
 * lies above 0 (the protocol's "improves"); no-go otherwise; no result when the arms share no provider task,
 * either arm failed run integrity, or the arms differ by more than the guard (an arm that did not run as its
 * name says, another model, harness, Claude Code version or environment: lib/results/comparable.ts). McNemar is
 * reported beside it and never decides.
 */
import type { Pair } from "./protocol.ts";
import type { Decision } from "./stats.ts";
import { pointsInterval } from "./points.ts";

/** What the verdict reads of a comparison (aggregate.ts's Comparison has these fields and more). */
export interface PilotComparison {
  arm: string;
  control: string;
  domain: string;
  n_shared: number;
  diff: number | null;
  lo: number | null;
  hi: number | null;
  decision: Decision | null;
  p_mcnemar: number | null;
  gained: string[];
  lost: string[];
  marked: string[];
  not_comparable: string[];
}

/** The pilot's one comparison: the full guard against stock on the provider domain. */
export const PILOT: Required<Pair> & { domain: string } = {
  id: "P1",
  arm: "critic",
  control: "stock",
  domain: "pa_provider",
};

/** The file aggregate --pilot writes into its output dir: one word, the verdict (run.sh reads it). */
export const VERDICT_FILE = "pilot_verdict.txt";

/** go: run the full ablation; no-go: stop; no-result: fix the pilot and run it again. */
export type Verdict = "go" | "no-go" | "no-result";

/** The verdict, why, and the comparison it rests on. */
export interface PilotVerdict {
  verdict: Verdict;
  reason: string;
  comparison: PilotComparison | null;
}

/** The pre-stated rule applied to the pilot's comparisons. */
export function pilotVerdict(comparisons: readonly PilotComparison[]): PilotVerdict {
  const c =
    comparisons.find((x) =>
      x.arm === PILOT.arm && x.control === PILOT.control && x.domain === PILOT.domain
    ) ?? null;
  const what = `${PILOT.arm} − ${PILOT.control} on ${PILOT.domain}`;
  if (!c || !c.n_shared) {
    return {
      verdict: "no-result",
      reason:
        `no ${PILOT.domain} task was scored in both ${PILOT.arm} and ${PILOT.control}. Run the pilot again.`,
      comparison: c,
    };
  }
  if (c.not_comparable.length) {
    return {
      verdict: "no-result",
      reason:
        `${what} is not the guard's effect: ${c.not_comparable.join("; ")}. Run both arms of the pilot ` +
        "from the same install experiments configs (one model, harness, pinned Claude Code and environment).",
      comparison: c,
    };
  }
  if (c.marked.length) {
    return {
      verdict: "no-result",
      reason: `${c.marked.join(", ")} failed run integrity, so ${what} is not a result. Fix it (deno task ` +
        "verify) and run the pilot again.",
      comparison: c,
    };
  }
  const interval = `Δ pass@1 ${pointsInterval(c)} over ${c.n_shared} tasks`;
  const mcnemar = `McNemar p ${c.p_mcnemar?.toPrecision(3) ?? "–"} (${c.gained.length} gained, ` +
    `${c.lost.length} lost; reported, not deciding)`;
  return c.decision === "improves"
    ? {
      verdict: "go",
      reason: `${what}: ${interval} lies above 0. Run the full ablation. ${mcnemar}.`,
      comparison: c,
    }
    : {
      verdict: "no-go",
      reason: `${what}: ${interval} does not lie above 0. Stop before the full ablation: the guard did not ` +
        `show the provider gain the pilot can detect. ${mcnemar}.`,
      comparison: c,
    };
}
