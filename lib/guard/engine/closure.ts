/**
 * The closure gate: per-seat obligations that must be closed before the agent may stop. Kept exactly to
 * failure-analysis §6, where every one of the 33 trials that stopped with one of these open failed (zero
 * false positives); anything looser would block correct runs. Replayed over all ten real packets (700
 * trials, the 400 unseen ones included) it opens in no passing trial; trials whose agent drove the simulator
 * outside MCP are reported as not observable instead (lib/trajectories/replay.ts).
 *
 * Each obligation names the next call that closes it with its ids from the evidence (lib/guard/engine/
 * next_ids.ts). Where the evidence holds no case yet it cannot be complete, and says what to put there: a
 * provider that stops before creating the case gets PP-CASE's lookup and PP-DETERMINATION's call with
 * `case_id=<the case id>` (P10: 19 of its 21 stop blocks); a payer that never looked up one case of the
 * queue's 25 gets UM-DETERMINATION's call with the same placeholder (P2 5, P8 4, P10 9): which case is the
 * task's is for the agent to match against the prompt, not for the gate to guess.
 */
import type { Evidence } from "./evidence.ts";
import { objectArg, okCalls, plainText } from "./facts.ts";
import { callText } from "./next_call.ts";
import { cmNextStep, cmOpenCall, idsOfKind, p2pNextStep, sessionCaseId, withP2pRequest } from "./next_ids.ts";

/** One open obligation: an ID, what is open, and the next call that closes it (ids from the evidence). */
export interface Obligation {
  id: string;
  text: string;
  closes: string;
}

/** The case the session works on as a reason writes it: its id, or what to put there when none is known. */
function caseOr(ev: Evidence): string {
  return sessionCaseId(ev) || "<the case id>";
}

/** An open CM case and an unfinalized care plan protect the same chain: chart review through the audit trail. */
const CM_CASE_CLOSED = [
  "cm.chart_review.record_exists",
  "cm.assessment.record_exists",
  "cm.assessment.completed",
  "cm.assessment.required_sections_present",
  "cm.care_plan.record_exists",
  "cm.care_plan.finalized",
  "cm.cross_stage.target_status",
  "cm.cross_stage.audit_actions",
] as const;

/**
 * The verifier checks each obligation protects (checks.md §10 P3, U6, U7, C3), quoted from rules/catalog/checks.ts:
 * the existence, status, audit and trace checks that closing it writes. Code and care-plan structure checks
 * stay out. Closing UM-DETERMINATION needs the review decision determination_finalize
 * takes as its source, so it protects that decision's existence and audit too; an obligation whose closing
 * raises the next one at the following stop (a finalized case owes its letter, an opened CM case owes its
 * care plan) also protects what that one protects. The one map: replay's rescue bound and the coverage
 * report both read it.
 */
export const GATE_PROTECTS: Record<string, readonly string[]> = {
  "PP-CASE": [
    "new_referral.service_request_created",
    "new_referral.case_created",
    "new_referral.case_status",
    "cross.forward_transitions",
  ],
  "PP-DETERMINATION": [
    "provider_pre_submission.provider_determination_present",
    "provider_pre_submission.final_action",
    "new_referral.case_status",
    "cross.closed_backed_by_provider_determination",
  ],
  "PP-SUBMIT": ["new_referral.case_status", "provider_pre_submission.final_action"],
  "UM-DETERMINATION": [
    "outcome.determination_exists",
    "outcome.determination_source_exists",
    "outcome.source_recommendation_consistent",
    "outcome.review_decision_exists",
    "outcome.review_decision_matches",
    "outcome.determination_stage_trace",
    "outcome.determination_finalize_audit",
    "outcome.terminal_transition_exists",
    "outcome.clean_determination",
    "outcome.authorization_number",
    "outcome.audit_auth_number",
    "outcome.target_status",
    "outcome.letter_types",
    "md.decision_exists",
    "md.audit",
    "nurse.recommendation_exists",
    "nurse.audit",
  ],
  "UM-LETTER": ["outcome.letter_types"],
  "UM-P2P": [
    "p2p.result_recorded",
    "p2p.audit",
    "outcome.p2p_has_notes",
    "outcome.p2p_outcome_matches",
    "p2p.determination_matches_contract",
  ],
  "CM-OPEN": CM_CASE_CLOSED,
  "CM-FINALIZE": CM_CASE_CLOSED,
};

