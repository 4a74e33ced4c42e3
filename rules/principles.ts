/**
 * The plan arm's principles: one row per decision rule the role plans teach, in workflow order per seat.
 * Answer-blind by construction: every row uses only what an agent can see (its prompt, the chart or case,
 * the handbook, tool results) and the benchmark's public tool semantics, never a hidden expectation.
 * `docs/plans.md` is generated from this table (`deno run -A scripts/plans_doc.ts`).
 */
import type { Phase, Seat } from "../lib/guard/engine/seat.ts";

/** One principle: what to do, where it applies, which verifier checks it protects and why it is true. */
export interface Principle {
  /** `P-ALL-nn`, `P-PROV-nn`, `P-UM-nn`, `P-CM-nn`; quoted by docs and by rules (`RuleMeta.principle`). */
  id: string;
  /** The seat the principle applies to, or `all`. */
  seat: Seat | "all";
  /** Entry phases whose plan carries the principle; `all` for every phase of the seat. */
  phases: readonly Phase[] | "all";
  /** Short imperative text naming tools and arguments the way the model sees them. */
  text: string;
  /** Verifier check IDs (exactly as in rules/catalog/checks.ts) the principle protects. */
  protects: readonly string[];
  /** Where the principle comes from: verifier semantics or a measured failure class. */
  provenance: string;
  /** The rule ID that enforces the principle, when one exists. */
  rule?: string;
}

/** Payer entry phases that still have `stage` ahead: a task carries its case from its entry to the letter. */
function payerThrough(stage: Phase): Phase[] {
  const order: Phase[] = ["intake", "triage", "nurse_review", "mdreview", "p2p"];
  return order.slice(0, order.indexOf(stage) + 1);
}

