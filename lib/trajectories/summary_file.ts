/**
 * The contract between replay and the dashboard: what `deno task replay --out DIR` writes to
 * `DIR/summary.json` and the dashboard reads back, as one zod schema both use — replay's writer checks its file
 * against it (`summaryFileOf`), the dashboard reads it through it (`readSummaryFile`) — with a version, and each
 * trial named by `trialKey` (lib/results/trials.ts), the one function that names a trial for both. The trial
 * records' types (TrialReplay and what it holds) are this schema's, so replay's code and its file cannot drift
 * apart. Loads zod: an entry that must import no npm package before it can install them loads this when used.
 */
import * as z from "zod/mini";
import en from "zod/locales/en";
import { ARMS } from "../guard/engine/record.ts";
import { trialKey } from "../results/trials.ts";

z.config(en());

/** The file replay writes in its output folder. */
export const SUMMARY_FILE = "summary.json";

/** The format's version: 2 added it, with each trial's `key`; a file without one was written before. */
export const SUMMARY_VERSION = 2;

/** One call a rule would have blocked. */
export const FiredCall = z.object({
  step: z.number(),
  /** The call's position among the trial's χ-World calls (the order the guard saw them in). */
  at: z.number(),
  id: z.string(),
  tool: z.string(),
  decision: z.string(),
});
export type FiredCall = z.infer<typeof FiredCall>;

/** What one arm did on one trial. */
export const ArmResult = z.object({
  /** Rule ID → the calls it would have blocked, with the checks it protects. */
  rules: z.record(z.string(), z.object({ checks: z.array(z.string()), calls: z.array(FiredCall) })),
  /** Obligations open at the end (the closure gate would have blocked the stop). */
  closure: z.array(z.string()),
  /** True when any call or the stop would have been blocked. */
  blocked: z.boolean(),
  /** The first would-be block: a rule on a call, or the closure gate. */
  firstBlock: z.nullable(z.object({
    step: z.nullable(z.number()),
    tool: z.nullable(z.string()),
    rules: z.array(z.string()),
  })),
  /** Ledger file written, or null. */
  ledger: z.nullable(z.string()),
  /** Judge name → the calls it objected to, enforced or shadow (what a decision-point judge would catch). */
  votes: z.optional(z.record(z.string(), z.array(FiredCall))),
  /**
   * Rule ID → calls it would have blocked on an id a saved oversized result may hold (replay has only what
   * the agent read of the file; the live guard reads it whole): not observable, counted in no block figure.
   */
  unobservable: z.optional(z.record(z.string(), z.array(FiredCall))),
  /**
   * Protector → its deny reasons (a stop-gate obligation: each stop block naming it) graded by how complete
   * the next call they name is (lib/trajectories/next_call.ts NextCallCounts).
   */
  nextCall: z.optional(z.record(
    z.string(),
    z.object({ complete: z.number(), partial: z.number(), none: z.number(), unheld: z.number() }),
  )),
});
export type ArmResult = z.infer<typeof ArmResult>;

/** The first executed call that dooms a failed check (lib/trajectories/doom.ts). */
export const DoomPoint = z.object({
  /** Position among the trial's χ-World calls, as FiredCall.at. */
  at: z.number(),
  step: z.number(),
  tool: z.string(),
});
export type DoomPoint = z.infer<typeof DoomPoint>;

/** A codex call whose arguments were left partly unresolved (lib/trajectories/atif.ts). */
const UnresolvedCall = z.object({
  id: z.string(),
  step: z.number(),
  tool: z.string(),
  /** Argument paths and the expression text left unresolved (`plan_data ← planData`). */
  values: z.array(z.string()),
});

/** One replayed trial. */
export const TrialReplay = z.object({
  dir: z.string(),
  /** The packet the trial is counted under (see `packetOf`); set by replayTrial. */
  packet: z.optional(z.string()),
  name: z.string(),
  domain: z.string(),
  harness: z.string(),
  version: z.string(),
  passed: z.boolean(),
  failedChecks: z.array(z.string()),
  /**
   * A provider trial's expected disposition, read from its scorecard: `hold` when the verifier judged
   * `provider_pre_submission.final_action` (it does only when a hold was expected), else `submit`; absent
   * for other seats. Judges must never fire where a submission was expected.
   */
  expects: z.optional(z.enum(["submit", "hold"])),
  /** Failed check → its doom; a failed check not listed is doomed only at the stop. */
  doom: z.optional(z.record(z.string(), DoomPoint)),
  toolCalls: z.object({ all: z.number(), mcp: z.number() }),
  unresolved: z.array(UnresolvedCall),
  /** False when the agent reached the simulator outside MCP, so the guard saw only part of the trial. */
  observable: z.optional(z.boolean()),
  /** Why the trial is not observable (the first off-channel call), when it is not. */
  unobservable: z.optional(z.string()),
  arms: z.partialRecord(z.enum(ARMS), ArmResult),
});
export type TrialReplay = z.infer<typeof TrialReplay>;

/** A trial as summary.json holds it: its replay, and its key (`trialKey`), which readers find it by. */
const TrialEntry = z.extend(TrialReplay, { key: z.string() });

/** replay's counts (lib/trajectories/verdict.ts ReplaySummary) by arm; readers recount from the trials. */
const Counts = z.record(z.string(), z.unknown());

/** summary.json. */
export const SummaryFile = z.object({
  version: z.literal(SUMMARY_VERSION),
  /** The paths replayed, as given. */
  paths: z.array(z.string()),
  arms: z.array(z.enum(ARMS)),
  summary: Counts,
  packets: z.array(z.object({ packet: z.string(), name: z.string(), summary: Counts })),
  trials: z.array(TrialEntry),
  unreadable: z.array(z.object({
    dir: z.string(),
    path: z.string(),
    reason: z.string(),
    packet: z.optional(z.string()),
  })),
});
export type SummaryFile = z.infer<typeof SummaryFile>;

/** What replay produced, as replayTrees reports it (the fields summary.json keeps). */
export interface ReplayedReport {
  arms: SummaryFile["arms"];
  summary: object;
  packets: { packet: string; name: string; summary: object }[];
  trials: TrialReplay[];
  unreadable: SummaryFile["unreadable"];
}

/** The summary.json of a replay of `paths`, checked against the schema (a mismatch is replay's own bug). */
export function summaryFileOf(paths: string[], report: ReplayedReport): SummaryFile {
  return SummaryFile.parse({
    version: SUMMARY_VERSION,
    paths,
    arms: report.arms,
    summary: report.summary,
    packets: report.packets,
    trials: report.trials.map((t) => ({ ...t, key: trialKey(t.dir) })),
    unreadable: report.unreadable,
  });
}

/** A summary.json's text, read: the file, or why it is not one this version reads (one line, with the fix). */
export function parseSummaryFile(text: string, path: string): SummaryFile | { why: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { why: `Cannot read ${path}: it is not JSON (${(err as Error).message.split("\n")[0]})` };
  }
  const version = (data as { version?: unknown } | null)?.version;
  if (version !== SUMMARY_VERSION) {
    return {
      why: `Cannot read ${path}: it is summary.json ${
        version === undefined ? "without a version (written before it had one)" : `version ${String(version)}`
      }, and this dashboard reads version ${SUMMARY_VERSION}. Run deno task replay again with the same --out`,
    };
  }
  const parsed = SummaryFile.safeParse(data);
  if (!parsed.success) {
    return {
      why: `Cannot read ${path}: it is not what replay writes (${
        z.prettifyError(parsed.error).replace(/\n\s*/g, " ")
      }). Run deno task replay again with the same --out`,
    };
  }
  return parsed.data;
}
