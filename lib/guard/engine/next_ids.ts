/**
 * The ids a block reason's next call needs, taken from the evidence: the case this session works on, a P2P
 * request's contact, a case's documents, and, where the evidence holds no such id yet, the exact lookup call
 * (tool and arguments) that returns it. Pure queries over the evidence; the reasons write the calls with
 * `callText` (next_call.ts).
 */
import { caseKeyOf, type Evidence } from "./evidence.ts";
import { groundedIds, idArg, objectArg, okCalls, plainText, rawCase, sessionOpened } from "./facts.ts";
import { extractIds, ID_SHAPES, normalizeId, subjectKey } from "./ids.ts";
import { callText } from "./next_call.ts";
import { isMutating, toolInfo } from "./names.ts";
import type { Call } from "./rule.ts";

/** True when the evidence holds the id (seen in the prompt or a result, not only as the agent's own echo). */
export function grounded(ev: Evidence, id: string): boolean {
  return !!id && groundedIds(ev).has(normalizeId(id));
}

/**
 * The case id the session works on, as the system wrote it: the case it already changed (its lock), found in
 * a successful call's case argument or result; "" when none.
 */
export function lockedCaseId(ev: Evidence): string {
  if (!ev.caseLock) return "";
  for (const c of ev.calls) {
    if (!c.ok || !isMutating(c.tool)) continue;
    const raw = rawCase(c.input);
    if (raw && !/^REF-/.test(raw) && caseKeyOf(c.input, ev.owners) === ev.caseLock) return raw;
  }
  for (const c of ev.calls) {
    if (!c.ok) continue;
    for (const id of extractIds(c.text)) {
      if (ID_SHAPES.case.test(id) && subjectKey(id) === ev.caseLock) return id;
    }
  }
  return "";
}

/**
 * The case id for a call's next step: the call's own when the evidence holds it, else the case the session
 * changed, else the one case the evidence holds, else the call's own as written ("" when it names none).
 */
export function caseIdFor(ev: Evidence, call: Call): string {
  const own = rawCase(call.input);
  if (own && grounded(ev, own)) return own;
  const only = idsOfKind(ev, "case");
  return lockedCaseId(ev) || (only.length === 1 ? only[0] : "") || own;
}

/** Ids of one kind (ID_SHAPES) the evidence holds, as the results wrote them, oldest first. */
export function idsOfKind(ev: Evidence, kind: keyof typeof ID_SHAPES): string[] {
  const out: string[] = [];
  for (const c of ev.calls) {
    if (!c.ok) continue;
    for (const m of plainText(c.text).matchAll(/[A-Za-z0-9_-]{4,64}/g)) {
      const id = m[0];
      if (ID_SHAPES[kind].test(id) && !out.includes(id) && grounded(ev, id)) out.push(id);
    }
  }
  return out;
}

/**
 * The payer contact a P2P request goes with: the one a successful offer or schedule of it used, else the
 * one a result names for it; "" when the evidence shows none.
 */
export function contactFor(ev: Evidence, requestId: string): string {
  for (const tool of ["p2p.schedule", "p2p.offer_slots"]) {
    const used = okCalls(ev, tool, (i) => idArg(i, "request_id") === requestId)
      .map((c) => idArg(c.input, "payer_contact_id")).filter((id) => grounded(ev, id)).at(-1);
    if (used) return used;
  }
  for (const c of ev.calls) {
    if (!c.ok || !c.text.includes(requestId)) continue;
    const named = /"payer_contact_id"\s*:\s*"([^"]+)"/.exec(plainText(c.text))?.[1];
    if (named && grounded(ev, named)) return named;
  }
  return "";
}

