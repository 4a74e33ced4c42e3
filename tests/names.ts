/** Tool-name normalisation across harness spellings. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  isMcpToolName,
  isMutating,
  isTerminal,
  normalizeToolName,
  shownName,
} from "../lib/guard/engine/names.ts";

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
  // Any server name: the matcher lets only the trial's declared servers reach the guard; the catalog decides.
  ["mcp__chi-bench-provider__auth_submit_authorization", "auth.submit_authorization"],
  ["mcp__chi-bench-payer__determination_finalize", "determination.finalize"],
  ["mcp__chi-bench-cm__cm_care_plan_finalize", "cm_care_plan.finalize"],
  ["mcp__chi_bench__cases_create_from_order", "cases.create_from_order"],
  ["mcp__other__auth_submit_authorization", "auth.submit_authorization"],
  ["mcp__github__create_issue", null],
  ["mcp__healthverse", null],
  ["mcp____determination_finalize", null],
  // Claude Code's spelling of server names that end in `_`, hold `__`, or had spaces and punctuation.
  ["mcp__healthverse___auth_submit_authorization", "auth.submit_authorization"],
  ["mcp__a__b__determination_finalize", "determination.finalize"],
  ["mcp__chi_bench___payer_intake_hub_list_intake_queue", "payer_intake_hub.list_intake_queue"],
  ["mcp___healthverse__cm_care_plan_finalize", "cm_care_plan.finalize"],
  ["mcp_____triage_route_case", "triage.route_case"],
  ["mcp__-x__chart_search_patients", "chart.search_patients"],
  ["mcp__a__b__github_create_issue", null],
];
for (const [raw, expected] of SPELLINGS) {
  s(`${raw} → ${expected}`, () => assert.is(normalizeToolName(raw), expected));
}

s("isMcpToolName: Claude Code's mcp__<server>__<tool> for any server, nothing else", () => {
  for (
    const name of ["mcp__healthverse__x", "mcp__chi-bench-cm__x", "mcp__a_b__x", "mcp__a__b__x", "mcp_____x"]
  ) {
    assert.ok(isMcpToolName(name));
  }
  for (const name of ["Bash", "mcp_healthverse_x", "mcp__healthverse", "tools.mcp__healthverse__x"]) {
    assert.not.ok(isMcpToolName(name), name);
  }
});

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
