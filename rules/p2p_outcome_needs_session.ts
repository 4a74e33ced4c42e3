/**
 * No outcome for a conversation that never happened: in 24 of 25 `md.signed_off` failures the P2P never
 * opened (offer stayed slots_offered, get_context said "No active peer-to-peer session") and the agent
 * recorded a fabricated uphold anyway. An opened session whose simulator later failed is allowed (two
 * passing glm runs did exactly that).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { idArg, shown, showsEventOpen } from "../lib/guard/engine/facts.ts";
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";

const SESSION = ["p2p_session.get_context", "p2p_session.send_turn"];
const SCHEDULING = ["p2p.offer_slots", "p2p.schedule"];
/** A result that reports an error in its text although the harness did not flag it (seen in openai-agents runs). */
const NOT_OPEN =
  /^\W*(?:\{"type":\s*"text",\s*"text":\s*")?Error executing tool|No active peer-to-peer session/;

/** True when the P2P session for the request opened in this session. */
export function sessionOpened(ev: Evidence, requestId: string): boolean {
  return ev.calls.some((c) =>
    c.ok && idArg(c.input, "request_id") === requestId && !NOT_OPEN.test(c.text) &&
    (SESSION.includes(c.tool) || (SCHEDULING.includes(c.tool) && showsEventOpen(c.text)))
  );
}

const RECORD = toolCall("p2p.record_outcome", {
  request_id: "P2P-5439b781",
  outcome: "uphold_intended_adverse_decision",
});
const NO_SESSION = toolCall("p2p_session.get_context", { request_id: "P2P-5439b781" }, {
  error: "No active peer-to-peer session",
});

/** UM-09: no P2P outcome or summary for a request whose session never opened. */
export const rule: Rule<{ tool: string; requestId: string }> = {
  meta: {
    id: "UM-09",
    fromAbsence: true,
    name: "p2p-outcome-needs-session",
    principle: "P-UM-11",
    seat: "payer",
    triggers: ["p2p.record_outcome", "p2p_session.submit_summary"],
    protects: [
      "p2p.result_recorded",
      "p2p.turns_recorded",
      "outcome.p2p_outcome_matches",
      "p2p.determination_matches_contract",
      "outcome.target_status",
      "outcome.letter_types",
    ],
    message: "Cannot call {tool} for {requestId}: no peer-to-peer conversation has happened (no successful " +
      "p2p_session_get_context or p2p_session_send_turn, no event_open status). Do not record an outcome for " +
      "a P2P that did not occur: call p2p_offer_slots and p2p_schedule with request_id={requestId} and a " +
      "payer_contact_id from the directory until it is event_open, then p2p_session_send_turn.",
  },
  check(call, evidence) {
    const requestId = idArg(call.input, "request_id");
    if (!requestId || sessionOpened(evidence, requestId)) return null;
    return { tool: shown(call), requestId };
  },
  valid: [
    {
      name: "a session turn was sent",
      call: RECORD,
      evidence: { calls: [toolCall("p2p_session.send_turn", { request_id: "P2P-5439b781", message: "Hi" })] },
    },
    {
      name: "scheduling reported the event open",
      call: RECORD,
      evidence: {
        calls: [
          toolCall("p2p.schedule", { request_id: "P2P-5439b781" }, { result: { status: "event_open" } }),
        ],
      },
    },
  ],
  invalid: [
    {
      name: "the session never opened",
      call: RECORD,
      evidence: { calls: [NO_SESSION] },
      data: { tool: "p2p_record_outcome", requestId: "P2P-5439b781" },
    },
    {
      name: "slots offered, no session opened",
      call: RECORD,
      evidence: {
        calls: [
          toolCall("p2p.offer_slots", { request_id: "P2P-5439b781" }, {
            result: { status: "slots_offered" },
          }),
        ],
      },
      data: { tool: "p2p_record_outcome", requestId: "P2P-5439b781" },
    },
  ],
};
