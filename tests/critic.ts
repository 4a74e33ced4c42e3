/** The critic panel: each judge's verdict as table rows, the two-of-three vote, then the decision-point judges. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  CODE_SHAPES,
  contractJudge,
  criticHits,
  groundingJudge,
  isIdentifier,
  judgeVotes,
  MAYBE_IDENTIFIER,
  panel,
  panelObjects,
  policyJudge,
  rationaleProblem,
} from "../lib/guard/engine/critic.ts";
import { evidenceOf, type ExampleEvidence, toolCall } from "../lib/guard/engine/rule.ts";
import type { Vote } from "../lib/guard/engine/record.ts";
import { ID_SHAPES, stringsIn } from "../lib/guard/engine/ids.ts";
import { sampleTrials } from "../lib/samples/trials.ts";

const CASE = "CASE-3903B8ED";
const REVIEW = toolCall("review.get_md_review_data", { case_id: CASE }, {
  result: {
    case: { id: CASE, patient_id: "PAT-968308DB", provider_npi: "1528476309" },
    diagnoses: [{ code: "M17.11" }],
    lines: [{ procedure_code: "27447" }],
    criteria: [{ id: "C1", text: "Failed conservative therapy including physical therapy for twelve weeks" }],
    notes: "Radiographs show severe tricompartmental osteoarthritis with bone-on-bone contact",
  },
});
const SEEN: ExampleEvidence = {
  prompt: "# MD Review\n- Use only payer namespaces: `review`",
  calls: [REVIEW],
};
const FINALIZE = (input: Record<string, unknown>) => ({
  tool: "determination.finalize",
  input: { case_id: CASE, ...input },
});
const GOOD_WHY =
  "Twelve weeks of physical therapy failed and radiographs show bone-on-bone osteoarthritis (M17.11).";

const grounding = suite("critic: grounding judge");
const groundingRows: [string, Record<string, unknown>, boolean][] = [
  ["observed case id", { decision: "approved" }, false],
  ["ICD-10 without its dot, lower case", { diagnosis_codes: ["m1711"] }, false],
  ["observed CPT and NPI", { procedure_code: "27447", provider_npi: "1528476309" }, false],
  ["invented case id", { case_id: "CASE-0000AAAA" }, true],
  ["garbled case id", { case_id: "CASE ring?" }, true],
  ["invented contact", { payer_contact_id: "PAYER-MD-001" }, true],
  ["unseen ICD-10 code", { diagnosis_codes: ["M17.12"] }, true],
  ["id-shaped value under any key", { target: "LET-cff9a2d8" }, true],
  ["reviewer_id is a free label", { reviewer_id: "SYSTEM" }, false],
];
for (const [name, input, objects] of groundingRows) {
  grounding(name, () => assert.is(groundingJudge(FINALIZE(input), evidenceOf(SEEN)).object, objects));
}
grounding("the reason names each unseen value", () => {
  const vote = groundingJudge(FINALIZE({ payer_contact_id: "PAYER-MD-001" }), evidenceOf(SEEN));
  assert.match(vote.reason, /payer_contact_id=PAYER-MD-001/);
});
grounding("an id echoed only by the agent's own mutation does not count", () => {
  const echo = toolCall("review.save_md_review", { case_id: CASE, note_id: "NOTE-77" }, {
    result: { note_id: "NOTE-77" },
  });
  const vote = groundingJudge(
    FINALIZE({ note_id: "NOTE-77" }),
    evidenceOf({ ...SEEN, calls: [REVIEW, echo] }),
  );
  assert.is(vote.object, true);
});
grounding.run();

const policy = suite("critic: policy judge");
const policyRows: [string, Record<string, unknown>, boolean][] = [
  ["no rationale field: nothing to judge", { decision: "approved" }, false],
  ["specific override_reason", { override_reason: GOOD_WHY }, false],
  ["too short", { override_reason: "Criteria met." }, true],
  ["boilerplate", { override_reason: "Does not meet criteria" }, true],
  ["long but generic", {
    override_reason: "The request was reviewed carefully and a decision was reached today.",
  }, true],
  ["overridden without a reason", { overridden: true }, true],
  ["object summary is read as text", { summary: { notes: GOOD_WHY } }, false],
];
for (const [name, input, objects] of policyRows) {
  policy(name, () => assert.is(policyJudge(FINALIZE(input), evidenceOf(SEEN)).object, objects));
}
policy("rationaleProblem explains the length floor", () => {
  assert.is(rationaleProblem("ok", { words: new Set(), ids: new Set() }), "is 2 characters (at least 40)");
});
policy.run();

const contract = suite("critic: contract judge and panel");
contract("contract objects when a rule fired", () => {
  assert.is(contractJudge([{ id: "UM-02", checks: [], message: "m" }]).object, true);
  assert.is(contractJudge([]).object, false);
});
const vote = (object: boolean): Vote => ({ judge: "policy", object, reason: "" });
const panelRows: [boolean[], boolean][] = [
  [[false, false, false], false],
  [[true, false, false], false],
  [[true, true, false], true],
  [[false, true, true], true],
  [[true, true, true], true],
];
for (const [votes, blocks] of panelRows) {
  contract(`${votes.map(Number).join("")} → ${blocks ? "blocks" : "passes"}`, () => {
    assert.is(panelObjects(votes.map(vote)), blocks);
  });
}
contract("panel returns the three judges in order", () => {
  const votes = panel(FINALIZE({ override_reason: GOOD_WHY }), evidenceOf(SEEN), []);
  assert.equal(votes.map((v) => v.judge), ["contract", "grounding", "policy"]);
  assert.is(panelObjects(votes), false);
});
contract("an invented id with boilerplate blocks", () => {
  const votes = panel(FINALIZE({ case_id: "CASE-0000AAAA", override_reason: "ok" }), evidenceOf(SEEN), []);
  assert.is(panelObjects(votes), true);
});
contract("isIdentifier recognises ids and codes, not words", () => {
  for (const v of ["CASE-3903B8ED", "M17.11", "27447", "J9312", "1528476309", "LET-cff9a2d8"]) {
    assert.ok(isIdentifier(v), v);
  }
  for (const v of ["weekly", "approved", "2026-03-01", ""]) assert.not.ok(isIdentifier(v), v);
});
contract("the quick pre-test never turns away a value an id or code shape accepts", () => {
  // Every string in the sample trials' ledgers and every id in them, case-flipped, plus the shapes' edges.
  const values = new Set<string>([
    "CASE-ACT-001",
    "p2p_req_md_12",
    "PAYER-CONTACT-007",
    "PRAC-NPI-1528476309",
  ]);
  for (const trial of sampleTrials({ arms: ["critic"], attempts: 1 })) {
    for (const r of trial.ledger) {
      for (const s of stringsIn([r.input, r.result, r.prompt])) {
        for (const token of [s, ...s.split(/[\s,;"'(){}[\]]+/)]) {
          values.add(token.trim());
          values.add(token.trim().toLowerCase());
        }
      }
    }
  }
  const shapes = [...Object.values(ID_SHAPES), ...CODE_SHAPES];
  let accepted = 0;
  for (const v of values) {
    if (!shapes.some((re) => re.test(v))) continue;
    accepted++;
    assert.ok(MAYBE_IDENTIFIER.test(v), `the pre-test turns away ${v}`);
  }
  assert.ok(accepted > 50, `only ${accepted} values matched a shape`);
});
contract.run();

const lists = suite("critic: code lists written as text");
lists("each item of a comma or semicolon list is grounded on its own", () => {
  const ev = evidenceOf(SEEN);
  assert.is(groundingJudge(FINALIZE({ diagnosis_codes: "M17.11, 27447" }), ev).object, false);
  assert.is(groundingJudge(FINALIZE({ diagnosis_codes: "M17.11; M17.12" }), ev).object, true);
});
lists.run();

const decisionPoints = suite("critic: decision-point judges");
const DECISIVE = (object: boolean): Vote => ({
  judge: "self-consistency",
  object,
  reason: "r",
  mode: "decisive",
});
const SHADOW = (object: boolean): Vote => ({ judge: "p2p-contract", object, reason: "r", mode: "shadow" });
decisionPoints("decision-point votes never count toward two of three", () => {
  assert.is(panelObjects([vote(true), DECISIVE(true), SHADOW(true)]), false);
  assert.is(panelObjects([vote(true), vote(true), DECISIVE(false)]), true);
});
const hitRows: [string, Vote[], string[]][] = [
  ["nothing objects", [vote(false), DECISIVE(false)], []],
  ["a decisive judge alone blocks under its own ID", [vote(true), DECISIVE(true)], ["CRITIC-01"]],
  ["a shadow judge never blocks", [SHADOW(true)], []],
  ["two of three and a decisive judge", [vote(true), vote(true), DECISIVE(true)], ["CRITIC", "CRITIC-01"]],
];
for (const [name, votes, ids] of hitRows) {
  decisionPoints(name, () => assert.equal(criticHits(votes).map((h) => h.id), ids));
}
decisionPoints("the panel's block names the call again with the rationale written out, in full", () => {
  const call = {
    tool: "p2p.record_outcome",
    input: {
      request_id: "P2P-5439b781",
      payer_contact_id: "PAYER-CONTACT-002",
      outcome: "uphold_intended_adverse_decision",
      note: "upheld after call",
    },
  };
  const votes = [
    { judge: "contract", object: true, reason: "contract rules fired: UM-09" },
    { judge: "grounding", object: false, reason: "every identifier and code was observed" },
    { judge: "policy", object: true, reason: "note is 17 characters (at least 40)" },
  ] as Vote[];
  const [hit] = criticHits(votes, call, evidenceOf({}));
  assert.is(
    hit.message,
    "Cannot call p2p_record_outcome yet: two of the critic panel's three judges object (contract: contract " +
      "rules fired: UM-09; policy: note is 17 characters (at least 40)). Call p2p_record_outcome(" +
      "request_id=P2P-5439b781, payer_contact_id=PAYER-CONTACT-002, outcome=uphold_intended_adverse_decision, " +
      "note=<the policy criterion and the chart evidence behind it, at least 40 characters>).",
  );
});
decisionPoints("a decisive hit carries the checks its judge protects", () => {
  const [hit] = criticHits([DECISIVE(true)]);
  assert.ok(hit.checks.includes("provider_pre_submission.final_action"));
});
decisionPoints("judges vote only at their triggers and for their seat", () => {
  const submit = {
    tool: "auth.finalize_provider_determination",
    input: { case_id: "C", final_action: "submit_pa" },
  };
  const provider = evidenceOf({ prompt: "# Clinical Intake\n- Use only provider namespaces: `auth`" });
  const payer = evidenceOf({ prompt: "# MD Review\n- Use only payer namespaces: `review`" });
  assert.equal(judgeVotes(submit, provider).map((v) => [v.judge, v.object, v.mode]), [
    ["self-consistency", false, "decisive"],
  ]);
  assert.equal(judgeVotes(submit, payer), []);
  assert.equal(judgeVotes({ tool: "cases.get_case", input: {} }, provider), []);
});
decisionPoints.run();
