/** Evidence folded from the ledger: calls, observed ids, owners and the case lock. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { caseKeyOf, foldEvidence, wasObserved } from "../lib/guard/evidence.ts";
import { evidenceOf, recordsOf, toolCall } from "../lib/guard/rule.ts";
import type { LedgerRecord } from "../lib/guard/ledger.ts";
import { extractIds } from "../lib/guard/ids.ts";
import { PAYER_PROMPT } from "./support/payloads.ts";

const s = suite("evidence");

const OPEN = toolCall("cm_intake_open_case", { referral_id: "REF-CM_AFIB_001" }, {
  result: { case_id: "CM-CASE-CM_AFIB_001", patient_id: "CM-PAT-CM_AFIB_001", status: "intake_complete" },
});
const OUTREACH = toolCall("cm_outreach_start_outreach_call", { case_id: "CM-CASE-CM_AFIB_001" }, {
  result: { session_id: "SES-0E12A4B9", case_id: "CM-CASE-CM_AFIB_001", status: "active" },
});

s("the first successful mutation locks the case, by subject key", () => {
  assert.is(evidenceOf({ calls: [OPEN] }).caseLock, "CM_AFIB_001");
});

s("a failed mutation does not lock", () => {
  const failed = toolCall("cm_intake_open_case", { referral_id: "REF-CM_AFIB_001" }, { error: "boom" });
  assert.is(evidenceOf({ calls: [failed] }).caseLock, null);
});

s("the provider case is locked from the create_from_order result", () => {
  const created = toolCall("cases_create_from_order", { patient_id: "PAT-c7e617a246b7" }, {
    result: { case: { id: "CASE-ACT-001", status: "draft" } },
  });
  assert.is(evidenceOf({ calls: [created] }).caseLock, "CASE-ACT-001");
});

s("owned ids resolve to their case (session → case)", () => {
  const ev = evidenceOf({ calls: [OPEN, OUTREACH] });
  assert.is(caseKeyOf({ session_id: "SES-0E12A4B9" }, ev.owners), "CM_AFIB_001");
  assert.is(caseKeyOf({ session_id: "SES-FFFFFFFF" }, ev.owners), null);
});

s("ids from the prompt and results are observed, normalised", () => {
  const ev = evidenceOf({ prompt: PAYER_PROMPT + " code M17.11", calls: [OUTREACH] });
  assert.ok(wasObserved(ev, "SES-0E12A4B9"));
  assert.ok(wasObserved(ev, "m1711"));
  assert.not.ok(wasObserved(ev, "SES-00000000"));
  assert.is(ev.seat, "payer");
  assert.is(ev.phase, "mdreview");
});

// Ids inside the shapes results carry them in: [text, an id it holds].
const HELD: [string, string][] = [
  ['{"file":"DOC-1a2b3c4d__lab-results.pdf"}', "DOC-1A2B3C4D"],
  ["letter-of-medical-necessity-cpt-43775.pdf", "43775"],
  ["ordered 73721-RT today", "73721"],
  ['{"content":"Plan:\\nDOC-9f8e7d6c attached"}', "DOC-9F8E7D6C"],
  ["dx M75.110 (right)", "M75110"],
];
for (const [text, id] of HELD) {
  s(`extractIds finds ${id} in ${JSON.stringify(text)}`, () => assert.ok(extractIds(text).includes(id)));
}

s("a result's ids are kept whole on the call even when the ledger caps the result", () => {
  const long = { summary: "x ".repeat(9_000), request: { id: "P2P-5439b781" } };
  const ev = evidenceOf({ calls: [toolCall("p2p_list", { case_id: "CASE-1" }, { result: long })] });
  assert.not.match(ev.calls[0].text, /P2P-5439b781/);
  assert.ok(ev.calls[0].ids?.includes("P2P-5439B781"));
});

s("denies and stop blocks are counted for the budgets", () => {
  const base = { v: 1 as const, t: "", session: "s", arm: "checklist" as const };
  const records: LedgerRecord[] = [
    ...recordsOf({ calls: [OPEN] }),
    {
      ...base,
      event: "pre",
      decision: "deny",
      tool: "cm_care_plan.finalize",
      case: "CM_AFIB_001",
      rules: [{ id: "CM-02", checks: [], message: "" }],
    },
    { ...base, event: "stop", decision: "block" },
    { ...base, event: "stop", decision: "release" },
  ];
  const ev = foldEvidence(records);
  assert.is(ev.denies.get("CM-02|cm_care_plan.finalize|CM_AFIB_001"), 1);
  assert.is(ev.stopBlocks, 1);
});

s.run();
