/**
 * Artifact ids (P2P requests, outreach sessions, letters, bundles, forms, documents) must come from a
 * result: a guessed `request_id` or `letter_id` acts on nothing, or on another case's record.
 * Known limitation: ids seen only in a saved-to-file result the agent read with Read/Bash look unseen.
 */
import { groundedIds, mutatingTools, shown } from "../lib/facts.ts";
import { normalizeId } from "../lib/ids.ts";
import { type Rule, toolCall } from "../lib/rule.ts";
import { TOOLS } from "./tools.ts";

const ARGS = ["request_id", "session_id", "letter_id", "bundle_document_id", "form_id", "document_ids"];
const LETTER = toolCall("payer_letter_center.generate_denial", { case_id: "CASE-3903B8ED" }, {
  result: { letter: { id: "LET-cff9a2d8", case_id: "CASE-3903B8ED" } },
});
const DELIVER = (id: string) => toolCall("payer_letter_center.deliver", { letter_id: id, channel: "portal" });

/** GLOBAL-05: no mutation naming a request, session, letter, bundle, form or document id never returned. */
export const rule: Rule<{ tool: string; arg: string; value: string }> = {
  meta: {
    id: "GLOBAL-05",
    name: "artifact-id-unseen",
    principle: "P-ALL-02",
    seat: "all",
    triggers: mutatingTools(TOOLS).filter((name) =>
      TOOLS.find((t) => t.name === name)?.args.some((a) => ARGS.includes(a))
    ),
    protects: [
      "p2p.result_recorded",
      "p2p.audit",
      "outcome.letter_types",
      "provider_pre_submission.required_documents_present",
    ],
    message: "Cannot call {tool} with {arg}={value}: no earlier result returned that id. Call the tool " +
      "that lists or creates it (p2p_list, payer_letter_center_list, docs_list_case_documents, " +
      "forms_list_required_forms) and pass {arg} exactly as returned.",
  },
  check(call, evidence) {
    const grounded = groundedIds(evidence);
    for (const arg of ARGS) {
      const raw = call.input[arg];
      const values = Array.isArray(raw) ? raw : [raw];
      for (const value of values) {
        if (typeof value !== "string" || !value.trim()) continue;
        if (!grounded.has(normalizeId(value))) return { tool: shown(call), arg, value: value.trim() };
      }
    }
    return null;
  },
  valid: [{ call: DELIVER("LET-cff9a2d8"), evidence: { calls: [LETTER] } }],
  invalid: [
    {
      call: DELIVER("LET-00000001"),
      evidence: { calls: [LETTER] },
      data: { tool: "payer_letter_center_deliver", arg: "letter_id", value: "LET-00000001" },
    },
    {
      call: toolCall("docs.create_submission_bundle", { case_id: "CASE-ACT-001", document_ids: ["DOC-x1"] }),
      evidence: { calls: [] },
      data: { tool: "docs_create_submission_bundle", arg: "document_ids", value: "DOC-x1" },
    },
  ],
};