/** Documents of a case the evidence holds (its uploads, then its document list), submission bundles apart. */
export function caseDocuments(ev: Evidence, caseId: string): string[] {
  const out: string[] = [];
  const add = (id: unknown) => {
    if (typeof id === "string" && /^DOC-/.test(id) && !/^DOC-BUNDLE-/.test(id) && !out.includes(id)) {
      if (grounded(ev, id)) out.push(id);
    }
  };
  for (const c of ev.calls) {
    if (!c.ok || idArg(c.input, "case_id") !== caseId) continue;
    if (c.tool === "docs.upload_evidence" || c.tool === "docs.upload_evidence_file") {
      add(/"id"\s*:\s*"(DOC-[^"]+)"/.exec(plainText(c.text))?.[1]);
    } else if (c.tool === "docs.list_case_documents") {
      for (const m of plainText(c.text).matchAll(/"id"\s*:\s*"(DOC-[^"]+)"/g)) add(m[1]);
    }
  }
  return out;
}

/** Per id argument and seat, the tool that lists such ids (`byCase`: for the case, by its case_id). */
const LISTS: Record<string, Record<string, { tool: string; byCase?: true; args?: Record<string, string> }>> =
  {
    case_id: {
      provider: { tool: "cases.list_cases" },
      payer: { tool: "payer_intake_hub.list_intake_queue" },
      cm: { tool: "cm_intake.list_referral_queue" },
    },
    referral_id: { cm: { tool: "cm_intake.list_referral_queue" } },
    patient_id: { provider: { tool: "chart.search_patients", args: { query: "<the member's name>" } } },
    ordering_practitioner_id: { provider: { tool: "people.list_ordering_providers" } },
    payer_contact_id: { payer: { tool: "people.list_reviewer_contacts" } },
    preferred_contact_id: { provider: { tool: "people.list_contacts" } },
    request_id: {
      payer: { tool: "p2p.list", byCase: true },
      provider: { tool: "auth.check_status", byCase: true, args: { channel: "portal" } },
    },
    letter_id: { payer: { tool: "payer_letter_center.list", byCase: true } },
    bundle_document_id: { provider: { tool: "docs.list_case_documents", byCase: true } },
    document_ids: { provider: { tool: "docs.list_case_documents", byCase: true } },
    form_id: { provider: { tool: "forms.list_required_forms", byCase: true } },
  };

/**
 * The exact call that returns ids of `arg` for the session's seat (the tool's own domain when the seat is
 * unknown), with the case filled from the evidence; null when no tool lists them or the case is unknown.
 */
export function lookupCall(arg: string, call: Call, ev: Evidence): string | null {
  const domain = toolInfo(call.tool)?.domain;
  const seat = ev.seat ?? (domain === "shared" ? null : domain) ?? "";
  const list = LISTS[arg]?.[seat];
  if (!list) return null;
  const caseId = list.byCase ? caseIdFor(ev, call) : "";
  if (list.byCase && !caseId) return null;
  return callText(list.tool, { ...(list.byCase ? { case_id: caseId } : {}), ...list.args });
}

/**
 * The call again with its id arguments as given and `changes` on top (free text and flags left to the
 * model). With the evidence, an id argument the evidence does not hold is replaced by the one it does hold
 * for it (the case's, the request's contact), when there is one.
 */
export function sameCallWith(call: Call, changes: Record<string, unknown> = {}, ev?: Evidence): string {
  const info = toolInfo(call.tool);
  const ids = [...info?.caseArgs ?? [], ...info?.idArgs ?? []];
  const kept: Record<string, unknown> = {};
  for (const a of ids) {
    const value = call.input[a];
    if (value === undefined) continue;
    const held = !ev || [value].flat().every((v) => typeof v === "string" && grounded(ev, v));
    kept[a] = held
      ? value
      : heldFor(ev!, { tool: call.tool, input: { ...call.input, ...changes } }, a) || value;
  }
  return callText(call.tool, { ...kept, ...changes });
}

/** The id the evidence holds for an argument of the call, or "" (see sameCallWith). */
function heldFor(ev: Evidence, call: Call, arg: string): string {
  if (arg === "case_id") return sessionCaseId(ev);
  if (arg === "request_id") return p2pRequestFor(ev, sessionCaseId(ev));
  if (arg === "payer_contact_id") {
    const request = idArg(call.input, "request_id");
    const contacts = idsOfKind(ev, "contact");
    return (grounded(ev, request) ? contactFor(ev, request) : "") ||
      (contacts.length === 1 ? contacts[0] : "");
  }
  return "";
}

