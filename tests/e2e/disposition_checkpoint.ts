/**
 * Scenario: the critic arm's disposition checkpoint (CHECKPOINT-01, protocol v3) with the real Claude Code CLI.
 * The model uploads a document and builds its first submission bundle; the guard denies that call once,
 * asking whether each criterion is met by a chart document and naming both next calls in full (the same
 * bundle again, or the hold), and the model is shown the reason as the call's error
 * result. The model sends the identical call again: it goes through (released, served once by the stub), and
 * the submission completes. The checklist arm lets the first bundle through and records no checkpoint vote.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MODES, runBed } from "../support/e2e/bed.ts";
import { explain, mcp, preOf, PROVIDER_PROMPT, resultShown, ruleIds } from "../support/e2e/scenario.ts";
import type { ScriptStep } from "../support/e2e/model_server.ts";

const CASE = "CASE-ACT-001";
const DOC = "DOC-5E7A1C9B";
const BUNDLE_INPUT = { case_id: CASE, document_ids: [DOC] };
const FIRST = mcp("docs_create_submission_bundle", BUNDLE_INPUT, "toolu_e2e_bundle_first");
const AGAIN = mcp("docs_create_submission_bundle", BUNDLE_INPUT, "toolu_e2e_bundle_again");
const SUBMIT_PA = mcp("auth_finalize_provider_determination", {
  case_id: CASE,
  final_action: "submit_pa",
  override_reason:
    "Lumbar MRI for Maria Lopez: radiculopathy after six weeks of physical therapy is charted, " +
    "and the imaging report is uploaded; every criterion is backed by the chart.",
}, "toolu_e2e_submit_pa");
const SUBMIT = mcp("auth_submit_authorization", { case_id: CASE, channel: "portal" }, "toolu_e2e_submit");

const HANDLERS = {
  "docs.upload_evidence": (a: Record<string, unknown>) => ({
    document: { id: DOC, case_id: a.case_id, kind: a.kind, title: a.title },
  }),
};

function script(bundles: typeof FIRST[]): ScriptStep[] {
  return [
    { text: "Finding the patient.", calls: [mcp("chart_search_patients", { query: "Lopez" })] },
    { calls: [mcp("cases_create_from_order", { patient_id: "PAT-c7e617a246b7" })] },
    {
      calls: [
        mcp("docs_upload_evidence", { case_id: CASE, kind: "imaging_report", title: "Lumbar MRI report" }),
      ],
    },
    ...bundles.map((call, i) => ({
      text: i
        ? "Every criterion and document is backed by the chart; sending the same call again."
        : "Bundling.",
      calls: [call],
    })),
    { calls: [SUBMIT_PA] },
    { calls: [SUBMIT] },
    { text: "Submitted." },
  ];
}

for (const mode of MODES) {
  const s = suite(`e2e disposition checkpoint (${mode} hooks)`);

  s(
    "critic: the first bundle is denied once with the deciding question; the identical call sent again goes through",
    async () => {
      const run = await runBed({
        mode,
        arm: "critic",
        seat: "provider",
        prompt: PROVIDER_PROMPT,
        handlers: HANDLERS,
        script: script([FIRST, AGAIN]),
      });
      const why = explain(run);
      assert.is(run.claude.code, 0, why);

      const denied = preOf(run, FIRST.id!);
      assert.is(denied?.decision, "deny", why);
      assert.equal(ruleIds(denied), ["CHECKPOINT-01"], why);
      const shown = resultShown(run, FIRST.id!);
      assert.ok(shown?.is_error, `the model was not shown the deny; ${why}`);
      assert.match(shown!.text, "[CHECKPOINT-01] Cannot build a submission bundle for CASE-ACT-001 yet");
      assert.match(
        shown!.text,
        "Is each enumerated criterion of the governing policy met by a chart document",
      );
      assert.match(
        shown!.text,
        `send the same call again: docs_create_submission_bundle(case_id=${CASE}, document_ids=[${DOC}])`,
      );
      assert.match(shown!.text, `call auth_finalize_provider_determination(case_id=${CASE}, final_action=`);
      assert.not.match(shown!.text, /disclos/i);

      const again = preOf(run, AGAIN.id!);
      assert.is(again?.decision, "release", why);
      const served = resultShown(run, AGAIN.id!);
      assert.ok(served && !served.is_error && served.text.includes("DOC-BUNDLE-"), why);
      assert.is(run.calls.filter((c) => c.tool === "docs.create_submission_bundle").length, 1, why);
      assert.is(preOf(run, SUBMIT.id!)?.decision, "allow", why);
      assert.equal(run.ledger.filter((r) => r.event === "pre" && r.decision === "deny").length, 1, why);
    },
  );

  s("checklist: the first bundle goes through and no checkpoint votes", async () => {
    const run = await runBed({
      mode,
      arm: "checklist",
      seat: "provider",
      prompt: PROVIDER_PROMPT,
      handlers: HANDLERS,
      script: script([FIRST]),
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    const pre = preOf(run, FIRST.id!);
    assert.is(pre?.decision, "allow", why);
    assert.not.ok(pre?.votes?.some((v) => v.judge === "disposition-checkpoint"), why);
    assert.is(run.calls.filter((c) => c.tool === "docs.create_submission_bundle").length, 1, why);
  });

  s.run();
}
