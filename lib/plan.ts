/** Role plans for the plan arm: operating principles and an ordered workflow per seat and phase. */
import type { Phase, Seat } from "./seat.ts";

/** The most context the plan may add, in characters. */
export const PLAN_BUDGET = 10_000;

const WORKFLOW: Record<Seat, string[]> = {
  provider: [
    "Find the target patient and order (chart_search_patients, chart_list_candidate_orders); match every fact of the referral.",
    "Create exactly one case from the order (cases_create_from_order) with codes copied verbatim from the order.",
    "Read the governing policy and the chart; decide the disposition before packaging anything.",
    "Record auth_finalize_provider_determination with final_action and a specific rationale.",
    "Only when final_action is submit_pa: build the bundle (docs_create_submission_bundle), then auth_submit_authorization.",
  ],
  payer: [
    "Find the case in the queue and read its state before acting.",
    "Work the current phase to its decision; every decision carries a criteria-based rationale.",
    "Finalize the determination yourself (determination_finalize), consistent with its source decision.",
    "Generate the letter matching the determination, audit it, and deliver it.",
  ],
  cm: [
    "Open the referral's case (cm_intake_open_case) and use the returned case id.",
    "Review the chart, run the outreach call, complete the assessment.",
    "Draft and save a care plan with SMART goals, owned and dated interventions, escalation conditions and cadence.",
    "Finalize the care plan (cm_care_plan_finalize).",
  ],
};

/** The plan text for a seat and phase, within the budget; empty when the seat is unknown. */
export function rolePlan(seat: Seat | null, phase: Phase | null): string {
  if (!seat) return "";
  const steps = WORKFLOW[seat].map((s, i) => `${i + 1}. ${s}`).join("\n");
  const text = `## fiable-agent role plan (${seat}${phase ? `, ${phase}` : ""})\n${steps}\n` +
    "Touch only the target case; copy identifiers from results; after an error, re-read state instead of repeating the call.";
  return text.slice(0, PLAN_BUDGET);
}
