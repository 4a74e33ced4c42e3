/**
 * Replay's verdicts beside its ledgers: the `summary.json` a replay writes holds every replayed trial, and the
 * dashboard takes each trial's verdict per arm from it with replay's own function (armVerdict,
 * lib/trajectories/verdict.ts), then counts them with replay's own summary (summarizeVerdicts). So its
 * would-have-blocked figures are `deno task replay`'s to the digit, time-aware, with not-observable trials
 * counted as replay counts them: in the trials, in no fire.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ArmVerdict, armVerdict, type TrialReplay } from "../../lib/trajectories/verdict.ts";
import type { Arm } from "../../lib/guard/engine/record.ts";
import { packetName } from "../../lib/results/trials.ts";
import { foldersWith } from "./summary.ts";
import type { WalkCache } from "../../lib/walk.ts";

/** The file a replay writes its per-trial results into. */
export const SUMMARY_FILE = "summary.json";

/** One replayed arm's verdict on one trial. */
export interface ReplayVerdict {
  arm: string;
  passed: boolean;
  /** Null when the trial is not observable (then `unobservable` says why). */
  verdict: ArmVerdict | null;
  unobservable: string | null;
  /** Each rule's first blocked call, as the trajectory step it is in (the stop gate has none). */
  steps: Record<string, number>;
}

/** The key a trial goes by in both the replay's summary and the dashboard: its packet folder's name and its name. */
export function verdictKey(packet: string, trial: string): string {
  return `${packet}/${trial}`;
}

/** Folders holding a replay's summary.json: the roots themselves and up to three levels below them. */
export function findReplayRuns(roots: readonly string[], cache?: WalkCache): string[] {
  return foldersWith(roots, SUMMARY_FILE, cache);
}

/** Every verdict in a replay's summary.json, by trial key; or why the file is not a replay's summary. */
export function readVerdicts(dir: string): Map<string, ReplayVerdict[]> | { why: string } {
  const path = join(dir, SUMMARY_FILE);
  let data: { arms?: unknown; trials?: unknown };
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    return { why: `Cannot read ${path}: ${String((err as Error).message).split("\n")[0]}` };
  }
  if (!Array.isArray(data?.arms) || !Array.isArray(data?.trials)) {
    return { why: `${path} is not a replay's summary (no arms and trials)` };
  }
  const out = new Map<string, ReplayVerdict[]>();
  for (const t of data.trials as TrialReplay[]) {
    if (!t?.name || !t.arms) continue;
    const key = verdictKey(packetName(t.packet ?? ""), t.name);
    const list = out.get(key) ?? [];
    for (const arm of Object.keys(t.arms) as Arm[]) {
      const steps: Record<string, number> = {};
      for (const [id, fired] of Object.entries(t.arms[arm]?.rules ?? {})) {
        const first = Math.min(...(fired?.calls ?? []).map((c) => c.step));
        if (Number.isFinite(first)) steps[id] = first;
      }
      list.push({
        arm,
        passed: t.passed,
        verdict: armVerdict(t, arm),
        unobservable: t.observable === false ? t.unobservable ?? "not observable" : null,
        steps,
      });
    }
    out.set(key, list);
  }
  return out;
}
