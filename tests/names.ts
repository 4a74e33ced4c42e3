/** Tool-name normalisation across harness spellings. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isMutating, isTerminal, normalizeToolName, shownName } from "../lib/names.ts";

const s = suite("names");

const SPELLINGS: [string, string | null][] = [
  ["mcp__healthverse__auth_submit_authorization", "auth.submit_authorization"],
  ["mcp__chi-bench__determination_finalize", "determination.finalize"],
  ["mcp_healthverse_cases_create_from_order", "cases.create_from_order"],
  ["cm_outreach__send_message", "cm_outreach.send_message"],
  ["payer_letter_center_generate_denial", "payer_letter_center.generate_denial"],
  ["p2p_session.submit_summary", "p2p_session.submit_summary"],
  ["mcp__healthverse__p2p_session_send_turn", "p2p_session.send_turn"],
  ["mcp__healthverse__p2p_record_outcome", "p2p.record_outcome"],
  ["cm_care_plan_finalize", "cm_care_plan.finalize"],
  ["Bash", null],
  ["mcp__healthverse__no_such_tool", null],
  ["mcp__other__auth_submit_authorization", null],
];
for (const [raw, expected] of SPELLINGS) {
  s(`${raw} → ${expected}`, () => assert.is(normalizeToolName(raw), expected));
}

s(
  "shownName gives the model's spelling",
  () => assert.is(shownName("auth.submit_authorization"), "auth_submit_authorization"),
);

const EFFECTS: [string, Record<string, unknown>, boolean, boolean][] = [
  ["chart.get_patient_chart_by_patient", {}, false, false],
  ["review.save_md_review", {}, true, false],
  ["determination.finalize", {}, true, true],
  ["review.submit_md_case_decision", { decision: "approve" }, true, false],
  ["review.submit_md_case_decision", { decision: "request_info" }, true, true],
  ["triage.route_case", {}, true, true],
];
for (const [tool, input, mutating, terminal] of EFFECTS) {
  s(`${tool} ${JSON.stringify(input)}: mutating=${mutating} terminal=${terminal}`, () => {
    assert.is(isMutating(tool), mutating);
    assert.is(isTerminal(tool, input), terminal);
  });
}

s.run();
