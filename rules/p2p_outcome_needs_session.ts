/**
 * No outcome for a conversation that never happened: in 24 of 25 `md.signed_off` failures the P2P never
 * opened (offer stayed slots_offered, get_context said "No active peer-to-peer session") and the agent
 * recorded a fabricated uphold anyway. An opened session whose simulator later failed is allowed (two
 * passing glm runs did exactly that).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { idArg, sessionOpened, shown } from "../lib/guard/engine/facts.ts";
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { p2pNextStep } from "../lib/guard/engine/next_ids.ts";

const RECORD = toolCall("p2p.record_outcome", {
  request_id: "P2P-5439b781",
  outcome: "uphold_intended_adverse_decision",
});
const NO_SESSION = toolCall("p2p_session.get_context", { request_id: "P2P-5439b781" }, {
  error: "No active peer-to-peer session",
});

/** UM-09: no P2P outcome or summary for a request whose session never opened. */
export const rule: Rule<{ tool: string; requestId: string; next: string }> = {
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
      "a P2P that did not occur; its next step is {next}, until the session is event_open and the " +
      "conversation (p2p_session_send_turn) has taken place.",
  },
  check(call, evidence) {
    const requestId = idArg(call.input, "request_id");
    if (!requestId || sessionOpened(evidence, requestId)) return null;
    return { tool: shown(call), requestId, next: p2pNextStep(evidence, requestId) };
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
      data: {
        tool: "p2p_record_outcome",
        requestId: "P2P-5439b781",
        next:
          "people_list_reviewer_contacts(), then p2p_offer_slots(request_id=P2P-5439b781, payer_contact_id=<the " +
          "contact it returns>, slots=[<open slots>])",
      },
    },
    {
      name: "slots offered, no session opened",
      call: RECORD,
      evidence: {
        calls: [
          toolCall("people.list_reviewer_contacts", {}, { result: { items: [{ id: "PAYER-CONTACT-002" }] } }),
          toolCall("p2p.offer_slots", { request_id: "P2P-5439b781", payer_contact_id: "PAYER-CONTACT-002" }, {
            result: {
              p2p_request: {
                id: "P2P-5439b781",
                status: "slots_offered",
                payer_contact_id: "PAYER-CONTACT-002",
              },
            },
          }),
        ],
      },
      data: {
        tool: "p2p_record_outcome",
        requestId: "P2P-5439b781",
        next:
          "p2p_schedule(request_id=P2P-5439b781, payer_contact_id=PAYER-CONTACT-002, scheduled_at=<one of the " +
          "offered slots>)",
      },
      reason:
        "Cannot call p2p_record_outcome for P2P-5439b781: no peer-to-peer conversation has happened (no " +
        "successful p2p_session_get_context or p2p_session_send_turn, no event_open status). Do not record an " +
        "outcome for a P2P that did not occur; its next step is p2p_schedule(request_id=P2P-5439b781, " +
        "payer_contact_id=PAYER-CONTACT-002, scheduled_at=<one of the offered slots>), until the session is " +
        "event_open and the conversation (p2p_session_send_turn) has taken place.",
    },
  ],
};
