/** Every contract rule, as an explicit list (static imports, so the Node bundle carries them all). */
import type { Rule } from "../lib/guard/engine/rule.ts";
import { rule as caseLock } from "./case_lock.ts";
import { rule as unseenCaseId } from "./unseen_case_id.ts";
import { rule as seatNamespace } from "./seat_namespace.ts";
import { rule as partyIdUnseen } from "./party_id_unseen.ts";
import { rule as artifactIdUnseen } from "./artifact_id_unseen.ts";
import { rule as terminalAfterFailedGate } from "./terminal_after_failed_gate.ts";
import { rule as submitAfterDetermination } from "./submit_after_determination.ts";
import { rule as noPacketAfterNonSubmit } from "./no_packet_after_non_submit.ts";
import { rule as evidenceGapSubmit } from "./evidence_gap_submit.ts";
import { rule as oneCasePerOrder } from "./one_case_per_order.ts";
import { rule as codesFromChart } from "./codes_from_chart.ts";
import { rule as determinationRationale } from "./determination_rationale.ts";
import { rule as submitWithBundle } from "./submit_with_bundle.ts";
import { rule as finalizeHasSource } from "./finalize_has_source.ts";
import { rule as finalizeMatchesSource } from "./finalize_matches_source.ts";
import { rule as p2pBeforeFinalize } from "./p2p_before_finalize.ts";
import { rule as mdDecisionRationale } from "./md_decision_rationale.ts";
import { rule as mdDecisionSigned } from "./md_decision_signed.ts";
import { rule as nurseApproveAllMet } from "./nurse_approve_all_met.ts";
import { rule as nurseCannotDeny } from "./nurse_cannot_deny.ts";
import { rule as oneDecisionPerCase } from "./one_decision_per_case.ts";
import { rule as p2pOutcomeNeedsSession } from "./p2p_outcome_needs_session.ts";
import { rule as letterMatchesDetermination } from "./letter_matches_determination.ts";
import { rule as noReviewWithoutLane } from "./no_review_without_lane.ts";
import { rule as triageAfterIntake } from "./triage_after_intake.ts";
import { rule as goldCardFromCheck } from "./gold_card_from_check.ts";
import { rule as reviewAfterRouting } from "./review_after_routing.ts";
import { rule as nurseEvaluationFirst } from "./nurse_evaluation_first.ts";
import { rule as p2pOfferBeforeSchedule } from "./p2p_offer_before_schedule.ts";
import { rule as p2pOutcomeHasNotes } from "./p2p_outcome_has_notes.ts";
import { rule as smartGoals } from "./smart_goals.ts";
import { rule as interventionOwnerTiming } from "./intervention_owner_timing.ts";
import { rule as programProblemCount } from "./program_problem_count.ts";
import { rule as consentedMemberContinues } from "./consented_member_continues.ts";
import { rule as escalationAndCadence } from "./escalation_and_cadence.ts";
import { rule as assessmentBeforePlan } from "./assessment_before_plan.ts";
import { rule as noDisenroll } from "./no_disenroll.ts";
import { rule as openCaseFirst } from "./open_case_first.ts";
import { rule as consentMatchesEngagement } from "./consent_matches_engagement.ts";
import { rule as sectionsBeforeComplete } from "./sections_before_complete.ts";

/** All rules in ID order: GLOBAL, then provider (PP), payer (UM), care manager (CM). */
export const RULES: readonly Rule[] = [
  caseLock,
  unseenCaseId,
  seatNamespace,
  partyIdUnseen,
  artifactIdUnseen,
  terminalAfterFailedGate,
  submitAfterDetermination,
  noPacketAfterNonSubmit,
  evidenceGapSubmit,
  oneCasePerOrder,
  codesFromChart,
  determinationRationale,
  submitWithBundle,
  finalizeHasSource,
  finalizeMatchesSource,
  p2pBeforeFinalize,
  mdDecisionRationale,
  mdDecisionSigned,
  nurseApproveAllMet,
  nurseCannotDeny,
  oneDecisionPerCase,
  p2pOutcomeNeedsSession,
  letterMatchesDetermination,
  noReviewWithoutLane,
  triageAfterIntake,
  goldCardFromCheck,
  reviewAfterRouting,
  nurseEvaluationFirst,
  p2pOfferBeforeSchedule,
  p2pOutcomeHasNotes,
  smartGoals,
  interventionOwnerTiming,
  programProblemCount,
  consentedMemberContinues,
  escalationAndCadence,
  assessmentBeforePlan,
  noDisenroll,
  openCaseFirst,
  consentMatchesEngagement,
  sectionsBeforeComplete,
] as Rule[];
