/**
 * Whether two arms differ by the guard alone. Per arm, what its trials ran: model, harness (result.json's
 * agent_info.name), Claude Code version (agent_info.version), environment, and the arm each trial ran as with
 * its guard coverage (lib/results/integrity.ts). Two arms are comparable when each ran one model, harness, CLI
 * and environment and the two agree; an arm named after a registered arm (stock, critic, …) must have run as
 * that arm. The pilot's verdict is no-result otherwise; plain comparisons carry the same reasons as warnings.
 * Pure: aggregate gathers the facts.
 */
import { ARMS } from "../guard/engine/record.ts";

/** What one arm's trials ran, each value with its count of trials ("unknown" where a trial names none). */
export interface ArmFacts {
  arm: string;
  trials: number;
  model: Record<string, number>;
  harness: Record<string, number>;
  claude_version: Record<string, number>;
  environment: Record<string, number>;
  /** How the trials ran (integrity's label: `critic`, `stock`, `unguarded claude-code`…); null unchecked. */
  ran_as: Record<string, number> | null;
}

/** One trial's facts, as aggregate read them. */
export interface TrialFactsRow {
  model: string | null;
  agent: string | null;
  agentVersion: string | null;
  environment: string | null;
  /** integrity's label of how it ran (lib/results/integrity.ts trialArmLabel); null when unchecked. */
  ranAs: string | null;
}

const UNKNOWN = "unknown";

function tally(values: (string | null)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v ?? UNKNOWN] = (out[v ?? UNKNOWN] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The facts of an arm from its trials. */
export function armFacts(arm: string, trials: readonly TrialFactsRow[]): ArmFacts {
  const checked = trials.every((t) => t.ranAs !== null);
  return {
    arm,
    trials: trials.length,
    model: tally(trials.map((t) => t.model)),
    harness: tally(trials.map((t) => t.agent)),
    claude_version: tally(trials.map((t) => t.agentVersion)),
    environment: tally(trials.map((t) => t.environment)),
    ran_as: checked ? tally(trials.map((t) => t.ranAs)) : null,
  };
}

/** The facts compared, with the words a reason uses. */
const FACTS = [
  ["model", "model"],
  ["harness", "harness"],
  ["claude_version", "Claude Code version"],
  ["environment", "environment"],
] as const;

function listed(values: Record<string, number>): string {
  const entries = Object.entries(values);
  return entries.length === 1 ? entries[0][0] : entries.map(([v, n]) => `${v} (${n})`).join(", ");
}

/**
 * Why an arm is not the registered arm its name claims (an arm named critic whose trials ran unguarded, or as
 * checklist). Whether its guard provably ran is run integrity's (`marked`), not repeated here.
 */
export function roleReasons(a: ArmFacts): string[] {
  if (!(ARMS as readonly string[]).includes(a.arm)) return [];
  if (a.ran_as === null) {
    return [
      `how arm ${a.arm} ran was not checked (--no-tool-calls), so it is not known to be the ${a.arm} arm`,
    ];
  }
  return Object.keys(a.ran_as).some((r) => r !== a.arm)
    ? [`arm ${a.arm} did not run as ${a.arm}: its trials ran as ${listed(a.ran_as)}`]
    : [];
}

/**
 * Why two arms do not differ by the guard alone: a fact that differs between them, or that one of them mixes
 * (several models, CLIs … in one arm), and each arm's role reasons. Empty: comparable.
 */
export function comparability(arm: ArmFacts, control: ArmFacts): string[] {
  const out = [...roleReasons(arm), ...roleReasons(control)];
  for (const [key, words] of FACTS) {
    const a = arm[key], c = control[key];
    const mixed = [arm, control].filter((x) => Object.keys(x[key]).length > 1);
    for (const x of mixed) out.push(`arm ${x.arm} mixes ${words}s: ${listed(x[key])}`);
    if (mixed.length) continue;
    const [va] = Object.keys(a), [vc] = Object.keys(c);
    if (va !== undefined && vc !== undefined && va !== vc) {
      out.push(`the ${words} differs: ${arm.arm} ${va}, ${control.arm} ${vc}`);
    }
  }
  return out;
}
