/**
 * The peer-to-peer contract at the MD decision (principle P-UM-09): `decision=p2p_review` creates a P2P
 * request, but the session only opens when the task carries a P2P workflow; otherwise it never opens, the
 * decision stays unsigned and `md.signed_off` fails. On the discovery set 24 of 25 `md.signed_off` failures
 * were this pattern (p2p_review decisions whose session opened passed 8 of 9, those whose session never
 * opened 1 of 24). The judge objects when no P2P request is visible for the case and the task is not a
 * peer-to-peer task.
 *
 * SHADOW (`enforced: false`): replay over the 10 packets (700 trials) finds it firing in 5 PASSING trials,
 * all nurse-review entries whose task expected exactly this p2p_review (opus-4.8, glm-5.2 and gpt-5.6-sol on
 * the cervical disc arthroplasty case; glm-5.2 and gpt-5.6-sol on the colonoscopy site-of-service case). In
 * each, no P2P request existed before the decision (opus-4.8 even called p2p_list and got `items: []`),
 * the prompt was not a P2P stage, and nothing the guard can see (prompt, results, the agent's own
 * evaluations or text) separates them from the wrong p2p_review decisions: the provider's letter offering a
 * peer-to-peer, which agents cite, is read through the file tools and also appears in failing trials. A
 * block there could turn a correct p2p_review into a signed denial, so the judge only records its vote.
 * In failed trials it fires in 56 (49 with a protected check failed, all in time: it objects at the MD
 * decision itself, the call that dooms `md.signed_off`; enforced it would add 35 to the upper rescue
 * estimate, 5 to the strict one, since no other rule protects `md.signed_off`): replay prints these figures
 * for the day a visible signal exists.
 * Signals tried for issue 30 (none enforced; replay's critic-arm votes and each trajectory's calls before the
 * decision, 47 fired trials failing `md.signed_off` against the 5 passing): a provider letter offering a
 * peer-to-peer read before the decision (3 of 5 passing, 37 of 47 failing); a nurse-review entry (5 of 5, 14
 * of 47); the case's own workflow stage in any result before the decision (1 of 5, 3 of 47); every p2p/peer
 * field of every result before it (`p2p_requests: []` in 4 of 5 and 47 of 47; no field only in passing
 * trials); the intake queue showing other cases at `peer_to_peer` (4 of 5, 16 of 47). The one clean separator
 * comes after the write-once decision: the P2P session opened (`p2p_session_get_context` succeeded) in 5 of 5
 * passing trials and 1 of 47 failing ones, so no pre-call judge can use it. Separating them at the decision
 * would take the task's answer (which tasks expect a P2P), which a judge must never read.
 * Known limitation: P-UM-09's original premise ("a peer-to-peer already exists, or the task is a P2P task")
 * does not hold on these packets; the principle now also names a provider's request for a peer-to-peer, and
 * stays in the plan as advice, not as a block.
 */
import { caseKeyOf, type Evidence } from "../evidence.ts";
import { okCalls, plainText } from "../facts.ts";
import { subjectKey } from "../ids.ts";
import type { Judge } from "../judge.ts";
import { arg, type Call, toolCall } from "../rule.ts";
import { callText } from "../next_call.ts";

const DECIDE = "review.submit_md_case_decision";
const P2P_ID = /^(?:P2P-|p2p_req_)/;

/** True when a result shows a P2P request owned by the call's case. */
export function p2pRequestExists(ev: Evidence, call: Call): boolean {
  const caseKey = caseKeyOf(call.input, ev.owners);
  if (!caseKey) return false;
  for (const [id, owner] of ev.owners) if (P2P_ID.test(id) && subjectKey(owner) === caseKey) return true;
  const caseId = arg(call, "case_id");
  return ev.calls.some((c) =>
    c.ok && /"p2p_request_id"\s*:\s*"(?:P2P-|p2p_req_)/.test(plainText(c.text)) &&
    plainText(c.text).includes(caseId)
  );
}

/** Whether the agent looked: p2p_list was called (for this case or for all cases). */
function listed(ev: Evidence, call: Call): boolean {
  const caseId = arg(call, "case_id");
  return okCalls(ev, "p2p.list", (i) => !i.case_id || i.case_id === caseId).length > 0;
}

