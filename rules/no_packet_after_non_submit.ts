/**
 * A provider who decided `gather_more_evidence` or `do_not_submit` must not then build or send a packet:
 * any submission bundle or submission fails `provider_pre_submission.packet_absent` on a non-submit task.
 * Never fired in the discovery runs; cheap to keep.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const DECIDE = (action: string) =>
  toolCall("auth.finalize_provider_determination", { case_id: "CASE-ACT-001", final_action: action });
const BUNDLE = toolCall("docs.create_submission_bundle", { case_id: "CASE-ACT-001" });

/** PP-02: no bundle or submission after a gather_more_evidence / do_not_submit determination. */
export const rule: Rule<{ tool: string; caseId: string; action: string; submit: string }> = {
  meta: {
    id: "PP-02",
    name: "no-packet-after-non-submit",
    principle: "P-PROV-06",
    seat: "provider",
    triggers: ["auth.submit_authorization", "docs.create_submission_bundle"],
    protects: [
      "provider_pre_submission.packet_absent",
      "provider_pre_submission.final_action",
      "new_referral.case_status",
    ],
    message: "Cannot call {tool} on {caseId}: your provider determination for it is {action}, and a " +
      "submission packet contradicts that decision. That recorded hold is the case's outcome and needs no " +
      "packet; only if the chart now backs every criterion, record {submit} first.",
  },
  check(call, evidence) {
    const last = okOnCase(evidence, "auth.finalize_provider_determination", call.input).at(-1);
    const action = String(last?.input.final_action ?? "");
    if (action !== "gather_more_evidence" && action !== "do_not_submit") return null;
    const caseId = arg(call, "case_id");
    const submit = callText("auth.finalize_provider_determination", {
      case_id: caseId,
      final_action: "submit_pa",
      override_reason: "<the criteria the chart now documents>",
    });
    return { tool: shown(call), caseId, action, submit };
  },
  valid: [
    { name: "no determination yet", call: BUNDLE, evidence: { calls: [] } },
    {
      name: "gather_more_evidence, then submit_pa",
      call: BUNDLE,
      evidence: { calls: [DECIDE("gather_more_evidence"), DECIDE("submit_pa")] },
    },
  ],
  invalid: [
    {
      name: "a bundle after do_not_submit",
      call: BUNDLE,
      evidence: { calls: [DECIDE("do_not_submit")] },
      data: {
        tool: "docs_create_submission_bundle",
        caseId: "CASE-ACT-001",
        action: "do_not_submit",
        submit: "auth_finalize_provider_determination(case_id=CASE-ACT-001, final_action=submit_pa, " +
          "override_reason=<the criteria the chart now documents>)",
      },
      reason:
        "Cannot call docs_create_submission_bundle on CASE-ACT-001: your provider determination for it " +
        "is do_not_submit, and a submission packet contradicts that decision. That recorded hold is the " +
        "case's outcome and needs no packet; only if the chart now backs every criterion, record " +
        "auth_finalize_provider_determination(case_id=CASE-ACT-001, final_action=submit_pa, " +
        "override_reason=<the criteria the chart now documents>) first.",
    },
  ],
};
