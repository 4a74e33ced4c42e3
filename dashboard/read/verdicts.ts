/**
 * Replay's verdicts beside its ledgers: the `summary.json` a replay writes holds every replayed trial, and the
 * dashboard takes each trial's verdict per arm from it with replay's own function (armVerdict,
 * lib/trajectories/verdict.ts), then counts them with replay's own summary (summarizeVerdicts). So its
 * would-have-blocked figures are `deno task replay`'s to the digit, time-aware, with not-observable trials
 * counted as replay counts them: in the trials, in no fire.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ArmVerdict, armVerdict } from "../../lib/trajectories/verdict.ts";
import type { Arm } from "../../lib/guard/engine/record.ts";
import { packetName } from "../../lib/results/trials.ts";
import { ledgerFileName } from "../../lib/guard/ledger/ledger.ts";
import { parseSummaryFile, SUMMARY_FILE } from "../../lib/trajectories/summary_file.ts";
import { foldersWith } from "./summary.ts";
import type { WalkCache } from "../../lib/walk.ts";

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

/** Folders holding a replay's summary.json: the roots themselves and up to three levels below them. */
export function findReplayRuns(roots: readonly string[], cache?: WalkCache): string[] {
  return foldersWith(roots, SUMMARY_FILE, cache);
}

/** A replay run's verdicts by trial key (`trialKey`), and which trial each replay ledger is, by its place. */
export interface ReplayRun {
  verdicts: Map<string, ReplayVerdict[]>;
  /** `<packet folder>/<ledger file>` (where replay writes a trial's ledger below each arm) → its trial key. */
  ledgers: Map<string, string>;
}

/** Every verdict in a replay's summary.json, by trial key; or why the file is not one this version reads. */
export function readVerdicts(dir: string): ReplayRun | { why: string } {
  const path = join(dir, SUMMARY_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return { why: `Cannot read ${path}: ${String((err as Error).message).split("\n")[0]}` };
  }
  const file = parseSummaryFile(text, path);
  if ("why" in file) return file;
  const verdicts = new Map<string, ReplayVerdict[]>();
  const ledgers = new Map<string, string>();
  for (const t of file.trials) {
    ledgers.set(`${packetName(t.packet ?? "")}/${ledgerFileName(t.name)}`, t.key);
    const list = verdicts.get(t.key) ?? [];
    for (const arm of Object.keys(t.arms) as Arm[]) {
      const steps: Record<string, number> = {};
      for (const [id, fired] of Object.entries(t.arms[arm]?.rules ?? {})) {
        const first = Math.min(...fired.calls.map((c) => c.step));
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
    verdicts.set(t.key, list);
  }
  return { verdicts, ledgers };
}
