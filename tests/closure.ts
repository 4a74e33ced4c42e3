/** The closure gate: one table row per seat situation, open obligation IDs as the verdict. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { closureMessage, openObligations } from "../lib/guard/engine/closure.ts";
import { evidenceOf, type ExampleEvidence, toolCall } from "../lib/guard/engine/rule.ts";

const PROVIDER = "# Clinical Intake\n- Use only provider namespaces: `chart`, `cases`, `auth`";
const PAYER = "# MD Review\n- Use only payer namespaces: `review`, `determination`";
const P2P = "# Peer-to-Peer Session\n- Use only payer namespaces: `p2p`, `determination`";
const CM = "# Care Management Handoff\n- Use only care-manager namespaces: `cm_intake`, `cm_care_plan`";

const c = toolCall;
const CASE = { case_id: "CASE-3903B8ED" };
const CREATE = c("cases.create_from_order", { patient_id: "PAT-c7e617a246b7" }, {
  result: { case: { id: "CASE-ACT-001" } },
});
const DECIDE = (action: string) =>
  c("auth.finalize_provider_determination", { case_id: "CASE-ACT-001", final_action: action });
const SUBMIT = c("auth.submit_authorization", { case_id: "CASE-ACT-001" });
const MD = (decision: string) => c("review.submit_md_case_decision", { ...CASE, decision });
const FINAL = (decision: string) => c("determination.finalize", { ...CASE, decision });
const LETTER = (kind: string) => c(`payer_letter_center.generate_${kind}`, CASE);
const OPEN = c("cm_intake.open_case", { referral_id: "REF-K" }, { result: { case_id: "CM-CASE-K" } });
const K = { case_id: "CM-CASE-K" };
const END = (consent: boolean) =>
  c("cm_outreach.end_outreach_call", { session_id: "SES-1", summary: { consent_obtained: consent } });

const rows: [string, ExampleEvidence, string[]][] = [
  ["provider: nothing done", { prompt: PROVIDER }, ["PP-CASE", "PP-DETERMINATION"]],
  ["provider: case only", { prompt: PROVIDER, calls: [CREATE] }, ["PP-DETERMINATION"]],
  ["provider: submit_pa never submitted", { prompt: PROVIDER, calls: [CREATE, DECIDE("submit_pa")] }, [
    "PP-SUBMIT",
  ]],
  ["provider: submitted", { prompt: PROVIDER, calls: [CREATE, DECIDE("submit_pa"), SUBMIT] }, []],
  ["provider: submitted without determination", { prompt: PROVIDER, calls: [CREATE, SUBMIT] }, []],
  [
    "provider: gather_more_evidence",
    { prompt: PROVIDER, calls: [CREATE, DECIDE("gather_more_evidence")] },
    [],
  ],
  [
    "provider: failed determination does not count",
    { prompt: PROVIDER, calls: [CREATE, c("auth.finalize_provider_determination", {}, { error: "x" })] },
    ["PP-DETERMINATION"],
  ],
  ["payer: nothing finalized", { prompt: PAYER, calls: [] }, ["UM-DETERMINATION"]],
  ["payer: MD approve, not finalized", { prompt: PAYER, calls: [MD("approve")] }, ["UM-DETERMINATION"]],
  ["payer: finalized denied, no letter", { prompt: PAYER, calls: [MD("deny"), FINAL("denied")] }, [
    "UM-LETTER",
  ]],
  [
    "payer: finalized denied, denial letter",
    { prompt: PAYER, calls: [FINAL("denied"), LETTER("denial")] },
    [],
  ],
  [
    "payer: approval letter does not close a denial",
    { prompt: PAYER, calls: [FINAL("denied"), LETTER("approval")] },
    ["UM-LETTER"],
  ],
  [
    "payer: notification does not count as the letter",
    { prompt: PAYER, calls: [FINAL("approved"), LETTER("notification")] },
    ["UM-LETTER"],
  ],
  ["payer: MD request_info pends", { prompt: PAYER, calls: [MD("request_info")] }, []],
  [
    "payer: nurse request_info pends",
    {
      prompt: PAYER,
      calls: [c("review.submit_nurse_case_recommendation", { ...CASE, recommendation: "request_info" })],
    },
    [],
  ],
  [
    "payer: gold-card route fast-track needs the approval letter",
    {
      prompt: PAYER,
      calls: [
        c("triage.route_case", CASE, {
          result: { case: { status: "approved", authorization_number: "AUTH-1" } },
        }),
      ],
    },
    ["UM-LETTER"],
  ],
  ["payer: p2p_review without outcome", { prompt: PAYER, calls: [MD("p2p_review")] }, [
    "UM-P2P",
    "UM-DETERMINATION",
  ]],
  [
    "payer: p2p outcome, finalized, lettered",
    {
      prompt: PAYER,
      calls: [
        MD("p2p_review"),
        c("p2p_session.submit_summary", { request_id: "P2P-1" }),
        FINAL("denied"),
        LETTER("denial"),
      ],
    },
    [],
  ],
  ["payer: P2P-stage task without outcome", { prompt: P2P, calls: [] }, ["UM-P2P", "UM-DETERMINATION"]],
  ["cm: nothing opened", { prompt: CM, calls: [] }, ["CM-OPEN"]],
  ["cm: opened, not finalized", { prompt: CM, calls: [OPEN, END(true)] }, ["CM-FINALIZE"]],
  ["cm: finalized", { prompt: CM, calls: [OPEN, c("cm_care_plan.finalize", K)] }, []],
  ["cm: disenrolled", { prompt: CM, calls: [OPEN, c("cm_intake.disenroll_case", K)] }, []],
  ["unknown seat: nothing owed", { prompt: "hello", calls: [] }, []],
];

const s = suite("closure");
for (const [name, evidence, expected] of rows) {
  s(name, () => assert.equal(openObligations(evidenceOf(evidence)).map((o) => o.id), expected));
}

s("cm: the obligation names the remaining steps, in order", () => {
  const [o] = openObligations(
    evidenceOf({ prompt: CM, calls: [OPEN, c("cm_chart.submit_chart_review", K)] }),
  );
  assert.match(o.closes, /^cm_outreach_start_outreach_call.*cm_care_plan_finalize$/);
});

s("cm: a declined member gets the declined wording", () => {
  const [o] = openObligations(evidenceOf({ prompt: CM, calls: [OPEN, END(false)] }));
  assert.match(o.text, /declined/);
});

s("the reason lists every open obligation with the next call that closes it, in full", () => {
  const open = openObligations(evidenceOf({ prompt: PAYER, calls: [MD("p2p_review")] }));
  const msg = closureMessage(open);
  assert.is(
    msg,
    "Cannot stop yet: 2 obligations are open.\n" +
      "- UM-P2P: the MD chose p2p_review but no peer-to-peer outcome is recorded; close it with " +
      "p2p_list(case_id=CASE-3903B8ED) (it lists the case's request), then people_list_reviewer_contacts(), " +
      "then p2p_offer_slots(request_id=<the request id it returns>, payer_contact_id=<the contact it returns>, " +
      "slots=[<open slots>]).\n" +
      "- UM-DETERMINATION: no determination is finalized and no pend (request_info) path was taken; close it " +
      "with determination_finalize(case_id=CASE-3903B8ED, decision=<the decision the review recorded>) once " +
      "the peer-to-peer's outcome is recorded (UM-P2P).\n" +
      "Finish them, then stop.",
  );
});

s("one obligation reads in the singular", () => {
  assert.match(
    closureMessage([{ id: "X", text: "t", closes: "y" }]),
    /^Cannot stop yet: 1 obligation is open\./,
  );
});

s.run();

const trace = suite("closure: protected checks");
trace("every obligation ID has protected checks, all in the catalog", async () => {
  const { GATE_PROTECTS } = await import("../lib/guard/engine/closure.ts");
  const { CHECKS } = await import("../rules/catalog/checks.ts");
  const ids = new Set(CHECKS.map((c) => c.id));
  for (const [id, checks] of Object.entries(GATE_PROTECTS)) {
    assert.ok(checks.length > 0, id);
    for (const c of checks) assert.ok(ids.has(c), `${id} protects unknown ${c}`);
  }
  assert.equal(Object.keys(GATE_PROTECTS).sort(), [
    "CM-FINALIZE",
    "CM-OPEN",
    "PP-CASE",
    "PP-DETERMINATION",
    "PP-SUBMIT",
    "UM-DETERMINATION",
    "UM-LETTER",
    "UM-P2P",
  ]);
});
trace.run();
