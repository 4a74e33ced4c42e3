/**
 * Stay in your seat: the prompt names the seat's namespaces, and a mutation through another seat's tool
 * writes audit rows the verifier counts as forbidden. Each seat's server exposes only its own tools, so this
 * never fired in real runs; it costs nothing and guards harnesses that expose every tool. The next call it
 * names is a read of where the seat's own case stands (the call that does belong to the seat depends on the
 * stage, which that read shows); with no case known yet it names none, and says why.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { mutatingTools, shown } from "../lib/guard/engine/facts.ts";
import { toolInfo } from "../lib/guard/engine/names.ts";
import { type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { caseIdFor } from "../lib/guard/engine/next_ids.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";
import { TOOLS } from "./catalog/tools.ts";

const SUBMIT = toolCall("auth.submit_authorization", { case_id: "CASE-ACT-001" });

/** Each seat's read of where its case stands. */
const STATE: Record<string, string> = {
  provider: "cases.get_case",
  payer: "determination.get_summary",
  cm: "cm_chart.get_chart_data",
};

/** The seat's own next step: its read of the case's state when the case is known. */
function nextFor(call: Call, ev: Evidence, seat: string): string {
  const caseId = caseIdFor(ev, call);
  return caseId && STATE[seat]
    ? `Read where your own case stands with ${
      callText(STATE[seat], { case_id: caseId })
    }, then continue with ` +
      "your seat's tools"
    : "No case of your seat is known yet: start with the list tool your task prompt's namespaces offer";
}

/** GLOBAL-03: no mutating call outside the seat's own namespaces (shared P2P session tools excepted). */
export const rule: Rule<{ tool: string; seat: string; next: string }> = {
  meta: {
    id: "GLOBAL-03",
    name: "seat-namespace",
    seat: "all",
    triggers: mutatingTools(TOOLS),
    protects: ["cross.forbidden_mutations", "cm.cross_stage.no_forbidden_mutations"],
    message: "Cannot call {tool}: it belongs to another seat, and this session plays the {seat} seat. " +
      "{next}.",
  },
  check(call, evidence) {
    const domain = toolInfo(call.tool)?.domain;
    if (!evidence.seat || !domain || domain === "shared" || domain === evidence.seat) return null;
    return { tool: shown(call), seat: evidence.seat, next: nextFor(call, evidence, evidence.seat) };
  },
  valid: [
    { name: "a provider tool at the provider seat", call: SUBMIT, evidence: { seat: "provider" } },
    {
      name: "a shared P2P session tool at the payer seat",
      call: toolCall("p2p_session.send_turn", { request_id: "P2P-1" }),
      evidence: { seat: "payer" },
    },
    { name: "no seat known yet", call: SUBMIT, evidence: {} },
  ],
  invalid: [
    {
      name: "a provider tool at the payer seat, no case known",
      call: toolCall("auth.submit_authorization", { channel: "portal" }),
      evidence: { seat: "payer" },
      data: {
        tool: "auth_submit_authorization",
        seat: "payer",
        next:
          "No case of your seat is known yet: start with the list tool your task prompt's namespaces offer",
      },
    },
    {
      name: "a provider tool at the payer seat working on a case",
      call: toolCall("auth.submit_authorization", { case_id: "CASE-3903B8ED" }),
      evidence: {
        seat: "payer",
        calls: [
          toolCall("payer_intake_hub.list_intake_queue", {}, {
            result: { result: [{ case_id: "CASE-3903B8ED" }] },
          }),
        ],
      },
      data: {
        tool: "auth_submit_authorization",
        seat: "payer",
        next: "Read where your own case stands with determination_get_summary(case_id=CASE-3903B8ED), then " +
          "continue with your seat's tools",
      },
      reason:
        "Cannot call auth_submit_authorization: it belongs to another seat, and this session plays the " +
        "payer seat. Read where your own case stands with determination_get_summary(case_id=CASE-3903B8ED), " +
        "then continue with your seat's tools.",
    },
  ],
};
