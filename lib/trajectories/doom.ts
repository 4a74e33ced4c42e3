/**
 * The doom model: for each verifier check, the calls that make it impossible to pass once they have
 * executed, with where that fact comes from. A block helps only if it comes at or before the check's doom:
 * once a submission bundle exists on a case that should be held, `packet_absent` is lost whatever happens
 * next. Replay's time-aware rescue, the coverage report and the dashboard read this one table, beside the
 * closure gate's map (`GATE_PROTECTS`, lib/guard/engine/closure.ts). It lives with replay, its first user: the
 * guard itself never loads it (a live guard cannot know a doom before it happens).
 *
 * A check whose entry names no call is doomed only at the stop (the closure gate blocks there): its calls
 * overwrite, append or can still be made. Replay cannot know which case is the task's target, so it takes
 * the first executed dooming call on any case: never later than the real doom, so a late block is never
 * counted as in time, while a block between a call on another case and the target's own doom may be
 * undercounted.
 */

/** Where a doom fact comes from. */
export type DoomSourceKind = "catalog" | "verifier" | "service" | "observed";

/** One source: the kind and what it says, quoted with its file (χ-Bench's at the chi-bench commit in README). */
export interface DoomSource {
  kind: DoomSourceKind;
  ref: string;
}

/** A call that dooms a check once it has executed (came back without an error, or never came back). */
export interface DoomCall {
  /** Registered `namespace.method`. */
  tool: string;
  /** Only when each named input field holds one of the values. */
  when?: Record<string, readonly string[]>;
  /**
   * Only when each named field of the result holds one of the values (its first `"field": "value"` in the
   * result text): what the server resolved, where the input does not say (a lane the policy picks).
   */
  returns?: Record<string, readonly string[]>;
  /** Only the nth such executed call (default 1, the first). */
  nth?: number;
}

/** One check's doom: the calls that fix it, why, and the sources. */
export interface Doom {
  /** A check ID or pattern, as rules quote them (`judge.*`, `…<kind>`). */
  check: string;
  /** The dooming calls; none: doomed only at the stop. */
  by: readonly DoomCall[];
  /** The calls doom it only when one of these checks failed too (the call's value was the wrong one). */
  withFailed?: readonly string[];
  why: string;
  sources: readonly DoomSource[];
}

const CHI = "actava-ai/chi-bench:src/chi_bench";
const catalog = (ref: string): DoomSource => ({ kind: "catalog", ref: `tools.json ${ref}` });
const verifier = (file: string, ref: string): DoomSource => ({
  kind: "verifier",
  ref: `${CHI}/verifier/stages/${file} ${ref}`,
});
const service = (file: string, ref: string): DoomSource => ({
  kind: "service",
  ref: `${CHI}/services/${file} ${ref}`,
});
const checks = (ref: string): DoomSource => ({ kind: "catalog", ref: `checks.tsv ${ref}` });
/**
 * A line of χ-Bench's source that says so: `path` below src/chi_bench, its line and the text quoted from it
 * (tests/doom.ts reads each quote at its line in ../shared/sources/chi-bench).
 */
const line = (kind: "verifier" | "service", path: string, at: number, quote: string): DoomSource => ({
  kind,
  ref: `${CHI}/${path}:${at} “${quote}”`,
});

const CREATE = "cases.create_from_order";
const BUNDLE = "docs.create_submission_bundle";
const SUBMIT = "auth.submit_authorization";
const FINALIZE_PROVIDER = "auth.finalize_provider_determination";
const MD_DECISION = "review.submit_md_case_decision";
const NURSE_RECOMMENDATION = "review.submit_nurse_case_recommendation";
const DETERMINATION = "determination.finalize";
const OUTCOME = "p2p.record_outcome";
const SUMMARY = "p2p_session.submit_summary";
const DISENROLL = "cm_intake.disenroll_case";
const ROUTE = "triage.route_case";

/** A request_info pend: the case goes back to the provider and no determination can follow. */
const PENDS: DoomCall[] = [
  { tool: MD_DECISION, when: { decision: ["request_info"] } },
  { tool: NURSE_RECOMMENDATION, when: { recommendation: ["request_info"] } },
];
const P2P_DONE: DoomCall[] = [{ tool: OUTCOME }, { tool: SUMMARY }];
/**
 * A fast-track route (the gold-card or notification-only lane, named by override_target or resolved from the
 * policy, as the result's routing record says): routing alone finalizes an approved determination.
 */