/** The letter tool each finalized decision needs. */
export const LETTERS: Record<string, string> = {
  approved: "payer_letter_center.generate_approval",
  denied: "payer_letter_center.generate_denial",
  partially_approved: "payer_letter_center.generate_partial_approval",
};

/** A triage route result that fast-tracked the case to an approved determination (gold card, notification lane). */
const FAST_TRACK = /"status"\s*:\s*"approved"|authorization_number/;

function providerObligations(ev: Evidence): Obligation[] {
  const open: Obligation[] = [];
  if (!okCalls(ev, "cases.create_from_order").length) {
    const patients = idsOfKind(ev, "patient");
    open.push({
      id: "PP-CASE",
      text: "no case was created from the order",
      closes: patients.length === 1
        ? `${
          callText("chart.list_candidate_orders", { patient_id: patients[0] })
        } (the order's practitioner ` +
          `and codes), then ${
            callText("cases.create_from_order", {
              patient_id: patients[0],
              ordering_practitioner_id: "<the order's practitioner>",
            })
          } with the order's codes`
        : `${callText("chart.search_patients", { query: "<the member's name>" })}, then ` +
          "chart_list_candidate_orders and cases_create_from_order with the patient_id it returns",
    });
  }
  const determined = okCalls(ev, "auth.finalize_provider_determination");
  const submitted = okCalls(ev, "auth.submit_authorization").length > 0;
  if (!determined.length && !submitted) {
    open.push({
      id: "PP-DETERMINATION",
      text: "no provider determination is recorded and nothing was submitted",
      closes: callText("auth.finalize_provider_determination", {
        case_id: caseOr(ev),
        final_action:
          "<submit_pa, gather_more_evidence or do_not_submit, as each criterion against the chart decides>",
        override_reason: "<the criteria the chart meets or misses>",
      }),
    });
  }
  if (determined.at(-1)?.input.final_action === "submit_pa" && !submitted) {
    open.push({
      id: "PP-SUBMIT",
      text: "the determination is submit_pa but the case was never submitted",
      closes: submitCall(ev),
    });
  }
  return open;
}

/** Decisions finalized in the session: own determination.finalize calls, and fast-track approvals by routing. */
function finalizedDecisions(ev: Evidence): string[] {
  const own = okCalls(ev, "determination.finalize").map((c) => String(c.input.decision ?? ""));
  const routed = okCalls(ev, "triage.route_case").some((c) => FAST_TRACK.test(plainText(c.text)));
  return routed && !own.length ? ["approved"] : own;
}

