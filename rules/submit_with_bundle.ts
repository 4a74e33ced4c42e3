/**
 * Submit a bundle, not a bare case: every passing submission assembled `docs_create_submission_bundle`
 * first; without it the required documents are missing from the packet.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase } from "../lib/guard/engine/facts.ts";
import { arg, type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { caseDocuments } from "../lib/guard/engine/next_ids.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";

const SUBMIT = toolCall("auth.submit_authorization", { case_id: "CASE-ACT-001", channel: "portal" });
const BUNDLE = toolCall("docs.create_submission_bundle", { case_id: "CASE-ACT-001" }, {
  result: { document: { id: "DOC-BUNDLE-c77bc09c", case_id: "CASE-ACT-001" } },
});

/** The bundle to build: the case's documents the record holds, or the listing that shows them first. */
function bundleFor(call: Call, ev: Evidence): string {
  const caseId = arg(call, "case_id");
  const docs = caseDocuments(ev, caseId);
  const bundle = "docs.create_submission_bundle";
  return docs.length
    ? callText(bundle, { case_id: caseId, document_ids: docs })
    : `${callText("docs.list_case_documents", { case_id: caseId })}, then ` +
      callText(bundle, { case_id: caseId, document_ids: "<the evidence documents it lists>" });
}

/** PP-07: no submission before a successful submission bundle on the case. */
export const rule: Rule<{ caseId: string; bundle: string }> = {
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
    message: "Cannot submit {caseId}: no submission bundle was assembled for it. Call {bundle}, then send " +
      "this submission again with the bundle_document_id it returns.",
  },
  check(call, evidence) {
    return okOnCase(evidence, "docs.create_submission_bundle", call.input).length
      ? null
      : { caseId: arg(call, "case_id"), bundle: bundleFor(call, evidence) };
  },
  valid: [{ name: "a bundle was created for the case", call: SUBMIT, evidence: { calls: [BUNDLE] } }],
  invalid: [{
    name: "no bundle for the case",
    call: SUBMIT,
    evidence: { calls: [] },
    data: {
      caseId: "CASE-ACT-001",
      bundle: "docs_list_case_documents(case_id=CASE-ACT-001), then docs_create_submission_bundle(case_id=" +
        "CASE-ACT-001, document_ids=<the evidence documents it lists>)",
    },
  }, {
    name: "no bundle for the case, two documents uploaded",
    call: SUBMIT,
    evidence: {
      calls: ["DOC-1f2e3d4c", "DOC-5a6b7c8d"].map((id) =>
        toolCall("docs.upload_evidence", { case_id: "CASE-ACT-001", kind: "chart_note", title: "Note" }, {
          result: { document: { id, case_id: "CASE-ACT-001" } },
        })
      ),
    },
    data: {
      caseId: "CASE-ACT-001",
      bundle:
        "docs_create_submission_bundle(case_id=CASE-ACT-001, document_ids=[DOC-1f2e3d4c, DOC-5a6b7c8d])",
    },
    reason: "Cannot submit CASE-ACT-001: no submission bundle was assembled for it. Call " +
      "docs_create_submission_bundle(case_id=CASE-ACT-001, document_ids=[DOC-1f2e3d4c, DOC-5a6b7c8d]), then " +
      "send this submission again with the bundle_document_id it returns.",
  }],
};
