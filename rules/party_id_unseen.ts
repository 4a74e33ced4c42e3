/**
 * Party ids (patient, ordering practitioner, payer contact) must come from the system. Agents invent contact ids
 * such as `PAYER-MD-001` or `SYSTEM`; the server may even echo them back, so ids seen only as echoes of the agent's
 * own arguments do not count. Grounding reads each result's ids from the whole result, not the ledger's capped copy:
 * a payer contact returned after a long case summary, then echoed by the agent's own p2p_offer_slots, was scrubbed
 * as an "own echo" and the p2p_schedule that opened the P2P was blocked (now a valid example).
 * A result Claude Code saved to a file counts: live the guard reads the file behind the notice, replay takes what
 * the agent read of it. In replay an id a saved result may hold that the agent never read is reported as not
 * observable, not as a block (lib/trajectories/replay.ts).
 * The next call names the id the record holds for the argument (a P2P request's own contact, the one id of
 * that kind), else the exact lookup that lists such ids, then the call. Not complete when the record holds
 * several contacts and the request names none of them: the reason lists them and leaves the choice (one codex
 * trial in P4, whose statically read script passed `payer_contact_id=U`).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { groundedIds, mutatingTools, shown } from "../lib/guard/engine/facts.ts";
import { normalizeId } from "../lib/guard/engine/ids.ts";
import { type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { contactFor, idsOfKind, unseenIdNext } from "../lib/guard/engine/next_ids.ts";
import { idArg } from "../lib/guard/engine/facts.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";
import { TOOLS } from "./catalog/tools.ts";

const ARGS = ["patient_id", "ordering_practitioner_id", "payer_contact_id", "preferred_contact_id"];
const REQUEST = toolCall("p2p.list", { case_id: "CASE-3903B8ED" }, {
  result: {
    result: [{ id: "P2P-5439b781", case_id: "CASE-3903B8ED", payer_contact_id: "PAYER-CONTACT-001" }],
  },
});
const SCHEDULE = (contact: string) =>
  toolCall("p2p.schedule", { request_id: "P2P-5439b781", payer_contact_id: contact });
/** A case summary long enough to push the request's contact past the ledger's result cap. */
const LONG = "Clinical summary: ".padEnd(17_000, "symptoms persist after therapy; ");
const CONTEXT = toolCall("p2p_session.get_context", { request_id: "P2P-5439b781" }, {
  result: {
    case_summary: LONG,
    request: { id: "P2P-5439b781", case_id: "CASE-3903B8ED", payer_contact_id: "PAYER-CONTACT-002" },
  },
});
const OFFER = toolCall("p2p.offer_slots", {
  request_id: "P2P-5439b781",
  payer_contact_id: "PAYER-CONTACT-002",
  slots: ["2026-04-09T10:00:00"],
}, { result: { request: { id: "P2P-5439b781", payer_contact_id: "PAYER-CONTACT-002" } } });

/** The id kind of each party argument (lib/guard/engine/ids.ts ID_SHAPES). */
const KINDS = {
  patient_id: "patient",
  ordering_practitioner_id: "practitioner",
  payer_contact_id: "contact",
  preferred_contact_id: "contact",
} as const;

/** The party ids the record holds for the argument: a P2P request's own contact first, else every one seen. */
function knownFor(call: Call, ev: Evidence, arg: keyof typeof KINDS): string[] {
  const request = idArg(call.input, "request_id");
  const contact = arg === "payer_contact_id" && request ? contactFor(ev, request) : "";
  return contact ? [contact] : idsOfKind(ev, KINDS[arg]);
}

