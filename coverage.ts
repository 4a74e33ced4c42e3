/**
 * The trace table: which verifier checks each contract rule (and each closure-gate obligation) protects,
 * then every deterministic check the v1.0.0 verifier emits with its protectors and the calls that doom it
 * (lib/trajectories/doom.ts: a block after them is too late), and the totals against the catalog's
 * `preventable = yes` count and the original design's 42.
 *
 *   deno task coverage          # text
 *   deno task coverage --json   # for machines
 */
import { type CheckInfo, CHECKS } from "./rules/catalog/checks.ts";
import { RULES } from "./rules/mod.ts";
import { GATE_PROTECTS } from "./lib/guard/engine/closure.ts";
import { doomCallText, doomOf } from "./lib/trajectories/doom.ts";
import { type CommandSpec, runCli } from "./lib/cli.ts";

/** The command line. */
export const CLI: CommandSpec = {
  name: "coverage",
  summary: "Rule → check IDs, then every deterministic verifier check with the rules that protect it.",
  usage: ["deno task coverage [--json]"],
  options: { json: { type: "boolean", description: "the report as JSON on stdout" } },
  args: "none",
  example: "deno task coverage --json",
};

/** How many deterministic checks the original design set out to protect. */
export const DESIGN_TARGET = 42;

/**
 * Code-defined deterministic checks the v1.0.0 verifier never emits (the check catalog's "not emitted" list): v2/legacy
 * payer checks, three letter checks, appeal checks, and the `provider.*` / `e2e.*` families.
 */
export const NOT_EMITTED_V1: ReadonlySet<string> = new Set([
  "nurse.criteria_items_match",
  "nurse.criteria_results_match",
  "nurse.recommendation_matches",
  "md.decision_matches",
  "md.criteria_items_match",
  "md.criteria_results_match",
  "md.role_compliance",
  "p2p.outcome_matches",
  "p2p.slots_offered",
  "p2p.scheduled",
  "p2p.outcome_recorded",
  "outcome.letter_has_denial_rationale",
  "outcome.letter_has_appeal_info",
  "outcome.letter_has_auth_number",
  "appeal.outcome_matches",
  "appeal.reviewer_independence",
]);
const NOT_EMITTED_FAMILIES = ["provider.", "e2e."];

/** Something that protects checks: a rule (`PP-01`) or a closure-gate obligation (`gate:UM-LETTER`). */
export interface Protector {
  id: string;
  checks: readonly string[];
}

/** One v1.0.0 deterministic check with the protectors that name it. */
export interface CoverageRow {
  id: string;
  stage: string;
  preventable: string;
  by: string[];
  /** The calls that doom it once executed (lib/trajectories/doom.ts); empty: only the stop. */
  doomedBy: string[];
  /** Those calls doom it only when one of these checks failed too. */
  doomWith: string[];
}

/** The whole report. */
export interface CoverageReport {
  protectors: Protector[];
  rows: CoverageRow[];
  totals: {
    rules: number;
    checks: number;
    protected: number;
    preventableYes: number;
    preventableYesProtected: number;
    designTarget: number;
  };
}

/** The concrete deterministic checks the v1.0.0 verifier emits (90 in the catalog). */
export function v1DeterministicChecks(checks: readonly CheckInfo[]): CheckInfo[] {
  return checks.filter((c) =>
    c.kind === "deterministic" && !c.id.includes("<") && !NOT_EMITTED_V1.has(c.id) &&
    !NOT_EMITTED_FAMILIES.some((f) => c.id.startsWith(f))
  );
}

/** Protectors from the rule list and the closure gate, rules first, in ID order. */
export function protectorsOf(
  rules: readonly { meta: { id: string; protects: readonly string[] } }[],
  gate: Record<string, readonly string[]>,
): Protector[] {
  return [
    ...rules.map((r) => ({ id: r.meta.id, checks: r.meta.protects })),
    ...Object.entries(gate).map(([id, checks]) => ({ id: `gate:${id}`, checks })),
  ];
}

/** The coverage report: each v1.0.0 deterministic check with its protectors, and the totals. */
export function coverageReport(protectors: Protector[], checks: readonly CheckInfo[]): CoverageReport {
  const rows = v1DeterministicChecks(checks).map((c) => ({
    id: c.id,
    stage: c.stage,
    preventable: c.preventable,
    by: protectors.filter((p) => p.checks.includes(c.id)).map((p) => p.id),
    doomedBy: (doomOf(c.id)?.by ?? []).map(doomCallText),
    doomWith: [...doomOf(c.id)?.withFailed ?? []],
  }));
  const yes = rows.filter((r) => r.preventable === "yes");
  return {
    protectors,
    rows,
    totals: {
      rules: protectors.filter((p) => !p.id.startsWith("gate:")).length,
      checks: rows.length,
      protected: rows.filter((r) => r.by.length).length,
      preventableYes: yes.length,
      preventableYesProtected: yes.filter((r) => r.by.length).length,
      designTarget: DESIGN_TARGET,
    },
  };
}

/** The report as text: rule → checks, then check → protectors, then totals. */
export function renderCoverage(report: CoverageReport): string {
  const lines = ["Rule → protected checks"];
  for (const p of report.protectors) lines.push(`  ${p.id.padEnd(22)} ${p.checks.join(", ")}`);
  lines.push("", "v1.0.0 deterministic check → protectors (preventable); doomed by");
  for (const r of report.rows) {
    lines.push(`  ${r.id.padEnd(52)} ${r.preventable.padEnd(7)} ${r.by.length ? r.by.join(", ") : "none"}`);
    const doom = r.doomedBy.length ? r.doomedBy.join(" or ") : "the stop only";
    const also = r.doomWith.length ? ` (only when ${r.doomWith.join(" or ")} failed too)` : "";
    lines.push(`  ${"".padEnd(52)} doomed by ${doom}${also}`);
  }
  const t = report.totals;
  lines.push(
    "",
    `Totals: ${t.rules} rules; ${t.protected} of ${t.checks} v1.0.0 deterministic checks protected.`,
    `Preventable (catalog rules/catalog/checks.ts, "yes"): ${t.preventableYesProtected} of ${t.preventableYes} protected.`,
    `Against the original design's ${t.designTarget}: ${t.protected} protected (${
      t.protected >= t.designTarget ? "met" : `${t.designTarget - t.protected} short`
    }).`,
  );
  return lines.join("\n");
}

/** Entry: `deno task coverage [--json]`. */
export function main(args: string[]): number {
  return runCli(CLI, args, (p) => {
    const report = coverageReport(protectorsOf(RULES, GATE_PROTECTS), CHECKS);
    console.log(p.flag("json") ? JSON.stringify(report, null, 2) : renderCoverage(report));
    return 0;
  });
}

if (import.meta.main) Deno.exit(main(Deno.args));
