/**
 * Artifact ids (P2P requests, outreach sessions, letters, bundles, forms, documents) must come from a result: a
 * guessed `request_id` or `letter_id` acts on nothing, or on another case's record. The next step names a tool of
 * the caller's own seat (a provider has no p2p_list) and the result that created the id. Grounding reads each
 * result's ids from the whole result, not the ledger's capped copy: a P2P request returned after a long MD
 * rationale, then echoed by the agent's own p2p_offer_slots, was scrubbed as an "own echo" and p2p_schedule blocked
 * on a real id (now a valid example).
 * A result Claude Code saved to a file counts: live the guard reads the file behind the notice, replay takes what
 * the agent read of it. In replay an id a saved result may hold that the agent never read is reported as not
 * observable, not as a block (lib/trajectories/replay.ts).
 * The next call names the id the record holds for the argument (the case's one P2P request, letter or
 * bundle), else the exact lookup that lists such ids, then the call; the call's other ids the record does not
 * hold are replaced by the ones it does (a request's own contact).
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { groundedIds, mutatingTools, shown } from "../lib/guard/engine/facts.ts";
import { ID_SHAPES, normalizeId, subjectKey } from "../lib/guard/engine/ids.ts";
import { type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { caseKeyOf, type Evidence } from "../lib/guard/engine/evidence.ts";
import { idsOfKind, unseenIdNext } from "../lib/guard/engine/next_ids.ts";
import { TOOLS } from "./catalog/tools.ts";

const ARGS = ["request_id", "session_id", "letter_id", "bundle_document_id", "form_id", "document_ids"];

/** The id kind of each single-id argument (lib/guard/engine/ids.ts ID_SHAPES). */
const KINDS: Record<string, keyof typeof ID_SHAPES> = {
  request_id: "p2p",
  session_id: "session",
  letter_id: "letter",
  bundle_document_id: "document",
};

/**
 * The artifact ids of the argument's kind the record holds for the call's case (a bundle id for
 * bundle_document_id); none for a list of documents, whose choice is the agent's: that gets the lookup.
 */
function knownFor(call: Call, ev: Evidence, arg: string): string[] {
  const kind = KINDS[arg];
  if (!kind) return [];
  const caseKey = caseKeyOf(call.input, ev.owners);
  return idsOfKind(ev, kind).filter((id) =>
    (arg !== "bundle_document_id" || /^DOC-BUNDLE-/.test(id)) &&
    (!caseKey || !ev.owners.has(id) || subjectKey(ev.owners.get(id)!) === caseKey)
  );
}

const CASE = "CASE-3903B8ED";
const LETTER = toolCall("payer_letter_center.generate_denial", { case_id: CASE }, {
  result: { letter: { id: "LET-cff9a2d8", case_id: CASE } },
});
const DELIVER = (id: string) => toolCall("payer_letter_center.deliver", { letter_id: id, channel: "portal" });
const PAYER = "# MD Review\n- Use only payer namespaces: `review`, `p2p`, `payer_letter_center`";
const PROVIDER = "# Clinical Intake\n- Use only provider namespaces: `cases`, `docs`, `auth`";
/** An MD rationale long enough to push the P2P request past the ledger's result cap. */
const LONG = "Criteria review: ".padEnd(17_000, "conservative therapy documented; ");
const P2P_DECISION = toolCall("review.submit_md_case_decision", {
  case_id: CASE,
  decision: "p2p_review",
  determination_rationale: LONG,
}, {
  result: {
    case_decision: {
      id: "MCD-1a2b3c4d",
      case_id: CASE,
      decision: "p2p_review",
      determination_rationale: LONG,
    },
    p2p_request: { id: "P2P-5439b781", case_id: CASE, status: "requested" },
  },
});
const OFFER = toolCall("p2p.offer_slots", {
  request_id: "P2P-5439b781",
  payer_contact_id: "PAYER-CONTACT-001",
  slots: ["2026-04-09T10:00:00"],
}, { result: { request: { id: "P2P-5439b781", status: "slots_offered" } } });
const SCHEDULE = toolCall("p2p.schedule", {
  request_id: "P2P-5439b781",
  payer_contact_id: "PAYER-CONTACT-001",
  scheduled_at: "2026-04-09T10:00:00",
});

