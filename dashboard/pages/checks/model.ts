/**
 * The Checks page's model: each verifier check that failed in a trial, its failures per arm, what protects it
 * (a rule's `protects`, a decisive judge's, the closure gate's obligations in `GATE_PROTECTS`: the traces
 * replay counts with), the calls that doom it (lib/trajectories/doom.ts), and per replay arm how many of its
 * failures a protecting block came in time for (replay's verdicts, counted by verdict.ts's summarizeChecks).
 */
import { RULES } from "../../../rules/mod.ts";
import { type CheckInfo, CHECKS } from "../../../rules/catalog/checks.ts";
import { JUDGES } from "../../../lib/guard/engine/judges/mod.ts";
import { GATE_PROTECTS } from "../../../lib/guard/engine/closure.ts";
import { checkMatches, doomCallText, doomOf } from "../../../lib/trajectories/doom.ts";
import type { CheckCounts } from "../../../lib/trajectories/verdict.ts";
import { GATE } from "../../read/ledgers.ts";
import type { Row } from "../../read/model.ts";

/** Something whose block protects a check: the id the Trials rule filter takes, and what it is. */
export interface CheckProtector {
  id: string;
  kind: "rule" | "judge" | "gate";
  name: string;
}

/** One failed check across the trials. */
export interface CheckRow {
  id: string;
  /** Its catalog entry (stage, kind, preventable), when the catalog has it. */
  info: CheckInfo | null;
  /** Arm → trials of that arm where it failed. */
  failures: Record<string, number>;
  total: number;
  protectors: CheckProtector[];
  /** The calls that doom it once executed; empty: only the stop. */
  doomedBy: string[];
  /** Those calls doom it only when one of these checks failed too. */
  doomWith: string[];
  /** Replay arm → its failures in replayed, observable trials and the blocks that came in time for them. */
  replay: Record<string, CheckCounts>;
}

const PROTECTORS: (CheckProtector & { checks: readonly string[] })[] = [
  ...RULES.map((r) => ({ id: r.meta.id, kind: "rule" as const, name: r.meta.name, checks: r.meta.protects })),
  // A checkpoint's block protects no check (critic.ts criticHits); the other decisive judges block as rules.
  ...JUDGES.filter((j) => j.meta.enforced && !j.meta.checkpoint).map((j) => ({
    id: j.meta.id,
    kind: "judge" as const,
    name: `${j.meta.name} (critic arm)`,
    checks: j.meta.protects,
  })),
  ...Object.entries(GATE_PROTECTS).map(([obligation, checks]) => ({
    id: GATE,
    kind: "gate" as const,
    name: `closure gate: ${obligation} open at the stop`,
    checks,
  })),
];

/** What protects a check: every rule, decisive judge and gate obligation whose protected ids match it. */
export function protectorsOfCheck(id: string): CheckProtector[] {
  return PROTECTORS.filter((p) => p.checks.some((pattern) => checkMatches(pattern, id)))
    .map(({ id, kind, name }) => ({ id, kind, name }));
}

/**
 * The failed checks of the rows' trials, most failed first, with the replay counts given by replay arm
 * (figures.ts replayCheckCounts).
 */
export function checkRows(
  rows: readonly Row[],
  replay: Record<string, Record<string, CheckCounts>>,
): CheckRow[] {
  const byId = new Map<string, CheckRow>();
  const entry = (id: string): CheckRow => {
    let row = byId.get(id);
    if (!row) {
      const doom = doomOf(id);
      row = {
        id,
        info: CHECKS.find((c) => c.id === id) ?? null,
        failures: {},
        total: 0,
        protectors: protectorsOfCheck(id),
        doomedBy: (doom?.by ?? []).map(doomCallText),
        doomWith: [...doom?.withFailed ?? []],
        replay: {},
      };
      byId.set(id, row);
    }
    return row;
  };
  for (const r of rows) {
    if (r.source !== "trial") continue;
    for (const id of r.failedChecks) {
      const row = entry(id);
      row.failures[r.arm] = (row.failures[r.arm] ?? 0) + 1;
      row.total++;
    }
  }
  for (const [arm, counts] of Object.entries(replay)) {
    for (const [id, c] of Object.entries(counts)) entry(id).replay[arm] = c;
  }
  return [...byId.values()].sort((a, b) => b.total - a.total || a.id.localeCompare(b.id));
}
