/**
 * Copy codes, do not invent them: the procedure and diagnosis codes of a new referral must appear in the
 * chart or order the agent read (compared without dots and case).
 * Known limitation: only MCP results are evidence. Leaderboard replay: 9 failed trials (7 with
 * procedure_code or required_diagnosis_codes failed), 0 passing; in every one the code came from a CPT/HCPCS
 * reference file the agent read with Read/Bash, not from the chart. A correct agent that copies a code from
 * such a file would be blocked once (none of the 73 passing trials did).
 */
import { groundedIds } from "../lib/facts.ts";
import { normalizeId } from "../lib/ids.ts";
import { type Rule, toolCall } from "../lib/rule.ts";

const CHART = toolCall("chart.get_patient_chart_by_patient", { patient_id: "PAT-c7e617a246b7" }, {
  result: { conditions: [{ code: "M75.110" }], orders: [{ id: "ORD-1", procedure_code: "73721" }] },
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
    name: "codes-from-chart",
    principle: "P-PROV-03",
    seat: "provider",
    triggers: ["cases.create_from_order"],
    protects: ["new_referral.procedure_code", "new_referral.required_diagnosis_codes"],
    message: "Cannot create the case with {arg} {code}: that code is not in the chart or order you read. " +
      "Call chart_get_patient_chart_by_patient (or chart_list_candidate_orders) and pass {arg} exactly as " +
      "the order or chart records it.",
  },
  check(call, evidence) {
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
    { call: CREATE("73721", ["M75.110"]), evidence: { calls: [CHART] } },
    { call: CREATE("73721", ["m75110"]), evidence: { calls: [CHART] } },
  ],
  invalid: [
    {
      call: CREATE("73722", ["M75.110"]),
      evidence: { calls: [CHART] },
      data: { arg: "procedure_code", code: "73722" },
    },
    {
      call: CREATE("73721", ["M75.110", "M25.511"]),
      evidence: { calls: [CHART] },
      data: { arg: "diagnosis_codes", code: "M25.511" },
    },
  ],
};