const FAST_LANES = ["gold_card_lane", "notification_only_lane"];
const FAST_TRACK: DoomCall[] = [
  { tool: ROUTE, when: { override_target: FAST_LANES } },
  { tool: ROUTE, returns: { recommended_target: FAST_LANES } },
];
const FAST_TRACK_SOURCES: DoomSource[] = [
  line("service", "core/context.py", 4068, "# Fast-track lanes: routing alone finalizes the determination."),
  line("service", "core/context.py", 4080, "self.determination.finalize_fast_track_approval("),
  line("service", "services/determination.py", 404, 'source="triage_auto_approve",'),
  line(
    "service",
    "services/determination.py",
    148,
    '"A determination has already been finalized for this case."',
  ),
];
const CM_WRITES = [
  "cm_intake.open_case",
  DISENROLL,
  "cm_chart.submit_chart_review",
  "cm_outreach.start_outreach_call",
  "cm_outreach.send_message",
  "cm_outreach.end_outreach_call",
  "cm_assessment.start_assessment",
  "cm_assessment.save_section",
  "cm_assessment.complete_assessment",
  "cm_care_plan.create_draft",
  "cm_care_plan.save_care_plan",
  "cm_care_plan.finalize",
];

const SUBMITTED_REFUSES = catalog(
  "auth_finalize_provider_determination: recall “raises after submitted/closed”; auth_submit_authorization: " +
    "docs_needed/ready_to_submit → submitted, irreversible",
);
const AT_STOP_NA = "always not applicable in v1.0.0 (checks.tsv); no call modelled";

function many(ids: readonly string[], rest: Omit<Doom, "check">): Doom[] {
  return ids.map((check) => ({ check, ...rest }));
}