/** GLOBAL-05: no mutation naming a request, session, letter, bundle, form or document id never returned. */
export const rule: Rule<{ tool: string; arg: string; value: string; next: string }> = {
  meta: {
    id: "GLOBAL-05",
    fromAbsence: true,
    name: "artifact-id-unseen",
    principle: "P-ALL-02",
    seat: "all",
    triggers: mutatingTools(TOOLS).filter((name) =>
      TOOLS.find((t) => t.name === name)?.args.some((a) => ARGS.includes(a))
    ),
    protects: [
      "p2p.result_recorded",
      "p2p.audit",
      "outcome.letter_types",
      "provider_pre_submission.required_documents_present",
    ],
    message: "Cannot call {tool} with {arg}={value}: no earlier result returned that id. {next}.",
  },
  check(call, evidence) {
    const grounded = groundedIds(evidence);
    for (const arg of ARGS) {
      const raw = call.input[arg];
      const values = Array.isArray(raw) ? raw : [raw];
      for (const value of values) {
        if (typeof value !== "string" || !value.trim()) continue;
        if (!grounded.has(normalizeId(value))) {
          const next = unseenIdNext(call, evidence, arg, knownFor(call, evidence, arg));
          return { tool: shown(call), arg, value: value.trim(), next };
        }
      }
    }
    return null;
  },
  valid: [
    {
      name: "a letter id from the generated letter",
      call: DELIVER("LET-cff9a2d8"),
      evidence: { calls: [LETTER] },
    },
    // The request id sits past the result cap and the agent's own offer echoes it: still grounded.
    {
      name: "a request id past the result cap, echoed by the agent's own offer",
      call: SCHEDULE,
      evidence: { prompt: PAYER, calls: [P2P_DECISION, OFFER] },
    },
  ],
  invalid: [
    {
      name: "a letter id never generated or listed",
      call: DELIVER("LET-00000001"),
      evidence: { prompt: PAYER, calls: [LETTER] },
      data: {
        tool: "payer_letter_center_deliver",
        arg: "letter_id",
        value: "LET-00000001",
        next: "Call payer_letter_center_deliver(letter_id=LET-cff9a2d8) (the letter_id the record holds)",
      },
      reason: "Cannot call payer_letter_center_deliver with letter_id=LET-00000001: no earlier result " +
        "returned that id. Call payer_letter_center_deliver(letter_id=LET-cff9a2d8) (the letter_id the record " +
        "holds).",
    },
    {
      name: "a letter id before any letter was listed",
      call: DELIVER("LET-00000001"),
      evidence: {
        prompt: PAYER,
        calls: [
          toolCall("payer_letter_center.list", { case_id: CASE }, { result: { case_id: CASE, items: [] } }),
        ],
      },
      data: {
        tool: "payer_letter_center_deliver",
        arg: "letter_id",
        value: "LET-00000001",
        next: "Call payer_letter_center_list(case_id=CASE-3903B8ED) first, then " +
          "payer_letter_center_deliver(letter_id=<the id exactly as it returns it>)",
      },
    },
    {
      name: "a provider's unseen document id, pointed at its own documents tool",
      // A provider is pointed at its own documents tool, never at a payer tool.
      call: toolCall("docs.create_submission_bundle", { case_id: "CASE-ACT-001", document_ids: ["DOC-x1"] }),
      evidence: { prompt: PROVIDER, calls: [] },
      data: {
        tool: "docs_create_submission_bundle",
        arg: "document_ids",
        value: "DOC-x1",
        next: "Call docs_list_case_documents(case_id=CASE-ACT-001) first, then " +
          "docs_create_submission_bundle(case_id=CASE-ACT-001, document_ids=<the id exactly as it returns it>)",
      },
    },
  ],
};