/**
 * The next call for an id the evidence does not hold: the one id of that kind the evidence does hold for it
 * (`known`), in the same call; else the lookup that lists such ids, then the call with the id it returns.
 */
export function unseenIdNext(call: Call, ev: Evidence, arg: string, known: string[]): string {
  if (known.length === 1) {
    return `Call ${sameCallWith(call, { [arg]: known[0] }, ev)} (the ${arg} the record holds)`;
  }
  const then = sameCallWith(call, { [arg]: "<the id exactly as it returns it>" }, ev);
  if (known.length > 1) {
    return `Call ${
      sameCallWith(call, { [arg]: `<one of ${known.slice(0, 5).join(", ")}>` }, ev)
    }: the record ` +
      "holds these, pick the one the case names";
  }
  const lookup = lookupCall(arg, call, ev);
  return lookup
    ? `Call ${lookup} first, then ${then}`
    : `Look the id up with your seat's list tool, then ${then}`;
}

/** The P2P request of a case the evidence holds (the latest), or "" when it shows none. */
export function p2pRequestFor(ev: Evidence, caseId: string): string {
  const key = subjectKey(caseId);
  return idsOfKind(ev, "p2p").filter((id) => !ev.owners.has(id) || subjectKey(ev.owners.get(id)!) === key)
    .at(-1) ?? "";
}

/** The P2P step that needs a request id: with the case's request when the record holds it, else after p2p_list. */
export function withP2pRequest(ev: Evidence, caseId: string, make: (requestId: string) => string): string {
  const request = p2pRequestFor(ev, caseId);
  if (request) return make(request);
  return `${callText("p2p.list", { case_id: caseId })} (it lists the case's request), then ` +
    make("<the request id it returns>");
}

/** A P2P request whose slots were offered (an offer succeeded, or a result shows it past `requested`). */
export const PAST_REQUESTED =
  /"status"\s*:\s*"(?:slots_offered|slot_selected|scheduled|event_open|completed)"/;
const PAST_OFFERED = /"status"\s*:\s*"(?:slot_selected|scheduled|event_open|completed)"/;

function reached(ev: Evidence, requestId: string, tool: string, status: RegExp): boolean {
  return okCalls(ev, tool, (i) => idArg(i, "request_id") === requestId).length > 0 ||
    ev.calls.some((c) => c.ok && c.text.includes(requestId) && status.test(plainText(c.text)));
}

/**
 * The P2P's next step for a request, with its ids from the record: offer slots (with the request's contact,
 * or the directory lookup first), schedule one offered slot, open the session, then record its summary.
 */
export function p2pNextStep(ev: Evidence, requestId: string): string {
  const contact = contactFor(ev, requestId) ||
    (idsOfKind(ev, "contact").length === 1 ? idsOfKind(ev, "contact")[0] : "");
  const withContact = (make: (contact: string) => string) =>
    contact
      ? make(contact)
      : `${callText("people.list_reviewer_contacts")}, then ${make("<the contact it returns>")}`;
  if (!reached(ev, requestId, "p2p.offer_slots", PAST_REQUESTED)) {
    return withContact((c) =>
      callText("p2p.offer_slots", { request_id: requestId, payer_contact_id: c, slots: ["<open slots>"] })
    );
  }
  if (!reached(ev, requestId, "p2p.schedule", PAST_OFFERED)) {
    return withContact((c) =>
      callText("p2p.schedule", {
        request_id: requestId,
        payer_contact_id: c,
        scheduled_at: "<one of the offered slots>",
      })
    );
  }
  if (!sessionOpened(ev, requestId)) return callText("p2p_session.get_context", { request_id: requestId });
  return callText("p2p_session.submit_summary", {
    request_id: requestId,
    summary: "<what the discussion established>",
    proposed_result: "<upheld or overturned>",
  });
}