function payerObligations(ev: Evidence): Obligation[] {
  const open: Obligation[] = [];
  const pended =
    okCalls(ev, "review.submit_md_case_decision", (i) => i.decision === "request_info").length > 0 ||
    okCalls(ev, "review.submit_nurse_case_recommendation", (i) => i.recommendation === "request_info")
        .length > 0 ||
    okCalls(ev, "payer_letter_center.generate_pend").length > 0;
  const p2pDecision =
    okCalls(ev, "review.submit_md_case_decision", (i) => i.decision === "p2p_review").length > 0;
  const p2pRecorded = okCalls(ev, "p2p.record_outcome").length > 0 ||
    okCalls(ev, "p2p_session.submit_summary").length > 0;
  const p2pOpen = (p2pDecision || ev.phase === "p2p") && !p2pRecorded;
  if (p2pOpen) {
    open.push({
      id: "UM-P2P",
      text: p2pDecision
        ? "the MD chose p2p_review but no peer-to-peer outcome is recorded"
        : "this is a peer-to-peer task and no outcome is recorded",
      closes: withP2pRequest(ev, caseOr(ev), (request) => p2pNextStep(ev, request)),
    });
  }
  const decisions = finalizedDecisions(ev);
  if (!decisions.length && !pended) {
    const finalize = callText("determination.finalize", {
      case_id: caseOr(ev),
      decision: "<the decision the review recorded>",
    });
    open.push({
      id: "UM-DETERMINATION",
      text: "no determination is finalized and no pend (request_info) path was taken",
      closes: p2pOpen
        ? `${finalize} once the peer-to-peer's outcome is recorded (UM-P2P)`
        : `${finalize} (determination_get_summary shows the review's recommendation)`,
    });
  }
  for (const decision of new Set(decisions)) {
    const letter = LETTERS[decision];
    if (letter && !okCalls(ev, letter).length) {
      open.push({
        id: "UM-LETTER",
        text: `the case was finalized ${decision} but no ${decision.replace("_", " ")} letter was generated`,
        closes: callText(letter, { case_id: caseOr(ev) }),
      });
    }
  }
  return open;
}

/** The CM case the session opened: the case id its open_case returned (the session's case otherwise). */
function cmCaseId(ev: Evidence): string {
  for (const c of okCalls(ev, "cm_intake.open_case")) {
    const id = /"(?:case_id|id)"\s*:\s*"(CM-[^"]+)"/.exec(plainText(c.text))?.[1];
    if (id) return id;
  }
  return caseOr(ev);
}

/** The submission the provider's submit_pa determination owes: with the case's bundle, or after building one. */
function submitCall(ev: Evidence): string {
  const caseId = caseOr(ev);
  const bundle = idsOfKind(ev, "document").filter((id) => /^DOC-BUNDLE-/.test(id)).at(-1);
  return bundle
    ? callText("auth.submit_authorization", {
      case_id: caseId,
      channel: "portal",
      bundle_document_id: bundle,
    })
    : `${
      callText("docs.create_submission_bundle", { case_id: caseId, document_ids: "<the evidence documents>" })
    }, ` +
      `then ${
        callText("auth.submit_authorization", { case_id: caseId, channel: "portal" })
      } with its bundle_document_id`;
}

function cmObligations(ev: Evidence): Obligation[] {
  if (!okCalls(ev, "cm_intake.open_case").length) {
    return [{ id: "CM-OPEN", text: "no care-management case was opened", closes: cmOpenCall(ev) }];
  }
  if (okCalls(ev, "cm_care_plan.finalize").length || okCalls(ev, "cm_intake.disenroll_case").length) {
    return [];
  }
  const declined = okCalls(ev, "cm_outreach.end_outreach_call")
    .some((c) => objectArg(c.input.summary)?.consent_obtained === false);
  const caseId = cmCaseId(ev);
  return [{
    id: "CM-FINALIZE",
    text: declined
      ? "the member declined, but the case is still open without a finalized care plan"
      : "the case is open without a finalized care plan",
    closes: `${cmNextStep(ev, caseId) || callText("cm_care_plan.finalize", { case_id: caseId })}, then ` +
      "the rest of the chain to cm_care_plan_finalize",
  }];
}

/** The obligations still open for the session's seat; none when the seat is unknown. */
export function openObligations(ev: Evidence): Obligation[] {
  if (ev.seat === "provider") return providerObligations(ev);
  if (ev.seat === "payer") return payerObligations(ev);
  if (ev.seat === "cm") return cmObligations(ev);
  return [];
}

/** The Stop block reason: every open obligation with the next call that closes it. */
export function closureMessage(open: Obligation[]): string {
  const lines = open.map((o) => `- ${o.id}: ${o.text}; close it with ${o.closes}.`);
  return `Cannot stop yet: ${open.length} obligation${open.length === 1 ? " is" : "s are"} open.\n${
    lines.join("\n")
  }\nFinish them, then stop.`;
}
