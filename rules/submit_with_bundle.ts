/**
 * Submit a bundle, not a bare case: every passing submission assembled `docs_create_submission_bundle`
 * first; without it the required documents are missing from the packet.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";

const SUBMIT = toolCall("auth.submit_authorization", { case_id: "CASE-ACT-001", channel: "portal" });
const BUNDLE = toolCall("docs.create_submission_bundle", { case_id: "CASE-ACT-001" }, {
  result: { document: { id: "DOC-BUNDLE-c77bc09c", case_id: "CASE-ACT-001" } },
});

/** PP-07: no submission before a successful submission bundle on the case. */
export const rule: Rule<{ caseId: string }> = {
  meta: {
    id: "PP-07",
    fromAbsence: true,
    name: "submit-with-bundle",
    principle: "P-PROV-10",
    seat: "provider",
    triggers: ["auth.submit_authorization"],
    protects: [
      "provider_pre_submission.required_documents_present",
      "judge.provider_pre_submission.submission.service_request",
    ],
    message: "Cannot submit {caseId}: no submission bundle was assembled for it. Call " +
      "docs_create_submission_bundle with case_id={caseId} and the evidence document_ids, then pass its " +
      "bundle_document_id to auth_submit_authorization.",
  },
  check(call, evidence) {
    return okOnCase(evidence, "docs.create_submission_bundle", call.input).length
      ? null
      : { caseId: arg(call, "case_id") };
  },
  valid: [{ name: "a bundle was created for the case", call: SUBMIT, evidence: { calls: [BUNDLE] } }],
  invalid: [{
    name: "no bundle for the case",
    call: SUBMIT,
    evidence: { calls: [] },
    data: { caseId: "CASE-ACT-001" },
  }],
};
