/**
 * The determination follows its source: MD approve → approved, deny → denied, partial_approve →
 * partially_approved; a P2P outcome uphold → denied, overturn → approved; nurse approve → approved. A
 * deliberate difference needs `overridden=true` and an `override_reason`. Never fired in the discovery runs.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { caseOf, filled } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";

const MD: Record<string, string> = {
  approve: "approved",
  deny: "denied",
  partial_approve: "partially_approved",
};
const P2P: Record<string, string> = {
  uphold_intended_adverse_decision: "denied",
  overturn_to_approval: "approved",
};

/** The decision the latest source on the case implies, with the source's name, or null. */
export function impliedDecision(ev: Evidence, input: Record<string, unknown>): [string, string] | null {
  const key = caseOf(ev, input);
  let implied: [string, string] | null = null;
  // The case of a call is asked only of the tools that can be a source: reading every call's arguments cost a
  // hook process ≈ 1 ms at 250 calls.
  const mine = (c: { input: Record<string, unknown> }) => key === null || caseOf(ev, c.input) === key;
  for (const c of ev.calls) {
    if (!c.ok) continue;
    if (c.tool === "review.submit_md_case_decision") {
      if (!mine(c)) continue;
      const d = String(c.input.decision);
      if (MD[d]) implied = [MD[d], `the MD decision ${d}`];
      else if (d === "p2p_review") implied = null;
    } else if (c.tool === "review.submit_nurse_case_recommendation") {
      if (mine(c) && c.input.recommendation === "approve") implied = ["approved", "the nurse approval"];
    } else if (c.tool === "p2p.record_outcome" || c.tool === "p2p_session.submit_summary") {
      const o = String(c.input.outcome ?? c.input.proposed_result ?? "");
      if (P2P[o]) implied = [P2P[o], `the P2P outcome ${o}`];
    }
  }
  return implied;
}

const FINALIZE = (decision: string, extra: Record<string, unknown> = {}) =>
  toolCall("determination.finalize", { case_id: "CASE-3903B8ED", decision, ...extra });
const DENY = toolCall("review.submit_md_case_decision", { case_id: "CASE-3903B8ED", decision: "deny" });

/** UM-02: no finalize decision that contradicts the latest recorded source without an explicit override. */
export const rule: Rule<
  { caseId: string; decision: string; source: string; expected: string; next: string; differ: string }
> = {
  meta: {
    id: "UM-02",
    name: "finalize-matches-source",
    principle: "P-UM-12",
    seat: "payer",
    triggers: ["determination.finalize"],
    protects: [
      "outcome.source_recommendation_consistent",
      "outcome.clean_determination",
      "outcome.target_status",
      "p2p.determination_matches_contract",
      "outcome.determination_decision_matches",
      "outcome.letter_types",
    ],
    message:
      "Cannot finalize {caseId} as {decision}: {source} implies {expected}, and that decides it. Call {next}; " +
      "only if you deliberately differ from it, call {differ}.",
  },
  check(call, evidence) {
    const implied = impliedDecision(evidence, call.input);
    const decision = arg(call, "decision");
    if (!implied || !decision || implied[0] === decision) return null;
    if (call.input.overridden === true && filled(call.input.override_reason)) return null;
    const caseId = arg(call, "case_id");
    const [expected, source] = implied;
    return {
      caseId,
      decision,
      source,
      expected,
      next: callText("determination.finalize", { case_id: caseId, decision: expected }),
      differ: callText("determination.finalize", {
        case_id: caseId,
        decision,
        overridden: true,
        override_reason: "<why the final decision differs from it>",
      }),
    };
  },
  valid: [
    { name: "denied after the MD denied", call: FINALIZE("denied"), evidence: { calls: [DENY] } },
    {
      name: "approved against the MD's denial, with an explicit override and reason",
      call: FINALIZE("approved", {
        overridden: true,
        override_reason: "New imaging shows the criterion is met.",
      }),
      evidence: { calls: [DENY] },
    },
    { name: "no source on record", call: FINALIZE("approved"), evidence: { calls: [] } },
  ],
  invalid: [
    {
      name: "approved after the MD denied",
      call: FINALIZE("approved"),
      evidence: { calls: [DENY] },
      data: {
        caseId: "CASE-3903B8ED",
        decision: "approved",
        source: "the MD decision deny",
        expected: "denied",
        next: "determination_finalize(case_id=CASE-3903B8ED, decision=denied)",
        differ: "determination_finalize(case_id=CASE-3903B8ED, decision=approved, overridden=true, " +
          "override_reason=<why the final decision differs from it>)",
      },
      reason: "Cannot finalize CASE-3903B8ED as approved: the MD decision deny implies denied, and that " +
        "decides it. Call determination_finalize(case_id=CASE-3903B8ED, decision=denied); only if you " +
        "deliberately differ from it, call determination_finalize(case_id=CASE-3903B8ED, decision=approved, " +
        "overridden=true, override_reason=<why the final decision differs from it>).",
    },
    {
      name: "denied after the P2P overturned to approval",
      call: FINALIZE("denied"),
      evidence: {
        calls: [
          toolCall("review.submit_md_case_decision", { case_id: "CASE-3903B8ED", decision: "p2p_review" }),
          toolCall("p2p.record_outcome", { request_id: "P2P-5439b781", outcome: "overturn_to_approval" }),
        ],
      },
      data: {
        caseId: "CASE-3903B8ED",
        decision: "denied",
        source: "the P2P outcome overturn_to_approval",
        expected: "approved",
        next: "determination_finalize(case_id=CASE-3903B8ED, decision=approved)",
        differ: "determination_finalize(case_id=CASE-3903B8ED, decision=denied, overridden=true, " +
          "override_reason=<why the final decision differs from it>)",
      },
    },
  ],
};