/** Every check the rules, judges and closure gate protect, and every deterministic check v1.0.0 emits. */
export const DOOMS: readonly Doom[] = [
  ...many(
    ["new_referral.service_request_created", "new_referral.case_created", "cross.forward_transitions"],
    {
      by: [{ tool: CREATE, nth: 2 }],
      why:
        "a second case from the order mints a second ServiceRequest and case, which no tool removes; the " +
        "verifier then cannot resolve the one target case",
      sources: [
        catalog("cases_create_from_order: irreversible, recall “duplicates: mints another case”"),
        checks("service_request_created: “0 or >=2 fail”"),
        verifier("cross_stage.py", "forward_transitions is false when the target case does not resolve"),
      ],
    },
  ),
  ...many([
    "new_referral.procedure_code",
    "new_referral.service_type",
    "new_referral.site_of_service",
    "new_referral.required_diagnosis_codes",
  ], {
    by: [{ tool: CREATE }],
    why: "the ServiceRequest's codes are set when the case is created from the order: no tool edits them, " +
      "and a second creation fails the one-request checks",
    sources: [
      catalog("cases_create_from_order: irreversible; no tool in the catalog updates a ServiceRequest"),
      checks("procedure_code: “False also when no unique SR”"),
    ],
  }),
  {
    check: "new_referral.case_status",
    by: [{ tool: SUBMIT }, { tool: FINALIZE_PROVIDER, when: { final_action: ["do_not_submit"] } }],
    why: "submitted and closed are final for the provider: a later determination is refused, so the " +
      "expected docs_needed, closed or submitted can no longer be reached",
    sources: [
      SUBMITTED_REFUSES,
      catalog(
        "auth_finalize_provider_determination: terminal_when “do_not_submit (case closed, irreversible)”",
      ),
      checks("case_status: submit_pa→submitted, gather_more_evidence→docs_needed, do_not_submit→closed"),
    ],
  },
  {
    check: "provider_pre_submission.provider_determination_present",
    by: [{ tool: SUBMIT }],
    why: "once the case is submitted, auth_finalize_provider_determination is refused, so no determination " +
      "can be recorded",
    sources: [SUBMITTED_REFUSES],
  },
  {
    check: "provider_pre_submission.final_action",
    by: [{ tool: SUBMIT }, { tool: FINALIZE_PROVIDER, when: { final_action: ["do_not_submit"] } }],
    why: "the verifier reads the latest determination; after a submission or a do_not_submit (the case " +
      "closed) no later finalize is accepted",
    sources: [
      SUBMITTED_REFUSES,
      verifier(
        "provider_pre_submission.py",
        "final_action: the latest finalize_provider_determination audit",
      ),
    ],
  },
  {
    check: "provider_pre_submission.packet_absent",
    by: [{ tool: BUNDLE }, { tool: SUBMIT }],
    why: "any submission_bundle document or submit_authorization audit on the case fails it, and no tool " +
      "removes either",
    sources: [
      verifier(
        "provider_pre_submission.py",
        "packet_absent: no submission packet, no submission_bundle document, no package artifact, no " +
          "submit_authorization audit",
      ),
      catalog("docs_create_submission_bundle: irreversible, recall “appends: new DOC-BUNDLE each call”"),
      {
        kind: "observed",
        ref:
          "every resolved hold-expected trial that bundled failed it: 77 of 77 in unpublished Claude Code " +
          "runs (issue 29); per packet in README",
      },
    ],
  },
  {
    check: "provider_pre_submission.required_documents_present",
    by: [],
    why: "documents can be uploaded at any time and the verifier reads the case's documents at the end",
    sources: [catalog("docs_upload_evidence: recall “appends: new document each call”, no state transition")],
  },
  {
    check: "provider_pre_submission.document_absent.<kind>",
    by: [{ tool: "docs.upload_evidence" }, { tool: "docs.upload_evidence_file" }],
    why:
      "an uploaded document of a kind that must be absent cannot be removed; replay takes the first upload, " +
      "since it cannot know the hidden kind",
    sources: [catalog("docs_upload_evidence: appends; the catalog has no delete"), checks("document_absent")],
  },
  {
    check: "cross.closed_backed_by_provider_determination",
    by: [{ tool: SUBMIT }],
    why: "it needs a do_not_submit determination on the case, and none can be recorded once it is submitted",
    sources: [SUBMITTED_REFUSES, verifier("cross_stage.py", "a do_not_submit provider_determination exists")],
  },
  {
    check: "cross.forbidden_mutations",
    by: [
      SUBMIT,
      "auth.respond_to_pend",
      "auth.file_appeal",
      "auth.file_external_appeal",
      "docs.upload_evidence",
      "payer_portal.upload",
      "payer_portal.appeal",
      "payer_api_gateway.attach_supporting_info",
      "payer_edi_gateway.submit_275_attachment_ref",
      "payer_fax_room.attach",
    ].map((tool) => ({ tool })),
    why: "an audit row of a counted mutation on a forbidden case stays; replay cannot tell which case is " +
      "forbidden and takes the first such call on any case. The verifier counts only its _MUTATION_ACTIONS: " +
      "a submission bundle (audit create_submission_bundle) and a file upload (upload_evidence_file) are not " +
      "among them, upload_evidence is (its create_document row), and auth_request_peer_to_peer always raises",
    sources: [
      line("verifier", "verifier/stages/cross_stage.py", 18, "_MUTATION_ACTIONS = frozenset("),
      line(
        "verifier",
        "verifier/stages/cross_stage.py",
        52,
        'log.get("action") in _MUTATION_ACTIONS and log.get("case_id") in forbidden_ids',
      ),
      line("service", "services/docs.py", 278, '"create_submission_bundle",'),
      line("service", "services/docs.py", 580, '"upload_evidence_file",'),
      line(
        "service",
        "services/docs.py",
        389,
        '"create_document" if not source_slot_keys else "create_authored_document",',
      ),
      line(
        "service",
        "services/auth.py",
        692,
        '"Peer-to-peer review is initiated by the payer during MD review when applicable."',
      ),
    ],
  },
  {
    check: "cm.cross_stage.no_forbidden_mutations",
    by: CM_WRITES.map((tool) => ({ tool })),
    why: "an audit row on a forbidden case stays; replay cannot tell which case is forbidden and takes the " +
      "first CM write on any case",
    sources: [checks("cm.cross_stage.no_forbidden_mutations: any cm_* call on another case id")],
  },
  ...many([
    "intake.case_exists",
    "intake.diagnoses_match",
    "intake.provider_npi_matches",
    "intake.line_items_populated",
    "intake.decision_request_complete",
    "intake.decision_member_eligible",
    "intake.decision_service_covered",
    "intake.audit",
  ], {
    by: [],
    why:
      "the intake hub's saves and payer_intake_hub_confirm_decisions overwrite, so a wrong answer can be " +
      "corrected until the stop",
    sources: [catalog("payer_intake_hub_confirm_decisions: recall “overwrites”; save_* overwrite or merge")],
  }),
  ...many(["triage.disposition_matches", "triage.urgency_matches", "triage.gold_card_matches"], {
    by: [{ tool: "triage.set_disposition" }],
    why: "one triage record per case: a second triage_set_disposition is refused",
    sources: [catalog("triage_set_disposition: irreversible, recall “raises (already been set)”")],
  }),
  ...many(["triage.record_exists", "triage.route_matches", "triage.audit"], {
    by: [],
    why: "triage_route_case appends a new routing record (the latest counts), so routing can be done or " +
      "redone until the stop",
    sources: [catalog("triage_route_case: recall “appends a new routing record”")],
  }),
  {
    check: "nurse.reviews_exist",
    by: [],
    why: "review_save_criteria_evaluation appends at any time",
    sources: [service("review.py", "save_criteria_evaluation: no status check")],
  },
  ...many(["nurse.recommendation_exists", "nurse.audit"], {
    by: [],
    why:
      "the recommendation is refused only once one exists, so a missing one can be submitted until the stop",
    sources: [service("review.py", "submit_nurse_case_recommendation: refused only when one exists")],
  }),
  {
    check: "nurse.no_unauthorized_denial",
    by: [{ tool: NURSE_RECOMMENDATION }],
    why: "one nurse recommendation per case, never amended",
    sources: [catalog(
      "review_submit_nurse_case_recommendation: irreversible, recall “raises (already been " +
        "submitted)”",
    )],
  },
  ...many(["md.decision_exists", "md.audit"], {
    by: [],
    why: "review_submit_md_case_decision is refused only once a decision exists, so a missing one can be " +
      "made until the stop",
    sources: [service("review.py", "submit_md_case_decision: one per case")],
  }),
  ...many(["md.signed_off", "md.rationale_present", "md.denial_rationale_present"], {
    by: [{ tool: MD_DECISION }],
    why: "one MD decision per case, never amended: its sign-off and rationales are those of that call",
    sources: [
      catalog("review_submit_md_case_decision: irreversible, recall “raises (already been submitted)”"),
      service("review.py", "“One active MdCaseDecision per case; cannot be amended.”"),
    ],
  }),
  {
    check: "md.role_compliance",
    by: [{ tool: DETERMINATION, when: { decision: ["denied"] } }],
    why: "the verifier reads the review_decisions rows, which determination_finalize writes (not the MD " +
      "decision): a denial finalized by an actor whose role is not physician_reviewer stays, since the " +
      "determination is write-once; an approval's row is no denial",
    sources: [
      line(
        "verifier",
        "verifier/stages/md_review.py",
        225,
        'and rd.get("reviewer_role") != "physician_reviewer"',
      ),
      line(
        "service",
        "services/determination.py",
        267,
        "DeterminationDecision.DENIED: DecisionOutcome.DENIED,",
      ),
      line("service", "services/determination.py", 275, "reviewer_role=reviewer_role.value,"),
      line(
        "service",
        "services/determination.py",
        148,
        '"A determination has already been finalized for this case."',
      ),
    ],
  },
  {
    check: "p2p.request_exists",
    by: [{ tool: MD_DECISION }],
    why: "only the MD's p2p_review decision opens the request, and the decision is write-once",
    sources: [catalog("review_submit_md_case_decision: p2p_review creates P2P-<hex8>; write-once")],
  },
  ...many([
    "p2p.offer_written",
    "p2p.slot_response_written",
    "p2p.confirmation_written",
    "p2p.event_opened",
    "p2p.turns_recorded",
    "p2p.required_file_sequence_present",
    "p2p.audit",
    "outcome.p2p_scheduled",
  ], {
    by: P2P_DONE,
    why: "the outcome completes the request; offering, scheduling and turns are refused after it",
    sources: [
      catalog("p2p_record_outcome / p2p_session_submit_summary: p2p_request → completed, irreversible"),
      catalog(
        "p2p_schedule: recall “raises after event_open”; p2p_session_send_turn: “raises … after " +
          "finalization”",
      ),
    ],
  }),
  ...many(["p2p.required_file_sequence_ordered", "p2p.audit_chronology"], {
    by: [{ tool: "p2p.schedule" }, { tool: "p2p_session.send_turn" }, ...P2P_DONE],
    why: "a file or audit action written out of order stays; replay takes the first step after the offer " +
      "that could be out of order",
    sources: [checks("required_file_sequence_ordered, audit_chronology: offer → schedule → outcome")],
  }),
  ...many(["p2p.result_recorded", "outcome.p2p_outcome_matches"], {
    by: P2P_DONE,
    why: "the outcome is recorded once: p2p_record_outcome is refused after completion and " +
      "p2p_session_submit_summary records the outcome only once",
    sources: [
      catalog(
        "p2p_record_outcome: recall “raises (already completed)”; p2p_session_submit_summary: " +
          "“outcome recorded only once”",
      ),
    ],
  }),
  {
    check: "outcome.p2p_has_notes",
    by: [],
    why: "p2p_session_submit_summary overwrites the summary with no finalized guard, so notes can be added " +
      "until the stop",
    sources: [catalog("p2p_session_submit_summary: recall “overwrites summary/result (no finalized guard)”")],
  },
  ...many(["p2p.session_exists", "p2p.thread_state_consistent"], {
    by: [],
    why: "written by the simulator's runtime, not by an agent call",
    sources: [checks("p2p.session_exists, thread_state_consistent: runtime-written")],
  }),
  ...many([
    "p2p.summary_written",
    "p2p.offer_slots_match_contract",
    "p2p.offer_artifact_slots_match_contract",
    "p2p.selected_slot_present",
    "p2p.selected_slot_in_offered_slots",
    "p2p.selected_slot_matches_rule",
    "p2p.confirmation_matches_selected_slot",
  ], { by: [], why: AT_STOP_NA, sources: [checks("notes")] }),
  {
    check: "p2p.determination_matches_contract",
    by: [{ tool: DETERMINATION }],
    why: "determination_finalize is write-once",
    sources: [catalog("determination_finalize: irreversible, recall “raises (already been finalized)”")],
  },
  ...many([
    "outcome.target_status",
    "outcome.determination_exists",
    "outcome.determination_source_exists",
    "outcome.source_recommendation_consistent",
    "outcome.review_decision_exists",
    "outcome.review_decision_matches",
    "outcome.terminal_transition_exists",
    "outcome.determination_stage_trace",
    "outcome.determination_finalize_audit",
    "outcome.clean_determination",
    "outcome.authorization_number",
    "outcome.audit_auth_number",
    "outcome.determination_decision_matches",
    "outcome.determination_has_rationale",
  ], {
    by: [{ tool: DETERMINATION }, ...PENDS, ...FAST_TRACK],
    why:
      "determination_finalize is write-once, a fast-track route finalizes an approval itself, and after a " +
      "request_info pend no determination can be finalized",
    sources: [
      catalog("determination_finalize: irreversible, recall “raises (already been finalized)”"),
      ...FAST_TRACK_SOURCES,
      catalog(
        "review_submit_md_case_decision: terminal_when “request_info: … no determination.finalize " +
          "possible afterwards”",
      ),
    ],
  }),
  {
    check: "outcome.letter_types",
    by: [{ tool: DETERMINATION }, ...PENDS, ...FAST_TRACK],
    withFailed: ["outcome.target_status"],
    why:
      "a decision letter needs a finalized determination of the same decision and a pend letter a pended " +
      "case, so once the decision is fixed wrong (target_status failed too) the expected letter cannot be " +
      "made; with the right decision a missing letter can be generated until the stop",
    sources: [service(
      "letters.py",
      "_check_letter_preconditions: the letter type must match the latest " +
        "finalized determination; pend needs pended_action_required",
    )],
  },
  ...many([
    "cm.chart_review.record_exists",
    "cm.assessment.record_exists",
    "cm.assessment.completed",
    "cm.care_plan.record_exists",
    "cm.care_plan.finalized",
    "cm.cross_stage.target_status",
    "cm.cross_stage.audit_actions",
  ], {
    by: [{ tool: DISENROLL }],
    why: "disenrolled is terminal: the workflow chain cannot continue to a closed case",
    sources: [
      catalog("cm_intake_disenroll_case: terminal, irreversible, recall “raises (terminal state)”"),
      checks("cm.cross_stage.target_status: “every cm_intake_disenroll_case in the runs scored 0”"),
    ],
  }),
  {
    check: "cm.assessment.required_sections_present",
    by: [],
    why: "a section can be saved at any time, even after completion",
    sources: [service("cm_assessment.py", "save_section: no status check")],
  },
  ...many([
    "cm.care_plan.problem_count",
    "cm.care_plan.goal_structure",
    "cm.care_plan.intervention_structure",
    "cm.care_plan.escalation_conditions_present",
    "cm.care_plan.follow_up_cadence_present",
  ], {
    by: [],
    why:
      "save_care_plan replaces the plan body with no status check, even after finalize, and the verifier " +
      "reads the plan at the end",
    sources: [service("cm_care_plan.py", "save_care_plan: no status check")],
  }),
  {
    check: "judge.*",
    by: [],
    why:
      "a judge rubric, scored from the whole record at the end; the rescue estimate counts deterministic " +
      "checks only",
    sources: [checks("kind judge")],
  },
];

