/**
 * Intake tasks confirm the intake decisions before triage: `payer_intake_hub_confirm_decisions` writes the
 * three decisions and the audit row the intake checks read, and finalize requires intake complete. Only
 * for tasks that start at intake (the prompt's phase): later phases arrive with intake already complete.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { confirmCall } from "../lib/guard/engine/next_ids.ts";

const INTAKE = "# New Intake\n- Use only payer namespaces: `payer_intake_hub`, `triage`";
const DISPOSE = toolCall("triage.set_disposition", { case_id: "CASE-3903B8ED", disposition: "nurse_review" });
const CONFIRM = toolCall("payer_intake_hub.confirm_decisions", {
  case_id: "CASE-3903B8ED",
  request_complete: true,
  member_eligible: true,
  service_covered: true,
});

/** UM-12: in an intake task, no triage before payer_intake_hub_confirm_decisions succeeded. */
export const rule: Rule<{ tool: string; caseId: string; confirm: string }> = {
  meta: {
    id: "UM-12",
    fromAbsence: true,
    name: "triage-after-intake",
    seat: "payer",
    triggers: ["triage.set_disposition", "triage.route_case"],
    protects: [
      "intake.audit",
      "intake.decision_request_complete",
      "intake.decision_member_eligible",
      "intake.decision_service_covered",
    ],
    message: "Cannot call {tool} on {caseId}: this is an intake task and the intake decisions are not " +
      "confirmed. Call {confirm} first.",
  },
  check(call, evidence) {
    if (evidence.phase !== "intake") return null;
    return okOnCase(evidence, "payer_intake_hub.confirm_decisions", call.input).length
      ? null
      : { tool: shown(call), caseId: arg(call, "case_id"), confirm: confirmCall(arg(call, "case_id")) };
  },
  valid: [
    {
      name: "an intake task after the intake decisions were confirmed",
      call: DISPOSE,
      evidence: { prompt: INTAKE, calls: [CONFIRM] },
    },
    {
      name: "a triage task, not an intake task",
      call: DISPOSE,
      evidence: { prompt: "# Triage Routing\n- Use only payer namespaces: `triage`", calls: [] },
    },
  ],
  invalid: [
    {
      name: "an intake task before the intake decisions were confirmed",
      call: DISPOSE,
      evidence: { prompt: INTAKE, calls: [] },
      data: {
        tool: "triage_set_disposition",
        caseId: "CASE-3903B8ED",
        confirm: confirmCall("CASE-3903B8ED"),
      },
      reason: "Cannot call triage_set_disposition on CASE-3903B8ED: this is an intake task and the intake " +
        "decisions are not confirmed. Call payer_intake_hub_confirm_decisions(case_id=CASE-3903B8ED, " +
        "request_complete=<true or false, as the documents show>, member_eligible=<true or false, as the " +
        "documents show>, service_covered=<true or false, as the documents show>, provider_network_status=<as " +
        "the documents show>) first.",
    },
  ],
};
