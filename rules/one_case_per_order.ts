/**
 * One order, one case: a second `cases_create_from_order` makes a second ServiceRequest, and the verifier
 * then cannot resolve a unique one (service_request_created, case_created and the field checks cascade).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okCalls } from "../lib/guard/engine/facts.ts";
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const CREATE = toolCall("cases.create_from_order", {
  patient_id: "PAT-c7e617a246b7",
  procedure_code: "73721",
}, {
  result: { case: { id: "CASE-ACT-001", status: "draft" } },
});

/** PP-04: no second case from an order once one was created in this session. */
export const rule: Rule<{ caseId: string; next: string }> = {
  meta: {
    id: "PP-04",
    name: "one-case-per-order",
    principle: "P-PROV-02",
    seat: "provider",
    triggers: ["cases.create_from_order"],
    protects: [
      "new_referral.service_request_created",
      "new_referral.case_created",
      "new_referral.case_status",
      "cross.forward_transitions",
    ],
    message: "Cannot create another case from an order: this session already created {caseId}. Continue " +
      "with it instead: {next} shows where it stands.",
  },
  check(_call, evidence) {
    const first = okCalls(evidence, "cases.create_from_order")[0];
    if (!first) return null;
    const r = first.result as { case?: { id?: string }; case_id?: string } | undefined;
    const found = /CASE-ACT-\d+/.exec(first.text)?.[0];
    const caseId = r?.case?.id ?? r?.case_id ?? found;
    return caseId
      ? { caseId, next: callText("cases.get_case", { case_id: caseId }) }
      : { caseId: "a case", next: callText("cases.list_cases") };
  },
  valid: [{ name: "the first case from the order", call: CREATE, evidence: { calls: [] } }],
  invalid: [{
    name: "a second case after one was created",
    call: CREATE,
    evidence: { calls: [CREATE] },
    data: { caseId: "CASE-ACT-001", next: "cases_get_case(case_id=CASE-ACT-001)" },
    reason: "Cannot create another case from an order: this session already created CASE-ACT-001. Continue " +
      "with it instead: cases_get_case(case_id=CASE-ACT-001) shows where it stands.",
  }],
};
