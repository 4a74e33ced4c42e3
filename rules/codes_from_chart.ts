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
import { type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { CODE_SHAPES } from "../lib/guard/engine/critic.ts";
import { sameCallWith } from "../lib/guard/engine/next_ids.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";
import { plainText } from "../lib/guard/engine/facts.ts";

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

/** Codes of the argument's kind the chart and order results show, as written (ICD-10 for diagnoses). */
function chartCodes(ev: Evidence, arg: string): string[] {
  const shapes = arg === "diagnosis_codes" ? [CODE_SHAPES[0]] : [CODE_SHAPES[1], CODE_SHAPES[2]];
  const out: string[] = [];
  for (const c of ev.calls) {
    if (!c.ok || !c.tool.startsWith("chart.")) continue;
    for (const m of plainText(c.text).matchAll(/[A-Z0-9][A-Z0-9.]{3,7}/g)) {
      if (shapes.some((re) => re.test(m[0])) && !out.includes(m[0])) out.push(m[0]);
    }
  }
  return out.slice(0, 8);
}

/** The confirmation (the same call again) and the fact that decides it: the codes the chart shows. */
function nextFor(call: Call, ev: Evidence, arg: string, code: string): string {
  const seen = chartCodes(ev, arg);
  const again = `If ${code} is the code the chart's documented service and the policy's code list support, ` +
    `send ${sameCallWith(call, {}, ev)} again with every argument as it was (the repeat is accepted)`;
  if (seen.length) return `${again}. The chart and order results you read show ${seen.join(", ")}`;
  const patient = typeof call.input.patient_id === "string" ? call.input.patient_id : "";
  return patient
    ? `${again}; the chart you can check it against: chart_get_patient_chart_by_patient(patient_id=${patient})`
    : again;
}

/** PP-05: no referral whose procedure_code or diagnosis_codes were never seen in the chart or order. */
export const rule: Rule<{ arg: string; code: string; next: string }> = {
  meta: {
    id: "PP-05",
    fromAbsence: true,
    name: "codes-from-chart",
    principle: "P-PROV-03",
    seat: "provider",
    triggers: ["cases.create_from_order"],
    protects: ["new_referral.procedure_code", "new_referral.required_diagnosis_codes"],
    message: "Cannot create the case with {arg} {code} yet: that code is not in any chart or order result " +
      "you read. {next}.",
  },
  check(call, evidence) {
    if (evidence.denies.has(signature("PP-05", call.tool, caseOf(evidence, call.input)))) return null;
    const grounded = groundedIds(evidence);
    const codes: [string, unknown][] = [["procedure_code", call.input.procedure_code]];
    const dx = call.input.diagnosis_codes;
    for (const d of Array.isArray(dx) ? dx : [dx]) codes.push(["diagnosis_codes", d]);
    for (const [name, code] of codes) {
      if (typeof code !== "string" || !code.trim()) continue;
      if (!grounded.has(normalizeId(code))) {
        return { arg: name, code: code.trim(), next: nextFor(call, evidence, name, code.trim()) };
      }
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
      data: {
        arg: "procedure_code",
        code: "73723",
        next:
          "If 73723 is the code the chart's documented service and the policy's code list support, send " +
          "cases_create_from_order(patient_id=PAT-c7e617a246b7) again with every argument as it was (the " +
          "repeat is accepted). " +
          "The chart and order results you read show 73721",
      },
      reason:
        "Cannot create the case with procedure_code 73723 yet: that code is not in any chart or order " +
        "result you read. If 73723 is the code the chart's documented service and the policy's code list " +
        "support, send cases_create_from_order(patient_id=PAT-c7e617a246b7) again with every argument as it " +
        "was (the repeat is accepted). The chart and order results you read show 73721.",
    },
    {
      name: "one diagnosis code the chart never shows",
      call: CREATE("73721", ["M75.110", "M25.511"]),
      evidence: { calls: [CHART] },
      data: {
        arg: "diagnosis_codes",
        code: "M25.511",
        next:
          "If M25.511 is the code the chart's documented service and the policy's code list support, send " +
          "cases_create_from_order(patient_id=PAT-c7e617a246b7) again with every argument as it was (the " +
          "repeat is accepted). " +
          "The chart and order results you read show M75.110",
      },
    },
    {
      name: "repeated after another rule's block, not this one's",
      // Another rule's block on the same call is no confirmation of the code.
      call: CREATE("27447", ["M17.11"]),
      evidence: { calls: [CHART], denied: [{ rule: "GLOBAL-04", tool: "cases.create_from_order" }] },
      data: {
        arg: "procedure_code",
        code: "27447",
        next:
          "If 27447 is the code the chart's documented service and the policy's code list support, send " +
          "cases_create_from_order(patient_id=PAT-c7e617a246b7) again with every argument as it was (the " +
          "repeat is accepted). " +
          "The chart and order results you read show 73721",
      },
    },
  ],
};
