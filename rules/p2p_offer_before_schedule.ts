/**
 * Offer, then schedule: the P2P coordination files must appear in order (offer, slot response,
 * confirmation), so `p2p_schedule` needs slots offered first, by this session or already (a result showing
 * the request past `requested`). Replay runs a codex script's calls one after the other, so an offer and a
 * schedule in one script are in order (a passing-trial fire came from feeding them all at once).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { idArg, okCalls, plainText } from "../lib/guard/engine/facts.ts";
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { p2pNextStep, PAST_REQUESTED } from "../lib/guard/engine/next_ids.ts";

const SCHEDULE = toolCall("p2p.schedule", {
  request_id: "P2P-5439b781",
  payer_contact_id: "PAYER-CONTACT-001",
});
const OFFER = toolCall("p2p.offer_slots", { request_id: "P2P-5439b781" });

/** UM-16: no p2p_schedule before slots were offered for the request. */
export const rule: Rule<{ requestId: string; offer: string }> = {
  meta: {
    id: "UM-16",
    fromAbsence: true,
    name: "p2p-offer-before-schedule",
    seat: "payer",
    triggers: ["p2p.schedule"],
    protects: [
      "p2p.offer_written",
      "p2p.slot_response_written",
      "p2p.required_file_sequence_present",
      "p2p.required_file_sequence_ordered",
      "p2p.audit_chronology",
    ],
    message: "Cannot schedule the peer-to-peer for {requestId}: no slots were offered yet. Call {offer} " +
      "first, then p2p_schedule.",
  },
  check(call, evidence) {
    const requestId = idArg(call.input, "request_id");
    if (!requestId) return null;
    if (okCalls(evidence, "p2p.offer_slots", (i) => idArg(i, "request_id") === requestId).length) return null;
    const shown = evidence.calls.some((c) =>
      c.ok && c.text.includes(requestId) && PAST_REQUESTED.test(plainText(c.text))
    );
    return shown ? null : { requestId, offer: p2pNextStep(evidence, requestId) };
  },
  valid: [
    { name: "slots were offered", call: SCHEDULE, evidence: { calls: [OFFER] } },
    {
      name: "the listed request is past slot offering",
      call: SCHEDULE,
      evidence: {
        calls: [toolCall("p2p.list", { case_id: "CASE-3903B8ED" }, {
          result: { result: [{ id: "P2P-5439b781", status: "slot_selected" }] },
        })],
      },
    },
  ],
  invalid: [{
    name: "no slots offered for the request",
    call: SCHEDULE,
    evidence: { calls: [] },
    data: {
      requestId: "P2P-5439b781",
      offer:
        "people_list_reviewer_contacts(), then p2p_offer_slots(request_id=P2P-5439b781, payer_contact_id=<the " +
        "contact it returns>, slots=[<open slots>])",
    },
    reason: "Cannot schedule the peer-to-peer for P2P-5439b781: no slots were offered yet. Call " +
      "people_list_reviewer_contacts(), then p2p_offer_slots(request_id=P2P-5439b781, payer_contact_id=<the " +
      "contact it returns>, slots=[<open slots>]) first, then p2p_schedule.",
  }],
};
