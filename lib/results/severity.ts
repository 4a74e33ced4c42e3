/**
 * Which problems fail a command and which only warn, for aggregate and verify alike: a trial that could not
 * be read, or a guard that did not provably run, fails (exit 1); a packet's own bookkeeping (a results.csv
 * that contradicts its trial folders) or trials of several other harnesses read as one group says nothing
 * about the guard, so it warns and exits 0 unless `--strict`.
 */

/**
 * What a problem is about. input: a trial could not be read or scored; integrity: the guard did not provably
 * run (a guarded trial without a ledger or full coverage, a stock trial with hooks, …); packet: a packet's
 * results.csv contradicts its trial folders; mix: trials of several unguarded harnesses in one group;
 * comparability: two compared arms differ by more than the guard (model, harness, CLI, environment, or an
 * arm that did not run as its name says).
 */
export type ProblemKind = "input" | "integrity" | "packet" | "mix" | "comparability";

/** The kinds that warn unless `--strict`. */
export const WARNING_KINDS: readonly ProblemKind[] = ["packet", "mix", "comparability"];

/** True when a problem only warns (a missing kind is an input problem: it fails). */
export function isWarning(p: { kind?: ProblemKind }): boolean {
  return p.kind !== undefined && WARNING_KINDS.includes(p.kind);
}

/** The exit code for a list of problems: 1 on any failure (or any warning with `strict`), else 0. */
export function exitCode(problems: readonly { kind?: ProblemKind }[], strict = false): 0 | 1 {
  return problems.some((p) => strict || !isWarning(p)) ? 1 : 0;
}

/** The `--strict` option, as aggregate and verify take it. */
export const STRICT_OPTION = {
  type: "boolean",
  description: "exit 1 on warnings too (a packet's bookkeeping, other harnesses mixed in one group)",
} as const;

/** The exit-code lines of aggregate's and verify's --help. */
export function exitNotes(written: string): string[] {
  return [
    "Exit codes:",
    `  0  no failure${written}; warnings (a packet's results.csv contradicting its trial folders, trials ` +
    "of several other harnesses in one group, compared arms that differ by more than the guard) are printed " +
    "and listed, and do not fail the command",
    "  1  a guard-integrity failure (a guarded trial without a ledger or below full guard coverage, a stock " +
    "trial with hooks, an arm named two ways, the plan never injected, fail-open errors over the flag) or a " +
    "trial that could not be read; with --strict, any warning too",
    "  2  bad usage (nothing written)",
  ];
}
