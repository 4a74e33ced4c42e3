/**
 * The letter follows the determination: an approval, denial or partial-approval letter needs a finalized
 * determination with that decision (`outcome.letter_types`). A fast-track approval by routing counts as an
 * approved determination; so does an approved/denied status shown by a result. Replay runs a codex
 * script's calls one after the other: a letter generated right after determination_finalize in the same
 * script follows it (two passing-trial fires came from feeding the script's calls all at once).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { okOnCase, plainText, shown } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";

const TYPE: Record<string, string> = {
  "payer_letter_center.generate_approval": "approved",
  "payer_letter_center.generate_denial": "denied",
  "payer_letter_center.generate_partial_approval": "partially_approved",
};
const LETTER_FOR: Record<string, string> = {
  approved: "payer_letter_center.generate_approval",
  denied: "payer_letter_center.generate_denial",
  partially_approved: "payer_letter_center.generate_partial_approval",
};
const STATUS = /"(?:status|final_decision)"\s*:\s*"(approved|denied|partially_approved)"/g;

/** The case's finalized decision: the session's own finalize, a fast-track route, or statuses shown by results. */
export function finalDecisions(ev: Evidence, input: Record<string, unknown>): string[] {
  const own = okOnCase(ev, "determination.finalize", input).at(-1);
  if (own) return [String(own.input.decision)];
  const seen = new Set<string>();
  for (const c of ev.calls) {
    if (!c.ok || !/^(triage|determination|payer_letter_center|review)\./.test(c.tool)) continue;
    for (const m of plainText(c.text).matchAll(STATUS)) seen.add(m[1]);
  }
  return [...seen];
}

const DENIAL = toolCall("payer_letter_center.generate_denial", { case_id: "CASE-3903B8ED" });
const FINAL = (decision: string) =>
  toolCall("determination.finalize", { case_id: "CASE-3903B8ED", decision });

/** UM-10: no decision letter without a finalized determination of the same decision. */
export const rule: Rule<{ tool: string; caseId: string; state: string; next: string }> = {
  meta: {
    id: "UM-10",
    fromAbsence: true,
    name: "letter-matches-determination",
    principle: "P-UM-13",
    seat: "payer",
    triggers: Object.keys(TYPE),
    protects: ["outcome.letter_types"],
    message: "Cannot call {tool} for {caseId}: {state}. {next}.",
  },
  check(call, evidence) {
    const wanted = TYPE[call.tool];
    const decisions = finalDecisions(evidence, call.input);
    if (decisions.includes(wanted)) return null;
    const caseId = arg(call, "case_id");
    if (!decisions.length) {
      return {
        tool: shown(call),
        caseId,
        state: "no determination is finalized for it yet",
        next: `Call ${
          callText("determination.finalize", {
            case_id: caseId,
            decision: "<the decision the review supports>",
          })
        } first, then the letter that matches its decision`,
      };
    }
    return {
      tool: shown(call),
      caseId,
      state: `the determination is ${decisions[0]}`,
      next: `Call ${callText(LETTER_FOR[decisions[0]], { case_id: caseId })} instead`,
    };
  },
  valid: [
    {
      name: "a denial letter after a denied determination",
      call: DENIAL,
      evidence: { calls: [FINAL("denied")] },
    },
    {
      name: "an approval letter after a fast-track route shows approved",
      call: toolCall("payer_letter_center.generate_approval", { case_id: "CASE-3903B8ED" }),
      evidence: {
        calls: [
          toolCall("triage.route_case", { case_id: "CASE-3903B8ED" }, {
            result: { case: { status: "approved" } },
          }),
        ],
      },
    },
  ],
  invalid: [
    {
      name: "a denial letter after an approved determination",
      call: DENIAL,
      evidence: { calls: [FINAL("approved")] },
      data: {
        tool: "payer_letter_center_generate_denial",
        caseId: "CASE-3903B8ED",
        state: "the determination is approved",
        next: "Call payer_letter_center_generate_approval(case_id=CASE-3903B8ED) instead",
      },
      reason: "Cannot call payer_letter_center_generate_denial for CASE-3903B8ED: the determination is " +
        "approved. Call payer_letter_center_generate_approval(case_id=CASE-3903B8ED) instead.",
    },
    {
      name: "a letter before any determination",
      call: DENIAL,
      evidence: { calls: [] },
      data: {
        tool: "payer_letter_center_generate_denial",
        caseId: "CASE-3903B8ED",
        state: "no determination is finalized for it yet",
        next:
          "Call determination_finalize(case_id=CASE-3903B8ED, decision=<the decision the review supports>) " +
          "first, then the letter that matches its decision",
      },
    },
  ],
};
