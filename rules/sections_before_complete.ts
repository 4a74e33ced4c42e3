/**
 * The assessment is complete only with its four sections: `cm.assessment.required_sections_present` wants
 * clinical, medication, behavioral_health and sdoh saved before `cm_assessment_complete_assessment`.
 * A payload sent as JSON text is read like an object (the server accepted it in 16 passing trials, so the
 * form of the payload is not a reason to block).
 * Known limitation: never fired on the 700 replayed trials (every successful completion had all four
 * sections); kept as the enforcement of P-CM-06 at no measured cost.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { objectArg, okOnCase } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { CM_SECTIONS } from "../lib/guard/engine/next_ids.ts";

/** The sections the verifier requires (the list the care-management next steps name, next_ids.ts). */
export const SECTIONS = CM_SECTIONS;

const CASE = "CM-CASE-CM_AFIB_001";
const SAVE = (section: string, asText = false) => {
  const payload = { section, data: {} };
  return toolCall("cm_assessment.save_section", {
    case_id: CASE,
    payload: asText ? JSON.stringify(payload) : payload,
  });
};
const COMPLETE = toolCall("cm_assessment.complete_assessment", { case_id: CASE });

/** CM-10: no assessment completion before all four sections were saved. */
export const rule: Rule<{ caseId: string; missing: string; save: string }> = {
  meta: {
    id: "CM-10",
    fromAbsence: true,
    name: "sections-before-complete",
    principle: "P-CM-06",
    seat: "cm",
    triggers: ["cm_assessment.complete_assessment"],
    protects: ["cm.assessment.required_sections_present", "cm.assessment.completed"],
    message:
      "Cannot complete the assessment for {caseId}: no section was saved for {missing}. Call {save}, " +
      "and the same for each other missing section, then cm_assessment_complete_assessment.",
  },
  check(call, evidence) {
    const saved = new Set(
      okOnCase(evidence, "cm_assessment.save_section", call.input)
        .map((c) => objectArg(c.input.payload)?.section),
    );
    const missing = SECTIONS.filter((s) => !saved.has(s));
    if (!missing.length) return null;
    const caseId = arg(call, "case_id");
    const save = callText("cm_assessment.save_section", {
      case_id: caseId,
      payload: { section: missing[0], data: "<what the chart and the member established>" },
    });
    return { caseId, missing: missing.join(", "), save };
  },
  valid: [
    { name: "all four sections saved", call: COMPLETE, evidence: { calls: SECTIONS.map((s) => SAVE(s)) } },
    {
      name: "all four sections saved as JSON text",
      call: COMPLETE,
      evidence: { calls: SECTIONS.map((s) => SAVE(s, true)) },
    },
  ],
  invalid: [
    {
      name: "two of four sections saved",
      call: COMPLETE,
      evidence: { calls: [SAVE("clinical"), SAVE("medication")] },
      data: {
        caseId: CASE,
        missing: "behavioral_health, sdoh",
        save:
          `cm_assessment_save_section(case_id=${CASE}, payload={section: behavioral_health, data: <what the ` +
          "chart and the member established>})",
      },
      reason:
        `Cannot complete the assessment for ${CASE}: no section was saved for behavioral_health, sdoh. ` +
        `Call cm_assessment_save_section(case_id=${CASE}, payload={section: behavioral_health, data: <what the ` +
        "chart and the member established>}), and the same for each other missing section, then " +
        "cm_assessment_complete_assessment.",
    },
  ],
};