/** GLOBAL-04: no mutation naming a patient, practitioner or contact id never seen in an earlier result. */
export const rule: Rule<{ tool: string; arg: string; value: string; next: string }> = {
  meta: {
    id: "GLOBAL-04",
    fromAbsence: true,
    name: "party-id-unseen",
    principle: "P-ALL-02",
    seat: "all",
    triggers: mutatingTools(TOOLS).filter((name) =>
      TOOLS.find((t) => t.name === name)?.args.some((a) => ARGS.includes(a))
    ),
    protects: [
      "p2p.audit",
      "p2p.result_recorded",
      "outcome.p2p_scheduled",
      "new_referral.case_created",
      "new_referral.service_request_created",
      "new_referral.case_status",
    ],
    message: "Cannot call {tool} with {arg}={value}: that id does not appear in the prompt or any earlier " +
      "result (an echo of your own argument does not count). {next}.",
  },
  check(call, evidence) {
    const grounded = groundedIds(evidence);
    for (const arg of ARGS as (keyof typeof KINDS)[]) {
      const value = call.input[arg];
      if (typeof value !== "string" || !value.trim()) continue;
      if (grounded.has(normalizeId(value))) continue;
      return {
        tool: shown(call),
        arg,
        value: value.trim(),
        next: unseenIdNext(call, evidence, arg, knownFor(call, evidence, arg)),
      };
    }
    return null;
  },
  valid: [
    {
      name: "a contact listed on the P2P request",
      call: SCHEDULE("PAYER-CONTACT-001"),
      evidence: { calls: [REQUEST] },
    },
    // The contact sits past the result cap and the agent's own offer echoes it: still grounded.
    {
      name: "a contact past the result cap, echoed by the agent's own offer",
      call: SCHEDULE("PAYER-CONTACT-002"),
      evidence: { calls: [CONTEXT, OFFER] },
    },
  ],
  invalid: [
    {
      name: "a reviewer id used as the payer contact",
      call: SCHEDULE("PAYER-MD-001"),
      evidence: {
        calls: [
          REQUEST,
          toolCall("review.save_md_review", { case_id: "CASE-3903B8ED", reviewer_id: "PAYER-MD-001" }, {
            result: { reviewer_id: "PAYER-MD-001" },
          }),
        ],
      },
      data: {
        tool: "p2p_schedule",
        arg: "payer_contact_id",
        value: "PAYER-MD-001",
        next: "Call p2p_schedule(request_id=P2P-5439b781, payer_contact_id=PAYER-CONTACT-001) (the " +
          "payer_contact_id the record holds)",
      },
      reason: "Cannot call p2p_schedule with payer_contact_id=PAYER-MD-001: that id does not appear in the " +
        "prompt or any earlier result (an echo of your own argument does not count). Call " +
        "p2p_schedule(request_id=P2P-5439b781, payer_contact_id=PAYER-CONTACT-001) (the payer_contact_id the " +
        "record holds).",
    },
    {
      name: "an id only the agent wrote in its own note",
      // An id the agent wrote inside its own note and the server echoed back is still the agent's own.
      call: SCHEDULE("PAYER-MD-007"),
      evidence: {
        calls: [
          REQUEST,
          toolCall("review.save_md_review", {
            case_id: "CASE-3903B8ED",
            notes: "Discussed with PAYER-MD-007 before scheduling.",
          }, { result: { notes: "Discussed with PAYER-MD-007 before scheduling." } }),
        ],
      },
      data: {
        tool: "p2p_schedule",
        arg: "payer_contact_id",
        value: "PAYER-MD-007",
        next: "Call p2p_schedule(request_id=P2P-5439b781, payer_contact_id=PAYER-CONTACT-001) (the " +
          "payer_contact_id the record holds)",
      },
    },
    {
      name: "a guessed contact, no directory read yet",
      call: toolCall("p2p.offer_slots", { request_id: "P2P-5439b781", payer_contact_id: "SYSTEM-MD" }),
      evidence: {
        prompt: "# MD Review\n- Use only payer namespaces: `review`, `p2p`",
        calls: [toolCall("p2p.list", { case_id: "CASE-3903B8ED" }, {
          result: { items: [{ id: "P2P-5439b781", case_id: "CASE-3903B8ED" }] },
        })],
      },
      data: {
        tool: "p2p_offer_slots",
        arg: "payer_contact_id",
        value: "SYSTEM-MD",
        next: "Call people_list_reviewer_contacts() first, then p2p_offer_slots(request_id=P2P-5439b781, " +
          "payer_contact_id=<the id exactly as it returns it>)",
      },
    },
  ],
};
