/** fiable-agent e2e: a premature terminal call is blocked in-process, the block reaches the model, the fix passes. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cleanup, explainRun, runAgentBed } from "../support/agent_bed.ts";
import { lastToolResults, type MessagesRequest } from "../support/e2e/model_server.ts";
import { PROVIDER_PROMPT } from "../support/e2e/scenario.ts";

const CASE = "CASE-ACT-001";
const SEARCH = { name: "chart_search_patients", input: { last_name: "Rivera" } };
const ORDERS = { name: "chart_list_candidate_orders", input: { patient_id: "PAT-c7e617a246b7" } };
const CREATE = {
  name: "cases_create_from_order",
  input: { patient_id: "PAT-c7e617a246b7", service_request_id: "SR-001" },
};
const EARLY = { name: "auth_submit_authorization", input: { case_id: CASE }, id: "toolu_submit_early" };
const DECIDE = {
  name: "auth_finalize_provider_determination",
  input: {
    case_id: CASE,
    final_action: "submit_pa",
    rationale: "Six weeks of failed conservative therapy documented; policy criteria 1-3 met.",
    override_reason: "Chart shows criteria 1-3 met: failed PT, NSAIDs, persistent radiculopathy.",
  },
};
const BUNDLE = { name: "docs_create_submission_bundle", input: { case_id: CASE }, id: "toolu_bundle" };
/** The critic arm asks once at the first bundle (CHECKPOINT-01); the model sends the same call again. */
const BUNDLE_AGAIN = { ...BUNDLE, id: "toolu_bundle_again" };
const FIXED_ID = "toolu_submit_fixed";
/** The fixed submission, with the bundle id the model was just shown. */
function fixed(body: MessagesRequest) {
  const bundle = /DOC-BUNDLE-[0-9a-f]+/.exec(JSON.stringify(body.messages))?.[0] ?? "DOC-missing";
  return {
    calls: [{
      name: "auth_submit_authorization",
      input: { case_id: CASE, bundle_document_id: bundle },
      id: FIXED_ID,
    }],
  };
}
function script(arm: string) {
  return [
    { calls: [SEARCH] },
    { calls: [ORDERS] },
    { calls: [CREATE] },
    { calls: [EARLY] },
    { calls: [DECIDE] },
    { calls: [BUNDLE] },
    ...(arm === "critic" ? [{ text: "Every criterion is backed by the chart.", calls: [BUNDLE_AGAIN] }] : []),
    fixed,
    { text: "Submitted." },
  ];
}

const s = suite("e2e/agent_premature");

for (const arm of ["checklist", "critic"]) {
  s(
    `${arm}: the early submission is denied, never reaches the server, and the model reads the reason`,
    async () => {
      const run = await runAgentBed({ seat: "provider", prompt: PROVIDER_PROMPT, script: script(arm), arm });
      try {
        const why = explainRun(run);
        assert.is(run.code, 0, why);
        const denied = run.ledger.find((r) => r.event === "pre" && r.tool_use_id === EARLY.id);
        assert.is(denied?.decision, "deny", why);
        assert.ok(denied?.rules?.some((h) => h.id === "PP-01"), why);
        const shown = run.main.flatMap((m) => lastToolResults(m.body)).find((r) =>
          r.tool_use_id === EARLY.id
        );
        assert.is(shown?.is_error, true, why);
        assert.is(shown?.text, denied?.reason, "the model reads exactly the ledger's deny reason");
        assert.match(shown?.text ?? "", "auth_finalize_provider_determination");
        assert.is(run.calls.filter((c) => c.tool === "auth.submit_authorization").length, 1, why);
        assert.is(
          run.ledger.find((r) => r.event === "pre" && r.tool_use_id === FIXED_ID)?.decision,
          "allow",
          why,
        );
        assert.not.ok(run.ledger.some((r) => r.event.startsWith("post") && r.tool_use_id === EARLY.id), why);
        const result = run.trajectory.steps.flatMap((st) => st.observation?.results ?? [])
          .find((r) => r.source_call_id === EARLY.id);
        assert.equal(result?.extra, { tool_result_is_error: true, fiable_blocked: true });
        const bundle = run.ledger.find((r) => r.event === "pre" && r.tool_use_id === BUNDLE.id);
        assert.equal(bundle?.rules?.map((h) => h.id) ?? [], arm === "critic" ? ["CHECKPOINT-01"] : [], why);
        assert.is(run.calls.filter((c) => c.tool === "docs.create_submission_bundle").length, 1, why);
      } finally {
        cleanup(run);
      }
    },
  );
}

s("shadow: the same call is recorded as a would-be deny and reaches the server", async () => {
  const run = await runAgentBed({
    seat: "provider",
    prompt: PROVIDER_PROMPT,
    script: script("shadow"),
    arm: "shadow",
  });
  try {
    const why = explainRun(run);
    assert.is(
      run.ledger.find((r) => r.event === "pre" && r.tool_use_id === EARLY.id)?.decision,
      "shadow",
      why,
    );
    assert.is(run.calls.filter((c) => c.tool === "auth.submit_authorization").length, 2, why);
  } finally {
    cleanup(run);
  }
});

s.run();
