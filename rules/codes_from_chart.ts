/**
 * Copy codes, do not invent them: the procedure and diagnosis codes of a new referral should appear in the
 * chart or order the agent read (compared without dots and case, and also inside compound tokens: a code in
 * a file name `…-cpt-43775.pdf`, with a modifier `73721-RT`, in a written-out escape `\n73721`).
 * A chart's code is evidence, not the answer: one chart's note names a lumbar code for a cervical
 * procedure, and the passing agent used the cervical code from the policy's code list instead. So the block
 * is a confirmation, not a correction: it asks the agent to check the code against the chart and the
 * policy, and the same call repeated after one block passes (this rule's earlier deny on the call is in the
 * evidence). It costs one call and never tells the agent which code to use.
 * Its passing-trial fires (below) are that case, the same provider trajectory in both erius packets:
 * harmless as described.
 * Known limitation: only MCP results are evidence; a code read from a reference file with Read/Bash looks
 * unseen (most caught failures took a wrong code from such a file).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): 2026-06-02-erius 1,
 *   2026-06-05-erius 1.
 */
import { caseOf, groundedIds } from "../lib/guard/engine/facts.ts";
import { normalizeId } from "../lib/guard/engine/ids.ts";
import { signature } from "../lib/guard/engine/evidence.ts";
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";

const CHART = toolCall("chart.get_patient_chart_by_patient", { patient_id: "PAT-c7e617a246b7" }, {
  result: { conditions: [{ code: "M75.110" }], orders: [{ id: "ORD-1", procedure_code: "73721" }] },
});
/** A chart whose codes are written inside text and file names rather than code fields. */
const CHART_TEXT = toolCall("chart.get_patient_chart_by_patient", { patient_id: "PAT-c7e617a246b7" }, {
  result: {
    notes: [{ text: "Plan:\nOrder MRI knee 73721-RT; dx M75.110." }],
    documents: [{ file: "DOC-1a2b3c4d__order-cpt-73722.pdf" }],
  },
});
const CREATE = (procedure: string, diagnoses: string[]) =>
  toolCall("cases.create_from_order", {
    patient_id: "PAT-c7e617a246b7",
    procedure_code: procedure,
    diagnosis_codes: diagnoses,
  });

/** PP-05: no referral whose procedure_code or diagnosis_codes were never seen in the chart or order. */
export const rule: Rule<{ arg: string; code: string }> = {
  meta: {
    id: "PP-05",
    fromAbsence: true,
    name: "codes-from-chart",
    principle: "P-PROV-03",
    seat: "provider",
    triggers: ["cases.create_from_order"],
    protects: ["new_referral.procedure_code", "new_referral.required_diagnosis_codes"],
    message: "Cannot create the case with {arg} {code} yet: that code is not in any chart or order result " +
      "you read. Check it against the chart's documented procedure and diagnoses and the policy's code list " +
      "(chart_get_patient_chart_by_patient, chart_list_candidate_orders); if {code} is right, call " +
      "cases_create_from_order again with the same codes (the repeat is accepted), otherwise use the code " +
      "the chart or order records.",
  },
  check(call, evidence) {
    if (evidence.denies.has(signature("PP-05", call.tool, caseOf(evidence, call.input)))) return null;
    const grounded = groundedIds(evidence);
    const codes: [string, unknown][] = [["procedure_code", call.input.procedure_code]];
    const dx = call.input.diagnosis_codes;
    for (const d of Array.isArray(dx) ? dx : [dx]) codes.push(["diagnosis_codes", d]);
    for (const [name, code] of codes) {
      if (typeof code !== "string" || !code.trim()) continue;
      if (!grounded.has(normalizeId(code))) return { arg: name, code: code.trim() };
    }
    return null;
  },
  valid: [
    {
      name: "codes from the chart's code fields",
      call: CREATE("73721", ["M75.110"]),
      evidence: { calls: [CHART] },
    },
    {
      name: "a diagnosis code in other case without its dot",
      call: CREATE("73721", ["m75110"]),
      evidence: { calls: [CHART] },
    },
    // Codes written in a note with a modifier, after an escaped newline, or inside a file name.
    {
      name: "codes written in a note with a modifier",
      call: CREATE("73721", ["M75.110"]),
      evidence: { calls: [CHART_TEXT] },
    },
    {
      name: "a procedure code inside a document's file name",
      call: CREATE("73722", ["M75.110"]),
      evidence: { calls: [CHART_TEXT] },
    },
    // The agent was blocked once and repeats the call after checking: the code is its decision.
    {
      name: "the same call repeated after this rule blocked it",
      call: CREATE("27447", ["M17.11"]),
      evidence: { calls: [CHART], denied: [{ rule: "PP-05", tool: "cases.create_from_order" }] },
    },
  ],
  invalid: [
    {
      name: "a procedure code the chart never shows",
      call: CREATE("73723", ["M75.110"]),
      evidence: { calls: [CHART] },
      data: { arg: "procedure_code", code: "73723" },
    },
    {
      name: "one diagnosis code the chart never shows",
      call: CREATE("73721", ["M75.110", "M25.511"]),
      evidence: { calls: [CHART] },
      data: { arg: "diagnosis_codes", code: "M25.511" },
    },
    {
      name: "repeated after another rule's block, not this one's",
      // Another rule's block on the same call is no confirmation of the code.
      call: CREATE("27447", ["M17.11"]),
      evidence: { calls: [CHART], denied: [{ rule: "GLOBAL-04", tool: "cases.create_from_order" }] },
      data: { arg: "procedure_code", code: "27447" },
    },
  ],
};