/** Every principle, all seats first, then provider, payer and care manager, each in workflow order. */
export const PRINCIPLES: readonly Principle[] = [
  {
    id: "P-ALL-01",
    seat: "all",
    phases: "all",
    text:
      "Touch only the target case. Find it by matching every fact in the task prompt; the queue and the " +
      "chart hold look-alike distractors. Once you have written to a case, every later write goes to that " +
      "same case.",
    protects: [
      "cross.forbidden_mutations",
      "cm.cross_stage.no_forbidden_mutations",
      "cross.forward_transitions",
    ],
    provenance: "forbidden mutations (tool catalog); failure class cross_case_mutation (GEN-03)",
    rule: "GLOBAL-01",
  },
  {
    id: "P-ALL-02",
    seat: "all",
    phases: "all",
    text: "Copy every identifier (case, patient, practitioner, order, request, session, letter, document, " +
      "contact) from a tool result; never type a guessed, example or default id.",
    protects: ["cross.forward_transitions", "p2p.audit", "outcome.p2p_scheduled", "outcome.letter_types"],
    provenance:
      "failure class unverified_identifier (GEN-02/04/05); tool catalog: p2p_schedule with unknown " +
      "payer_contact_id",
    rule: "GLOBAL-02",
  },
  {
    id: "P-ALL-03",
    seat: "all",
    phases: "all",
    text:
      "After a tool error, re-read the state with the matching get/list call and fix the cause; never repeat " +
      "the same call unchanged, and make no terminal call while the last gate call is still failing.",
    protects: ["outcome.target_status", "cm.assessment.completed", "cm.cross_stage.target_status"],
    provenance: "failure class premature_terminal (GEN-06); real-trial slips: frequent simulator tool errors",
    rule: "GLOBAL-06",
  },
  {
    id: "P-ALL-04",
    seat: "all",
    phases: "all",
    text:
      "One-shot calls cannot be amended: decide first, then call once. Stop only when the closing call of " +
      "your workflow has succeeded.",
    protects: ["outcome.clean_determination", "new_referral.case_status", "cm.cross_stage.target_status"],
    provenance:
      "tool catalog: irreversible calls; failure class stop_open_obligation (33/33 such stops failed)",
  },
  // Provider prior authorization: one pass from referral to a recorded disposition.
  {
    id: "P-PROV-01",
    seat: "provider",
    phases: ["new_referral"],
    text:
      "Fix the target patient first: chart_search_patients, then chart_get_patient_chart_by_patient for each " +
      "candidate. Match every fact of the referral (age, sex, condition, history, dates, ordering clinician); " +
      "near-identical charts exist, so when two match, read further instead of picking one.",
    protects: [
      "new_referral.service_request_created",
      "new_referral.case_created",
      "cross.forward_transitions",
    ],
    provenance:
      "verifier check catalog: (stage notes): 29 trials created the order on another patient's chart",
  },
  {
    id: "P-PROV-02",
    seat: "provider",
    phases: ["new_referral"],
    text: "Create exactly one case: cases_create_from_order once, with patient_id from the chart, " +
      "ordering_practitioner_id from people_list_ordering_providers and source_order_id from " +
      "chart_list_candidate_orders when an order exists. Continue with the returned case_id; never create a " +
      "second case.",
    protects: [
      "new_referral.service_request_created",
      "new_referral.case_created",
      "new_referral.case_status",
      "cross.forward_transitions",
    ],
    provenance:
      "verifier check catalog: 0 or ≥2 ServiceRequests fail the whole new_referral stage (duplicate_or_contradictory)",
    rule: "PP-04",
  },
  {
    id: "P-PROV-03",
    seat: "provider",
    phases: ["new_referral"],
    text:
      "Fill the order from the ordering documentation: procedure_code verbatim as the order labels it (not a " +
      "drug code, not a code you think is more correct); diagnosis_codes as every charted code that bears on the " +
      "request (a superset is safe); site_of_service from the order, a named facility mapped to its facility " +
      "setting; the most specific service_type the schema offers.",
    protects: [
      "new_referral.procedure_code",
      "new_referral.required_diagnosis_codes",
      "new_referral.service_type",
      "new_referral.site_of_service",
      "judge.provider_pre_submission.submission.service_request",
    ],
    provenance:
      "candidate rule P4 (diagnoses are a subset test); real-trial slips: code judgement (116 trials)",
    rule: "PP-05",
  },
  {
    id: "P-PROV-04",
    seat: "provider",
    phases: ["new_referral"],
    text:
      "Find the governing policy before deciding: the medical policy for the procedure in the handbook's " +
      "medical library, the PA requirement and required document kinds in provider-pa/pa-requirements, and the " +
      "questionnaire from forms_list_required_forms. Write down each criterion.",
    protects: [
      "provider_pre_submission.required_documents_present",
      "judge.provider_pre_submission.evidence.<rubric_id>",
    ],
    provenance: "provider PA happy path; handbook provider-pa lookup recipes",
  },
  {
    id: "P-PROV-05",
    seat: "provider",
    phases: ["new_referral"],
    text:
      "Back each criterion and each required document kind with chart evidence (what, when, where). Answer " +
      'forms_save_form_response truthfully from the chart: "not documented" is a finding that decides the ' +
      "case, not a formality to work around.",
    protects: [
      "judge.provider_pre_submission.submission.rationale_scope",
      "judge.provider_pre_submission.evidence.<rubric_id>",
    ],
    provenance:
      'failure analysis, rule catalogue PP-03: agents submitted while their own answers said "Not documented"',
    rule: "PP-03",
  },
  {
    id: "P-PROV-06",
    seat: "provider",
    phases: ["new_referral"],
    text: "Decide the disposition before packaging: no letter-of-medical-necessity upload, no " +
      "docs_create_submission_bundle and no auth_submit_authorization unless the decision is to submit. A " +
      "completeness or readiness signal from a tool is not the decision.",
    protects: ["provider_pre_submission.packet_absent", "provider_pre_submission.final_action"],
    provenance:
      "verifier check catalog: any bundle or packet fails packet_absent on non-submit cases (165 trials bundled " +
      "or submitted when a hold was expected)",
    rule: "PP-02",
  },
  {
    id: "P-PROV-07",
    seat: "provider",
    phases: ["new_referral"],
    text: "Submitting is the narrow exit: submit when each enumerated criterion of the governing policy is " +
      "met by a chart document the case holds and each required document kind is present; hold when a " +
      "criterion is unmet or not documented in the chart, or a required document kind is missing. What " +
      "decides is each criterion against the chart, not how a letter words the case: a letter that states a " +
      "limitation of the record is ordinary practice. A hold is a complete, correct outcome.",
    protects: [
      "provider_pre_submission.final_action",
      "provider_pre_submission.packet_absent",
      "new_referral.case_status",
    ],
    provenance:
      "failure analysis, failure causes: 44 of 72 failed provider trials submitted where a hold was expected; " +
      "17 of 25 provider tasks expect a hold",
    rule: "PP-03",
  },
  {
    id: "P-PROV-08",
    seat: "provider",
    phases: ["new_referral"],
    text:
      "Choose the hold: do_not_submit when nothing added to the record could make the request approvable " +
      "(coverage inactive on the date of service, a non-covered or unproven service, prior authorization not " +
      "required, an exclusion met); gather_more_evidence when the defect is curable (a missing document kind, a " +
      "therapy trial shorter than the policy asks, a missing prerequisite test or consult).",
    protects: [
      "provider_pre_submission.final_action",
      "cross.closed_backed_by_provider_determination",
      "new_referral.case_status",
    ],
    provenance:
      "verifier semantics (provider PA happy path): gather_more_evidence→docs_needed, do_not_submit→closed",
  },
  {
    id: "P-PROV-09",
    seat: "provider",
    phases: ["new_referral"],
    text: "Always record auth_finalize_provider_determination, on every path: final_action (submit_pa, " +
      "gather_more_evidence or do_not_submit), truthful questionnaire_answers, and an override_reason that " +
      "names the deciding gate, then each criterion with its evidence or its gap. The latest record is the one " +
      "that counts: never re-record a hold as a different hold.",
    protects: [
      "provider_pre_submission.provider_determination_present",
      "cross.closed_backed_by_provider_determination",
      "new_referral.case_status",
    ],
    provenance:
      "real-trial slips: 63 trials never recorded a provider determination; the verifier reads the latest " +
      "final_action",
    rule: "PP-01",
  },
  {
    id: "P-PROV-10",
    seat: "provider",
    phases: ["new_referral"],
    text: "Only on the submit path: docs_upload_evidence for each required document kind, " +
      "docs_create_submission_bundle with those document_ids, auth_finalize_provider_determination with " +
      "final_action=submit_pa and the bundle_document_id, then auth_submit_authorization with a channel and the " +
      "same bundle_document_id. Text you author states only chart facts.",
    protects: [
      "provider_pre_submission.required_documents_present",
      "provider_pre_submission.provider_determination_present",
      "judge.provider_pre_submission.submission.rationale_scope",
    ],
    provenance: "provider PA happy path submit branch as observed in passing runs",
    rule: "PP-07",
  },
  {
    id: "P-PROV-11",
    seat: "provider",
    phases: ["new_referral"],
    text: "Finish with cases_get_case: the status must follow the final action (submit_pa→submitted, " +
      "gather_more_evidence→docs_needed, do_not_submit→closed). Never stop in draft or ready_to_submit.",
    protects: ["new_referral.case_status"],
    provenance: "verifier semantics (the verifier's provider-action stage); failure class " +
      "stop_open_obligation",
  },
  // Payer utilization management: from the entry phase to a delivered letter.
  {
    id: "P-UM-01",
    seat: "payer",
    phases: "all",
    text:
      "Find the target case in payer_intake_hub_list_intake_queue by the prompt's member, clinician and " +
      "service, then read where it stands (payer_intake_hub_get_intake_case, triage_get, review_get_nurse_review_data or " +
      "review_get_md_review_data, determination_get_summary). The prompt's parenthesis names the stages already done: do not redo them.",
    protects: ["cross.forbidden_mutations", "outcome.target_status"],
    provenance: "verifier task and phase detection (completed stages in the prompt); payer UM state machine",
  },
  {
    id: "P-UM-02",
    seat: "payer",
    phases: payerThrough("intake"),
    text:
      "Intake: transcribe from the request documents verbatim: payer_intake_hub_save_requesting_provider with " +
      "the clinician's NPI, payer_intake_hub_save_diagnoses with every diagnosis code (never a reduced list), " +
      "and the line items as requested.",
    protects: ["intake.diagnoses_match", "intake.provider_npi_matches", "intake.line_items_populated"],
    provenance:
      "verifier check catalog: intake (diagnoses are a subset test); real-trial slips: intake judgement",
  },
  {
    id: "P-UM-03",
    seat: "payer",
    phases: payerThrough("intake"),
    text:
      "Intake: decide payer_intake_hub_confirm_decisions explicitly: member_eligible from coverage active on " +
      "the date of service, service_covered from the plan and the policy, request_complete from the documents " +
      "present. Pend only for a named, obtainable missing element.",
    protects: [
      "intake.decision_member_eligible",
      "intake.decision_service_covered",
      "intake.decision_request_complete",
      "intake.audit",
    ],
    provenance:
      "candidate rule U1; payer UM state machine (confirm_decisions is required before determination_finalize)",
  },
  {
    id: "P-UM-04",
    seat: "payer",
    phases: payerThrough("triage"),
    text: "Triage: triage_check_gold_card for the requesting clinician and triage_calculate_sla, then " +
      "triage_set_disposition once with gold_card_eligible exactly as returned, then triage_route_case to the " +
      "policy-derived lane (no override_target). If routing says authorization is not required, go back to the " +
      "intake decisions instead of reviewing.",
    protects: [
      "triage.record_exists",
      "triage.gold_card_matches",
      "triage.route_matches",
      "triage.audit",
      "intake.decision_service_covered",
    ],
    provenance:
      'candidate rule U2; failure analysis, failure causes (route_case "Authorization is not required" ignored, UM-11)',
    rule: "UM-11",
  },
  {
    id: "P-UM-05",
    seat: "payer",
    phases: payerThrough("triage"),
    text: "Gold-card fast track: when the clinician is eligible and the service is not excluded, the route " +
      "itself approves the case. Do not override or review it again; go straight to the approval letter, its " +
      "audit and delivery.",
    protects: ["outcome.letter_types", "outcome.determination_exists", "triage.route_matches"],
    provenance: "verifier check catalog: (stage notes) (fast track writes determination and auth number)",
  },
  {
    id: "P-UM-06",
    seat: "payer",
    phases: payerThrough("nurse_review"),
    text:
      "Nurse review: review_get_nurse_review_data, review_save_criteria_evaluation for every criterion with " +
      "the evidence in notes, then review_submit_nurse_case_recommendation once. Approve only when every " +
      "criterion is met; otherwise escalate (request_info only for a named, obtainable missing element). A " +
      "nurse never denies.",
    protects: [
      "nurse.reviews_exist",
      "nurse.recommendation_exists",
      "nurse.no_unauthorized_denial",
      "nurse.audit",
    ],
    provenance: "verifier check catalog: nurse_review; failure analysis, rule catalogue UM-06/UM-07",
    rule: "UM-06",
  },
  {
    id: "P-UM-07",
    seat: "payer",
    phases: payerThrough("mdreview"),
    text: "MD review: review_get_md_review_data, review_save_md_review for every criterion, then " +
      "review_submit_md_case_decision exactly once. A determination_rationale is required: state each " +
      "criterion with its evidence; add denial_rationale for deny.",
    protects: [
      "md.decision_exists",
      "md.rationale_present",
      "md.denial_rationale_present",
      "md.audit",
      "outcome.determination_has_rationale",
    ],
    provenance: "candidate rule U4; failure class missing_rationale",
    rule: "UM-04",
  },
  {
    id: "P-UM-08",
    seat: "payer",
    phases: payerThrough("mdreview"),
    text:
      "The physician decision is one-shot and signed: approve, deny, partial_approve or request_info with " +
      "signed_off=true (line_item_decisions for partial_approve; info_requested and info_deadline for " +
      "request_info).",
    protects: ["md.signed_off", "md.decision_exists"],
    provenance:
      "verifier check catalog: md.signed_off (102 failures); tool catalog (re-submission is rejected)",
    rule: "UM-05",
  },
  {
    id: "P-UM-09",
    seat: "payer",
    phases: payerThrough("mdreview"),
    text:
      "decision=p2p_review leaves the case unsigned until a peer-to-peer happens: choose it when a peer-to-peer " +
      "exists for the case (p2p_list), the task is a peer-to-peer task, or the provider's submission asks for a " +
      "peer-to-peer before an adverse decision; otherwise sign the decision directly.",
    protects: ["md.signed_off", "p2p.request_exists", "p2p.determination_matches_contract"],
    provenance:
      "real-trial slips: p2p_review where a signed decision was expected (97 trials); failure analysis, failure causes; " +
      "replay of 10 packets: 5 passing nurse-review trials chose p2p_review with no P2P yet (lib/guard/engine/judges/p2p_contract.ts)",
  },
  {
    id: "P-UM-10",
    seat: "payer",
    phases: "all",
    text:
      "Peer-to-peer, in order: p2p_list, p2p_offer_slots, p2p_schedule (payer_contact_id from a result), " +
      "p2p_session_get_context, at least one substantive p2p_session_send_turn on the unresolved criterion, " +
      "then p2p_session_submit_summary or p2p_record_outcome (never both), then finalize consistent with it.",
    protects: [
      "p2p.offer_written",
      "p2p.slot_response_written",
      "p2p.confirmation_written",
      "p2p.event_opened",
      "p2p.turns_recorded",
      "p2p.audit",
      "p2p.audit_chronology",
      "outcome.p2p_scheduled",
      "outcome.p2p_has_notes",
      "judge.p2p:forbidden_shortcuts",
    ],
    provenance: "candidate rule U5; payer UM state machine step 5",
    rule: "UM-03",
  },
  {
    id: "P-UM-11",
    seat: "payer",
    phases: "all",
    text:
      '"No active peer-to-peer session" means no conversation exists: stop calling session tools and never ' +
      "record an outcome or summary for a conversation that did not happen.",
    protects: ["p2p.result_recorded", "p2p.turns_recorded", "outcome.p2p_outcome_matches"],
    provenance:
      "failure class unsupported_p2p_outcome (24 of 25 md.signed_off failures fabricated an outcome)",
    rule: "UM-09",
  },
  {
    id: "P-UM-12",
    seat: "payer",
    phases: "all",
    text:
      "Finalize it yourself: determination_get_summary, then determination_finalize once with the decision " +
      "that maps from its source (approve→approved, deny→denied, partial_approve→partially_approved, nurse " +
      "approve→approved, P2P uphold→denied, overturn→approved). Differ only with overridden=true and an " +
      "override_reason. Not while a peer-to-peer, requested info or MD review is pending.",
    protects: [
      "outcome.determination_exists",
      "outcome.determination_source_exists",
      "outcome.source_recommendation_consistent",
      "outcome.review_decision_exists",
      "outcome.review_decision_matches",
      "outcome.determination_stage_trace",
      "outcome.determination_finalize_audit",
      "outcome.clean_determination",
      "outcome.target_status",
      "p2p.determination_matches_contract",
    ],
    provenance: "candidate rule U6 and the determination checks (63 trials never finalized)",
    rule: "UM-02",
  },
  {
    id: "P-UM-13",
    seat: "payer",
    phases: "all",
    text: "Every finalized decision ends with its letter: payer_letter_center_generate_approval, " +
      "payer_letter_center_generate_denial or payer_letter_center_generate_partial_approval matching the " +
      "determination (payer_letter_center_generate_pend after request_info), then payer_letter_center_audit_completeness and payer_letter_center_deliver with the " +
      "letter_id. A notification is not the decision letter. Stop only after delivery.",
    protects: ["outcome.letter_types", "outcome.target_status"],
    provenance: "real-trial slips: 30 trials finalized and never generated the letter; candidate rule U7",
    rule: "UM-10",
  },
  // Care management: open, review, call, assess, plan, finalize.
  {
    id: "P-CM-01",
    seat: "cm",
    phases: "all",
    text: "Open the case before reading chart data: pick the referral that matches the prompt from " +
      "cm_intake_list_referral_queue (cm_intake_get_referral to confirm), cm_intake_open_case once with " +
      "referral_id, priority and program, then use the returned case_id everywhere.",
    protects: [
      "cm.cross_stage.audit_actions",
      "cm.cross_stage.no_forbidden_mutations",
      "cm.chart_review.record_exists",
    ],
    provenance:
      'real-trial slips: 69 "No CM case found" errors from reading the chart before opening the case',
    rule: "CM-08",
  },
  {
    id: "P-CM-02",
    seat: "cm",
    phases: "all",
    text:
      "cm_chart_get_chart_data, then cm_chart_submit_chart_review with concerns, risks, barriers and a risk " +
      "level grounded in the chart (latest values with their dates, medications, utilization).",
    protects: ["cm.chart_review.record_exists", "judge.cm.chart_review.quality"],
    provenance: "care-management happy path; real-trial slips (33 trials never submitted a chart review)",
  },
  {
    id: "P-CM-03",
    seat: "cm",
    phases: "all",
    text:
      "Use the outreach call fully (cm_outreach_start_outreach_call, then cm_outreach_send_message within the " +
      "turn budget): introduce yourself and ask consent, explain the program, then clinical status, medications " +
      "and adherence, behavioural health, social needs, teach-back and the next contact.",
    protects: ["judge.cm.outreach.quality", "cm.cross_stage.audit_actions"],
    provenance: "verifier check catalog: cm_outreach (judge only); task rules on consent",
  },
  {
    id: "P-CM-04",
    seat: "cm",
    phases: "all",
    text: "cm_outreach_end_outreach_call with a summary object drawn from the transcript " +
      "(cm_outreach_get_transcript); set consent_obtained=true only after the member agreed in the transcript.",
    protects: ["judge.cm.outreach.quality", "cm.cross_stage.audit_actions"],
    provenance: "candidate rule C5 (consent grounding)",
    rule: "CM-09",
  },
  {
    id: "P-CM-05",
    seat: "cm",
    phases: "all",
    text:
      "Every case ends closed through cm_care_plan_finalize, also when the member declines or refuses. Never " +
      "call cm_intake_disenroll_case, and never save an assessment section with blocked_reason for a member who " +
      "consented.",
    protects: [
      "cm.cross_stage.target_status",
      "cm.cross_stage.audit_actions",
      "cm.assessment.completed",
      "cm.care_plan.record_exists",
    ],
    provenance:
      "verifier task and phase detection (all 25 CM tasks expect closed); failure analysis, rule catalogue CM-04; every disenroll scored 0",
    rule: "CM-04",
  },
  {
    id: "P-CM-06",
    seat: "cm",
    phases: "all",
    text: "cm_assessment_start_assessment, then cm_assessment_save_section for clinical, medication, " +
      "behavioral_health and sdoh with payload passed as an object (never a JSON string), then " +
      "cm_assessment_complete_assessment.",
    protects: [
      "cm.assessment.record_exists",
      "cm.assessment.required_sections_present",
      "cm.assessment.completed",
    ],
    provenance: "real-trial slips: 415 schema errors on save_section; tool catalog: nested payloads",
    rule: "CM-10",
  },
  {
    id: "P-CM-07",
    seat: "cm",
    phases: "all",
    text:
      "When the member declines an item or time runs out, record it as not administered with the reason and " +
      "the latest charted value with its date, and add a dated re-screen. Never invent a score.",
    protects: ["judge.cm.assessment.quality", "judge.cm.stage_coherence"],
    provenance: "verifier check catalog: judge.cm.assessment.quality (248 failures, grounding)",
  },
  {
    id: "P-CM-08",
    seat: "cm",
    phases: "all",
    text:
      "cm_care_plan_create_draft, then cm_care_plan_save_care_plan with plan_data as an object with one " +
      "problem for each active problem the chart and assessment support, each traced to its finding.",
    protects: ["cm.care_plan.record_exists", "cm.care_plan.problem_count", "judge.cm.care_plan.quality"],
    provenance:
      "verifier check catalog: problem_count (hidden minimum); tool catalog (plan_data sent as a string 22 times)",
    rule: "CM-03",
  },
  {
    id: "P-CM-09",
    seat: "cm",
    phases: "all",
    text:
      "Make every goal SMART: each problem has goals, each goal has measurable_criteria and a target_date.",
    protects: ["cm.care_plan.goal_structure"],
    provenance: "verifier check catalog: (stage notes) (finalize does not check goals; the verifier does)",
    rule: "CM-01",
  },
  {
    id: "P-CM-10",
    seat: "cm",
    phases: "all",
    text: "Each goal has interventions, and each intervention has an owner and a due_date or frequency.",
    protects: ["cm.care_plan.intervention_structure"],
    provenance: "failure analysis, rule catalogue CM-02 (7 trials)",
    rule: "CM-02",
  },
  {
    id: "P-CM-11",
    seat: "cm",
    phases: "all",
    text:
      "Add escalation_conditions and a follow_up_cadence_kind (weekly, biweekly, monthly or custom); keep chart " +
      "review, outreach, assessment and plan consistent with one another.",
    protects: [
      "cm.care_plan.escalation_conditions_present",
      "cm.care_plan.follow_up_cadence_present",
      "judge.cm.stage_coherence",
    ],
    provenance: "candidate rule C4; failure analysis, rule catalogue CM-05",
    rule: "CM-05",
  },
  {
    id: "P-CM-12",
    seat: "cm",
    phases: "all",
    text: "Finish with cm_care_plan_finalize (care_plan_finalized→closed in one call); stop only after it " +
      "succeeded.",
    protects: ["cm.care_plan.finalized", "cm.cross_stage.target_status", "cm.cross_stage.audit_actions"],
    provenance: "care-management happy path; failure class stop_open_obligation",
  },
];

/** The principles for a seat and entry phase, in table (workflow) order; all seat phases when phase is null. */
export function principlesFor(seat: Seat, phase: Phase | null): Principle[] {
  return PRINCIPLES.filter((p) =>
    (p.seat === "all" || p.seat === seat) &&
    (p.phases === "all" || phase === null || p.phases.includes(phase))
  );
}