/** The message data: what was looked at, the lookup when p2p_list was not called, then both decisions. */
function paths(caseId: string, looked: boolean): P2pData {
  return {
    caseId,
    looked: looked ? "p2p_list shows none" : "p2p_list was not called",
    next: looked
      ? ""
      : `Look first: ${callText("p2p.list", { case_id: caseId })} lists the case's requests. `,
    signed: callText(DECIDE, {
      case_id: caseId,
      decision: "<approve, deny, partial_approve or request_info>",
      signed_off: true,
    }),
    again: callText(DECIDE, { case_id: caseId, decision: "p2p_review" }),
  };
}

type P2pData = { caseId: string; looked: string; next: string; signed: string; again: string };

const CASE = "CASE-3903B8ED";
const P2P_REVIEW = toolCall(DECIDE, { case_id: CASE, decision: "p2p_review", determination_rationale: "x" });
const EMPTY_LIST = toolCall("p2p.list", { case_id: CASE }, { result: { items: [] } });
const SEEDED = toolCall("p2p.list", { case_id: CASE }, {
  result: { items: [{ id: "P2P-curated-826157", case_id: CASE, status: "requested" }] },
});

/** CRITIC-02: no p2p_review decision when no peer-to-peer exists for the case and the task is not a P2P task. */
export const judge: Judge<P2pData> = {
  meta: {
    id: "CRITIC-02",
    name: "p2p-contract",
    seat: "payer",
    principle: "P-UM-09",
    triggers: [DECIDE],
    protects: ["md.signed_off", "p2p.request_exists", "p2p.determination_matches_contract"],
    enforced: false,
    message: "Cannot record decision=p2p_review on {caseId} yet: no peer-to-peer request exists for this " +
      "case ({looked}) and this is not a peer-to-peer task, so a P2P may never open and the decision would " +
      "stay unsigned. {next}Your own criteria evaluation decides between the two decisions: a signed one, " +
      "{signed}, or, if a peer-to-peer is what this case needs, the same call again, {again} (this check " +
      "asks once).",
  },
  check(call, evidence) {
    if (call.input.decision !== "p2p_review" || evidence.phase === "p2p") return null;
    if (p2pRequestExists(evidence, call)) return null;
    return paths(arg(call, "case_id"), listed(evidence, call));
  },
  valid: [
    {
      name: "a signed deny, not a p2p_review",
      call: toolCall(DECIDE, { case_id: CASE, decision: "deny", signed_off: true }),
      evidence: {},
    },
    { name: "p2p_list shows a P2P request for the case", call: P2P_REVIEW, evidence: { calls: [SEEDED] } },
    {
      name: "the task is a peer-to-peer session",
      call: P2P_REVIEW,
      evidence: { prompt: "# 📞 Peer-to-Peer Session — MRI\n- Use only payer namespaces" },
    },
    {
      name: "the determination summary names the case's P2P request",
      call: P2P_REVIEW,
      evidence: {
        calls: [toolCall("determination.get_summary", { case_id: CASE }, {
          result: { md_decision: { case_id: CASE, p2p_request_id: "P2P-2026-00471" } },
        })],
      },
    },
  ],
  invalid: [
    {
      name: "an MD review whose p2p_list shows no request",
      call: P2P_REVIEW,
      evidence: { prompt: "# ⚕️ MD Review — MRI\n- Use only payer namespaces", calls: [EMPTY_LIST] },
      data: paths(CASE, true),
      reason: `Cannot record decision=p2p_review on ${CASE} yet: no peer-to-peer request exists for this ` +
        "case (p2p_list shows none) and this is not a peer-to-peer task, so a P2P may never open and the " +
        "decision would stay unsigned. Your own criteria evaluation decides between the two decisions: a " +
        `signed one, review_submit_md_case_decision(case_id=${CASE}, decision=<approve, deny, partial_approve ` +
        "or request_info>, signed_off=true), or, if a peer-to-peer is what this case needs, the same call " +
        `again, review_submit_md_case_decision(case_id=${CASE}, decision=p2p_review) (this check asks once).`,
    },
    {
      name: "no P2P request seen and p2p_list never called",
      call: P2P_REVIEW,
      evidence: {},
      data: paths(CASE, false),
    },
  ],
};
