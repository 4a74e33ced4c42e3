/**
 * Stay in your seat: the prompt names the seat's namespaces, and a mutation through another seat's tool
 * writes audit rows the verifier counts as forbidden. Each seat's server exposes only its own tools, so this
 * never fired in real runs; it costs nothing and guards harnesses that expose every tool.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { mutatingTools, shown } from "../lib/guard/engine/facts.ts";
import { toolInfo } from "../lib/guard/engine/names.ts";
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { TOOLS } from "./catalog/tools.ts";

const SUBMIT = toolCall("auth.submit_authorization", { case_id: "CASE-ACT-001" });

/** GLOBAL-03: no mutating call outside the seat's own namespaces (shared P2P session tools excepted). */
export const rule: Rule<{ tool: string; seat: string }> = {
  meta: {
    id: "GLOBAL-03",
    name: "seat-namespace",
    seat: "all",
    triggers: mutatingTools(TOOLS),
    protects: ["cross.forbidden_mutations", "cm.cross_stage.no_forbidden_mutations"],
    message: "Cannot call {tool}: it belongs to another seat, and this session plays the {seat} seat. " +
      "Use only the namespaces your task prompt lists and continue with your own seat's tools.",
  },
  check(call, evidence) {
    const domain = toolInfo(call.tool)?.domain;
    if (!evidence.seat || !domain || domain === "shared" || domain === evidence.seat) return null;
    return { tool: shown(call), seat: evidence.seat };
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
      name: "a provider tool at the payer seat",
      call: SUBMIT,
      evidence: { seat: "payer" },
      data: { tool: "auth_submit_authorization", seat: "payer" },
    },
  ],
};