/** The intake decisions call, its flags left to what the documents show. */
export function confirmCall(caseId: string): string {
  const flag = "<true or false, as the documents show>";
  return callText("payer_intake_hub.confirm_decisions", {
    case_id: caseId,
    request_complete: flag,
    member_eligible: flag,
    service_covered: flag,
    provider_network_status: "<as the documents show>",
  });
}

/** The four assessment sections a completion needs. */
export const CM_SECTIONS = ["clinical", "medication", "behavioral_health", "sdoh"];

/**
 * The care-management chain's next step for a case, with its ids: chart review, the outreach call (ended with
 * its session's id), the assessment (started, each missing section, completed), then the care plan (draft,
 * saved, finalized); "" when the plan is finalized. `from` skips the steps before it (`assessment`, `plan`).
 */
export function cmNextStep(
  ev: Evidence,
  caseId: string,
  from: "chart" | "assessment" | "plan" = "chart",
): string {
  const key = subjectKey(caseId);
  const done = (tool: string) => okCalls(ev, tool).some((c) => caseKeyOf(c.input, ev.owners) === key);
  const on = { case_id: caseId };
  if (from === "chart") {
    if (!done("cm_chart.submit_chart_review")) {
      return callText("cm_chart.submit_chart_review", { ...on, review: "<the chart findings>" });
    }
    if (!done("cm_outreach.end_outreach_call")) {
      const session = idsOfKind(ev, "session").at(-1);
      return session
        ? callText("cm_outreach.end_outreach_call", {
          session_id: session,
          summary: "<what the member said>",
        })
        : callText("cm_outreach.start_outreach_call", on);
    }
  }
  if (from !== "plan") {
    if (!done("cm_assessment.start_assessment")) return callText("cm_assessment.start_assessment", on);
    const saved = new Set(
      okCalls(ev, "cm_assessment.save_section").filter((c) => caseKeyOf(c.input, ev.owners) === key)
        .map((c) => String(objectArg(c.input.payload)?.section ?? "")),
    );
    const missing = CM_SECTIONS.find((s) => !saved.has(s));
    if (missing) {
      return callText("cm_assessment.save_section", {
        ...on,
        payload: { section: missing, data: "<what the chart and the member established>" },
      });
    }
    if (!done("cm_assessment.complete_assessment")) return callText("cm_assessment.complete_assessment", on);
  }
  if (!done("cm_care_plan.create_draft")) return callText("cm_care_plan.create_draft", on);
  if (!done("cm_care_plan.save_care_plan")) {
    return callText("cm_care_plan.save_care_plan", { ...on, plan_data: "<the whole plan>" });
  }
  if (!done("cm_care_plan.finalize")) return callText("cm_care_plan.finalize", on);
  return "";
}

/** Opening the case: from the one referral the record holds, or after listing the queue. */
export function cmOpenCall(ev: Evidence): string {
  const referrals = idsOfKind(ev, "referral");
  const open = (referral: string) =>
    callText("cm_intake.open_case", {
      referral_id: referral,
      priority: "<the referral's priority>",
      program: "<the referral's program>",
    });
  return referrals.length === 1
    ? open(referrals[0])
    : `${callText("cm_intake.list_referral_queue")}, then ${open("<the referral that matches the prompt>")}`;
}

/**
 * The case the session works on: the one it changed, else the last case the agent itself looked up (a
 * successful call naming it that the system knows), else the one case the evidence holds ("" when none).
 */
export function sessionCaseId(ev: Evidence): string {
  const locked = lockedCaseId(ev);
  if (locked) return locked;
  const caseOfCall = (input: Record<string, unknown>) => {
    const own = rawCase(input);
    if (own) return own;
    const owned = ["request_id", "session_id", "letter_id"].map((a) => idArg(input, a)).find((id) =>
      ev.owners.has(id)
    );
    return owned ? ev.owners.get(owned)! : "";
  };
  const looked = ev.calls.filter((c) => c.ok).map((c) => caseOfCall(c.input))
    .filter((id) => ID_SHAPES.case.test(id) && grounded(ev, id)).at(-1);
  if (looked) return looked;
  const only = idsOfKind(ev, "case");
  return only.length === 1 ? only[0] : "";
}
