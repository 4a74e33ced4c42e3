/**
 * The triage record's `gold_card_eligible` must be what `triage_check_gold_card` returned
 * (`triage.gold_card_matches` compares it with the truth the check reports). Without a check there is
 * nothing to copy, so the check comes first.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase, plainText } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const CHECK = (eligible: boolean) =>
  toolCall("triage.check_gold_card", { case_id: "CASE-3903B8ED" }, {
    result: { case_id: "CASE-3903B8ED", gold_card_eligible: eligible },
  });
const DISPOSE = (eligible: boolean) =>
  toolCall("triage.set_disposition", { case_id: "CASE-3903B8ED", gold_card_eligible: eligible });

/** UM-13: no triage disposition whose gold_card_eligible differs from (or precedes) triage_check_gold_card. */
export const rule: Rule<{ caseId: string; state: string; next: string }> = {
  meta: {
    id: "UM-13",
    fromAbsence: true,
    name: "gold-card-from-check",
    seat: "payer",
    triggers: ["triage.set_disposition"],
    protects: ["triage.gold_card_matches", "triage.disposition_matches"],
    message: "Cannot set the triage disposition for {caseId} with this gold_card_eligible: {state}. {next}.",
  },
  check(call, evidence) {
    if (typeof call.input.gold_card_eligible !== "boolean") return null;
    const last = okOnCase(evidence, "triage.check_gold_card", call.input).at(-1);
    const caseId = arg(call, "case_id");
    if (!last) {
      return {
        caseId,
        state: "triage_check_gold_card has not been called",
        next: `Call ${callText("triage.check_gold_card", { case_id: caseId })} first, then ` +
          "triage_set_disposition with the gold_card_eligible it returns",
      };
    }
    const found = /"gold_card_eligible"\s*:\s*(true|false)/.exec(plainText(last.text))?.[1];
    if (found === undefined || String(call.input.gold_card_eligible) === found) return null;
    return {
      caseId,
      state: `triage_check_gold_card returned gold_card_eligible=${found}`,
      next: `Call ${
        callText("triage.set_disposition", { case_id: caseId, gold_card_eligible: found === "true" })
      } with your other arguments as they are`,
    };
  },
  valid: [
    {
      name: "eligibility as the gold-card check returned it",
      call: DISPOSE(true),
      evidence: { calls: [CHECK(true)] },
    },
    {
      name: "a disposition without a gold-card claim",
      call: toolCall("triage.set_disposition", { case_id: "CASE-3903B8ED" }),
      evidence: { calls: [] },
    },
  ],
  invalid: [
    {
      name: "eligible where the check said not eligible",
      call: DISPOSE(true),
      evidence: { calls: [CHECK(false)] },
      data: {
        caseId: "CASE-3903B8ED",
        state: "triage_check_gold_card returned gold_card_eligible=false",
        next:
          "Call triage_set_disposition(case_id=CASE-3903B8ED, gold_card_eligible=false) with your other " +
          "arguments as they are",
      },
      reason: "Cannot set the triage disposition for CASE-3903B8ED with this gold_card_eligible: " +
        "triage_check_gold_card returned gold_card_eligible=false. Call triage_set_disposition(case_id=" +
        "CASE-3903B8ED, gold_card_eligible=false) with your other arguments as they are.",
    },
    {
      name: "a gold-card claim before any check",
      call: DISPOSE(false),
      evidence: { calls: [] },
      data: {
        caseId: "CASE-3903B8ED",
        state: "triage_check_gold_card has not been called",
        next:
          "Call triage_check_gold_card(case_id=CASE-3903B8ED) first, then triage_set_disposition with the " +
          "gold_card_eligible it returns",
      },
    },
  ],
};