/** True when a check ID matches a protected pattern (exact, `prefix*` or a `<kind>` family slot). */
export function checkMatches(pattern: string, id: string): boolean {
  if (pattern === id) return true;
  if (!/[*<]/.test(pattern)) return false;
  const re = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/<[^>]*>/g, "[^.]+");
  return new RegExp(`^${re}$`).test(id);
}

const EXACT = new Map(DOOMS.map((d) => [d.check, d]));
const PATTERNS = DOOMS.filter((d) => /[*<]/.test(d.check));

/** The doom entry of a check (exact first, then a pattern), or undefined when the model has none. */
export function doomOf(check: string): Doom | undefined {
  return EXACT.get(check) ?? PATTERNS.find((d) => checkMatches(d.check, check));
}

/**
 * A dooming call as text: `auth.finalize_provider_determination(final_action=do_not_submit)`, `→ field=value`
 * for what its result must say, `#2` for the nth.
 */
export function doomCallText(by: DoomCall): string {
  const pairs = (r?: Record<string, readonly string[]>) =>
    Object.entries(r ?? {}).map(([k, v]) => `${k}=${v.join("|")}`).join(", ");
  const when = pairs(by.when);
  const returns = pairs(by.returns);
  return `${by.tool}${when ? `(${when})` : ""}${returns ? ` → ${returns}` : ""}${
    by.nth ? ` #${by.nth}` : ""
  }`;
}

/** A recorded call, as far as the doom model reads it. */
export interface DoomableCall {
  tool: string | null;
  input: Record<string, unknown>;
  /** True when the call came back as an error: it did not execute. */
  isError: boolean;
  /** The result text, when one came back (what `returns` reads). */
  text?: string;
}

/** The first `"field": "value"` (or `'field': 'value'`) in a result text. */
function resultField(text: string, field: string): string | undefined {
  const m = new RegExp(`["']${field}["']\\s*:\\s*["']([^"']*)["']`).exec(text);
  return m?.[1];
}

function matches(call: DoomableCall, by: DoomCall): boolean {
  if (call.tool !== by.tool || call.isError) return false;
  const said = Object.entries(by.when ?? {}).every(([field, values]) =>
    values.includes(String(call.input[field]))
  );
  return said && Object.entries(by.returns ?? {}).every(([field, values]) => {
    const value = resultField(call.text ?? "", field);
    return value !== undefined && values.includes(value);
  });
}

/**
 * The index in `calls` of the first executed call that dooms `check`, or null when it is doomed only at the
 * stop (no entry, no such call, or `withFailed` and none of those checks in `failed`).
 */
export function doomIndex(
  check: string,
  calls: readonly DoomableCall[],
  failed: readonly string[],
): number | null {
  const doom = doomOf(check);
  if (!doom?.by.length) return null;
  if (doom.withFailed && !doom.withFailed.some((c) => failed.includes(c))) return null;
  let first: number | null = null;
  for (const by of doom.by) {
    let seen = 0;
    for (let i = 0; i < calls.length && (first === null || i < first); i++) {
      if (matches(calls[i], by) && ++seen === (by.nth ?? 1)) {
        first = i;
        break;
      }
    }
  }
  return first;
}
