/**
 * The ids a block reason's next call needs, taken from the evidence: the case this session works on, a P2P
 * request's contact, a case's documents, and, where the evidence holds no such id yet, the exact lookup call
 * (tool and arguments) that returns it. Pure queries over the evidence; the reasons write the calls with
 * `callText` (next_call.ts).
 */
import { caseKeyOf, type Evidence } from "./evidence.ts";
import { groundedIds, idArg, okCalls, plainText, rawCase } from "./facts.ts";
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
    if (raw && /^(?:CASE|CM-CASE|CM)-/.test(raw) && caseKeyOf(c.input, ev.owners) === ev.caseLock) return raw;
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

/** The call again with its id arguments as given and `changes` on top (free text and flags left to the model). */
export function sameCallWith(call: Call, changes: Record<string, unknown> = {}): string {
  const info = toolInfo(call.tool);
  const ids = [...info?.caseArgs ?? [], ...info?.idArgs ?? []];
  const kept = Object.fromEntries(
    ids.filter((a) => call.input[a] !== undefined).map((a) => [a, call.input[a]]),
  );
  return callText(call.tool, { ...kept, ...changes });
}

/**
 * The next call for an id the evidence does not hold: the one id of that kind the evidence does hold for it
 * (`known`), in the same call; else the lookup that lists such ids, then the call with the id it returns.
 */
export function unseenIdNext(call: Call, ev: Evidence, arg: string, known: string[]): string {
  if (known.length === 1) {
    return `Call ${sameCallWith(call, { [arg]: known[0] })} (the ${arg} the record holds)`;
  }
  const then = sameCallWith(call, { [arg]: "<the id exactly as it returns it>" });
  if (known.length > 1) {
    return `Call ${sameCallWith(call, { [arg]: `<one of ${known.slice(0, 5).join(", ")}>` })}: the record ` +
      "holds these, pick the one the case names";
  }
  const lookup = lookupCall(arg, call, ev);
  return lookup
    ? `Call ${lookup} first, then ${then}`
    : `Look the id up with your seat's list tool, then ${then}`;
}
