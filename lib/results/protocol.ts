/**
 * The pre-registered comparisons as data (docs/EVALUATION_PROTOCOL.md, "Hypotheses" and "Analysis"), so one
 * `deno task aggregate --protocol` computes every one of them and the multiplicity correction the protocol
 * names; tests/aggregate.ts holds this list to the protocol's hypothesis table.
 */

/** One comparison: `arm` against `control` on the tasks both share. */
export interface Pair {
  arm: string;
  control: string;
  /** The hypothesis it tests (H1 …), when registered. */
  id?: string;
}

/** A registered comparison, and whether it is in the family the correction covers. */
export interface Registered extends Required<Pair> {
  /** In the family whose McNemar p-values are adjusted together (H1–H3). */
  family: boolean;
}

/** H1–H3 (the corrected family) and H5 (descriptive, run only with the shadow arm). H4 is pass^3 per arm. */
export const REGISTERED: readonly Registered[] = [
  { id: "H1", arm: "checklist", control: "stock", family: true },
  { id: "H2", arm: "plan", control: "stock", family: true },
  { id: "H3", arm: "critic", control: "checklist", family: true },
  { id: "H5", arm: "shadow", control: "stock", family: false },
];

/** The correction the protocol names for the family's McNemar p-values (CIs are reported unadjusted). */
export const CORRECTION = "holm" as const;

/** The registered comparisons whose two arms are both present, and those left out for a missing arm. */
export function registeredAmong(arms: readonly string[]): { pairs: Registered[]; missing: Registered[] } {
  const has = (r: Registered) => arms.includes(r.arm) && arms.includes(r.control);
  return { pairs: REGISTERED.filter(has), missing: REGISTERED.filter((r) => !has(r)) };
}
