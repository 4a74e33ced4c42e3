/** Evidence folded from the ledger: calls, observed ids, owners and the case lock. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  caseKeyOf,
  emptyEvidence,
  type Evidence,
  foldEvidence,
  foldLedger,
  foldRecord,
  wasObserved,
} from "../lib/guard/engine/evidence.ts";
import { decideOn } from "../lib/guard/engine/decide.ts";
import { DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { groundedIds, groundedIdsByScan, someCallEver } from "../lib/guard/engine/facts.ts";
import { evidenceOf, recordsOf, toolCall } from "../lib/guard/engine/rule.ts";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import { extractIds } from "../lib/guard/engine/ids.ts";
import { PAYER_PROMPT } from "./support/payloads.ts";
import { foldSequences, probes, sampleLedgers } from "./support/sequences.ts";

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

s("someCallEver scans each call once per question and still sees calls appended later", () => {
  const ev = evidenceOf({ calls: [OPEN] });
  let tested = 0;
  const isOutreach = (c: { tool: string }) => (tested++, c.tool === "cm_outreach.start_outreach_call");
  assert.not.ok(someCallEver(ev, "outreach", isOutreach));
  assert.not.ok(someCallEver(ev, "outreach", isOutreach));
  assert.is(tested, 1, "the first call was tested again");
  ev.calls.push(OUTREACH);
  assert.ok(someCallEver(ev, "outreach", isOutreach));
  assert.is(tested, 2);
  assert.ok(someCallEver(ev, "outreach", isOutreach));
  assert.is(tested, 2, "a found answer is not recomputed");
  assert.not.ok(
    someCallEver(evidenceOf({ calls: [OPEN] }), "outreach", isOutreach),
    "another evidence shares it",
  );
});

/** The fold as it was before the running indexes: seat and grounded ids recomputed from every call. */
function scanFold(records: readonly LedgerRecord[]): Evidence {
  const ev = emptyEvidence();
  delete ev.index;
  return records.reduce(foldRecord, ev);
}

const fold = suite("evidence: the running fold");

const SAMPLES = sampleLedgers();
const SEQUENCES = foldSequences();

for (const arm of ["checklist", "critic"] as const) {
  fold(
    `${arm}: record by record, the running fold decides as the full re-scan does (${SEQUENCES.length} ledgers)`,
    () => {
      const config = { arm, bounds: DEFAULT_BOUNDS };
      let compared = 0;
      for (const [name, records] of SEQUENCES) {
        const running = emptyEvidence();
        for (let i = 0; i <= records.length; i++) {
          const full = scanFold(records.slice(0, i));
          assert.equal(
            [...groundedIds(running)].sort(),
            [...groundedIdsByScan(full)].sort(),
            `${name} @${i} ids`,
          );
          assert.equal([running.seat, running.phase, running.caseLock], [
            full.seat,
            full.phase,
            full.caseLock,
          ]);
          for (const event of probes(records, i)) {
            const now = "2026-12-03T00:00:00.000Z";
            assert.equal(
              decideOn(event, running, config, now),
              decideOn(event, full, config, now),
              `${name} @${i} ${event.word}`,
            );
            compared++;
          }
          if (i < records.length) foldRecord(running, records[i]);
        }
      }
      assert.ok(compared > 2000, `compared ${compared} decisions`);
    },
  );
}

fold("foldLedger is the reduce of foldRecord; foldEvidence folds only what was appended", () => {
  const records = [...SAMPLES[0]];
  const head = records.splice(0, 10);
  const live = [...head];
  const first = foldEvidence(live);
  live.push(...records);
  assert.is(foldEvidence(live), first, "the same evidence, extended");
  assert.equal([...groundedIds(first)].sort(), [...groundedIds(foldLedger(live))].sort());
  assert.is(first.calls.length, foldLedger(live).calls.length);
});

fold("an echo of the agent's own argument is not grounded until another result returns it", () => {
  const base = { v: 1 as const, t: "", session: "s", arm: "checklist" as const, decision: "record" as const };
  const ev = foldLedger([{
    ...base,
    event: "post",
    tool: "payer_letter_center.generate_denial",
    input: { case_id: "CASE-3903B8ED", contact_id: "PAYER-CONTACT-009" },
    result: { letter: { contact_id: "PAYER-CONTACT-009" } },
    ids: ["PAYER-CONTACT-009"],
  }]);
  assert.not.ok(groundedIds(ev).has("PAYER-CONTACT-009"));
  foldRecord(ev, {
    ...base,
    event: "post",
    tool: "determination.get_summary",
    input: { case_id: "CASE-3903B8ED" },
    result: { contacts: ["PAYER-CONTACT-009"] },
    ids: ["PAYER-CONTACT-009"],
  });
  assert.ok(groundedIds(ev).has("PAYER-CONTACT-009"));
});

s.run();
fold.run();
