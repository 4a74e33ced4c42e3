/**
 * A determination needs a source: the verifier traces every finalized determination to an MD decision, a
 * nurse approval, a P2P outcome or a triage auto-approval. Sources shown by a result (`"source": …`) count,
 * as does a P2P-stage task. Never fired in the discovery runs (the server rejects most of these).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase, plainText, shown, someCallEver } from "../lib/guard/engine/facts.ts";
import { arg, type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { p2pNextStep, withP2pRequest } from "../lib/guard/engine/next_ids.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";

const SOURCE_TEXT = /"source"\s*:\s*"(?:md_decision|nurse_recommendation|triage_auto_approve)"/;
const FAST_TRACK = /"status"\s*:\s*"approved"|authorization_number/;

/** True when the case has a decision source on record in this session or in a visible result. */
export function hasSource(ev: Evidence, input: Record<string, unknown>): boolean {
  // Cheapest first: the last one reads every call's text.
  return ev.phase === "p2p" ||
    okOnCase(ev, "review.submit_md_case_decision", input)
      .some((c) => ["approve", "deny", "partial_approve"].includes(String(c.input.decision))) ||
    okOnCase(ev, "review.submit_nurse_case_recommendation", input)
      .some((c) => c.input.recommendation === "approve") ||
    someCallEver(
      ev,
      "UM-01 p2p outcome",
      (c) => c.ok && (c.tool === "p2p.record_outcome" || c.tool === "p2p_session.submit_summary"),
    ) ||
    okOnCase(ev, "triage.route_case", input).some((c) => FAST_TRACK.test(plainText(c.text))) ||
    someCallEver(
      ev,
      "UM-01 source shown",
      (c) => c.ok && c.text.includes("source") && SOURCE_TEXT.test(plainText(c.text)),
    );
}

/**
 * The reviewer decision to record first, by what the record shows: the P2P's outcome after a p2p_review MD
 * decision, the MD's decision after a nurse escalated or at an MD review, else the nurse's recommendation.
 */
function sourceCall(ev: Evidence, call: Call): string {
  const caseId = arg(call, "case_id");
  if (
    okOnCase(ev, "review.submit_md_case_decision", call.input).some((c) => c.input.decision === "p2p_review")
  ) {
    return "The MD chose p2p_review, so the peer-to-peer and its outcome come first; its next step: " +
      withP2pRequest(ev, caseId, (request) => p2pNextStep(ev, request));
  }
  const escalated = okOnCase(ev, "review.submit_nurse_case_recommendation", call.input)
    .some((c) => c.input.recommendation === "escalate");
  if (escalated || ev.phase === "mdreview") {
    return "Record the MD's decision" + (escalated ? " (the nurse escalated)" : "") + " first: " +
      callText("review.submit_md_case_decision", {
        case_id: caseId,
        decision: "<approve, deny or partial_approve, from your criteria review>",
        signed_off: true,
        determination_rationale: "<the policy criteria and the chart evidence>",
      });
  }
  return "Record the nurse's recommendation first: " + callText("review.submit_nurse_case_recommendation", {
    case_id: caseId,
    recommendation: "<approve when every criterion is met, else escalate>",
  });
}

const FINALIZE = toolCall("determination.finalize", { case_id: "CASE-3903B8ED", decision: "approved" });
const MD = toolCall("review.submit_md_case_decision", { case_id: "CASE-3903B8ED", decision: "approve" });

/** UM-01: no determination.finalize without a reviewer decision, P2P outcome or auto-approval on record. */
export const rule: Rule<{ tool: string; caseId: string; next: string }> = {
  meta: {
    id: "UM-01",
    fromAbsence: true,
    name: "finalize-has-source",
    principle: "P-UM-12",
    seat: "payer",
    triggers: ["determination.finalize"],
    protects: [
      "outcome.determination_source_exists",
      "outcome.clean_determination",
      "md.decision_exists",
      "md.audit",
      "outcome.review_decision_exists",
    ],
    message: "Cannot call {tool} on {caseId}: no MD decision, nurse approval or P2P outcome is on record " +
      "for it. {next}, then finalize.",
  },
  check(call, evidence) {
    if (hasSource(evidence, call.input)) return null;
    return { tool: shown(call), caseId: arg(call, "case_id"), next: sourceCall(evidence, call) };
  },
  valid: [
    { name: "an MD approval on the case", call: FINALIZE, evidence: { calls: [MD] } },
    {
      name: "a decision source shown by the case summary",
      call: FINALIZE,
      evidence: {
        calls: [toolCall("determination.get_summary", { case_id: "CASE-3903B8ED" }, {
          result: { recommendation: { source: "md_decision" } },
        })],
      },
    },
  ],
  invalid: [
    {
      name: "only a p2p_review MD decision, no outcome yet",
      call: FINALIZE,
      evidence: {
        calls: [toolCall("review.submit_md_case_decision", { ...MD.input, decision: "p2p_review" })],
      },
      data: {
        tool: "determination_finalize",
        caseId: "CASE-3903B8ED",
        next: "The MD chose p2p_review, so the peer-to-peer and its outcome come first; its next step: " +
          "p2p_list(case_id=CASE-3903B8ED) (it lists the case's request), then people_list_reviewer_contacts(), " +
          "then p2p_offer_slots(request_id=<the request id it returns>, payer_contact_id=<the contact it " +
          "returns>, slots=[<open slots>])",
      },
      reason: "Cannot call determination_finalize on CASE-3903B8ED: no MD decision, nurse approval or P2P " +
        "outcome is on record for it. The MD chose p2p_review, so the peer-to-peer and its outcome come " +
        "first; its next step: p2p_list(case_id=CASE-3903B8ED) (it lists the case's request), then " +
        "people_list_reviewer_contacts(), then p2p_offer_slots(request_id=<the request id it returns>, " +
        "payer_contact_id=<the contact it returns>, slots=[<open slots>]), then finalize.",
    },
    {
      name: "a nurse escalated, no MD decision yet",
      call: FINALIZE,
      evidence: {
        calls: [toolCall("review.submit_nurse_case_recommendation", {
          case_id: "CASE-3903B8ED",
          recommendation: "escalate",
        }, { result: { case_recommendation: { case_id: "CASE-3903B8ED", recommendation: "escalate" } } })],
      },
      data: {
        tool: "determination_finalize",
        caseId: "CASE-3903B8ED",
        next:
          "Record the MD's decision (the nurse escalated) first: review_submit_md_case_decision(case_id=" +
          "CASE-3903B8ED, decision=<approve, deny or partial_approve, from your criteria review>, " +
          "signed_off=true, determination_rationale=<the policy criteria and the chart evidence>)",
      },
    },
  ],
};
