/**
 * fiable-agent e2e: the Node ≥ 20 bundle runs a provider task; the trajectory it writes is read back by
 * lib/trajectories/atif.ts (replay's reader) and by the aggregator like any other trial, ledger included.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentBundle, cleanup, explainRun, runAgentBed } from "../support/agent_bed.ts";
import { type MessagesRequest } from "../support/e2e/model_server.ts";
import { PROVIDER_PROMPT } from "../support/e2e/scenario.ts";
import { countToolCalls, readTrajectory, taskPrompt, toolEvents } from "../../lib/trajectories/atif.ts";
import { aggregateArms } from "../../lib/results/aggregate.ts";
import { replayTrial } from "../../lib/trajectories/replay.ts";
import { findTrials } from "../../lib/results/trials.ts";

const CASE = "CASE-ACT-001";
const PATIENT = "PAT-c7e617a246b7";
const SCRIPT = [
  {
    calls: [{ name: "handbook_search", input: { query: "lumbar MRI prior authorization" }, id: "toolu_hb" }],
  },
  { calls: [{ name: "chart_search_patients", input: { last_name: "Rivera" } }] },
  { calls: [{ name: "chart_list_candidate_orders", input: { patient_id: PATIENT } }] },
  {
    calls: [{
      name: "cases_create_from_order",
      input: { patient_id: PATIENT, service_request_id: "SR-001" },
    }],
  },
  { calls: [{ name: "auth_submit_authorization", input: { case_id: CASE }, id: "toolu_early" }] },
  {
    calls: [{
      name: "auth_finalize_provider_determination",
      input: {
        case_id: CASE,
        final_action: "submit_pa",
        rationale: "Six weeks of failed conservative therapy documented; policy criteria 1-3 met.",
        override_reason: "Chart shows criteria 1-3 met: failed PT, NSAIDs, persistent radiculopathy.",
      },
    }],
  },
  { calls: [{ name: "docs_create_submission_bundle", input: { case_id: CASE } }] },
  (body: MessagesRequest) => ({
    calls: [{
      name: "auth_submit_authorization",
      input: {
        case_id: CASE,
        bundle_document_id: /DOC-BUNDLE-[0-9a-f]+/.exec(JSON.stringify(body.messages))?.[0],
      },
    }],
  }),
  { text: "Submitted." },
];

const s = suite("e2e/agent_roundtrip");

s("the Node bundle's trajectory reads back through atif.ts and aggregates with its ledger", async () => {
  const work = mkdtempSync(join(tmpdir(), "fiable-agent-rt-"));
  const bundle = await agentBundle();
  const handbook = join(work, "handbook");
  mkdirSync(join(handbook, "references", "provider-pa"), { recursive: true });
  writeFileSync(
    join(handbook, "references", "provider-pa", "imaging.md"),
    "# Advanced imaging prior authorization\n\nLumbar MRI needs six weeks of conservative therapy.\n",
  );
  const run = await runAgentBed({
    seat: "provider",
    prompt: PROVIDER_PROMPT,
    script: SCRIPT,
    bundle,
    handbook,
  });
  try {
    const why = explainRun(run);
    assert.is(run.code, 0, why);
    assert.is(run.summary?.stop_reason, "end_turn", why);

    const t = readTrajectory(run.trajectoryPath);
    assert.is(t.version, "1.7");
    assert.is(t.model, "claude-sonnet-5");
    assert.is(t.corrupt, 0);
    assert.is(taskPrompt(t), PROVIDER_PROMPT);
    const { calls, unresolved } = toolEvents(t);
    assert.equal(unresolved, []);
    assert.equal(calls.map((c) => c.tool), [
      null,
      "chart.search_patients",
      "chart.list_candidate_orders",
      "cases.create_from_order",
      "auth.submit_authorization",
      "auth.finalize_provider_determination",
      "docs.create_submission_bundle",
      "auth.submit_authorization",
    ]);
    assert.ok(calls.every((c) => c.answered));
    const early = calls.find((c) => c.id === "toolu_early");
    assert.is(early?.isError, true);
    assert.match(early?.text ?? "", "[PP-01]");
    assert.equal(calls.filter((c) => c.isError).map((c) => c.id), ["toolu_early"]);
    assert.equal(countToolCalls(t), { all: 8, mcp: 7 });
    // The local handbook tool ran inside the bundle and found the page; the plan pointed at it too.
    const hb = calls.find((c) => c.id === "toolu_hb");
    assert.equal([hb?.raw, hb?.isError], ["handbook_search", false]);
    assert.match(hb?.text ?? "", "references/provider-pa/imaging.md");
    assert.match(JSON.stringify(run.main[0].body.system), "references/provider-pa/imaging.md");

    // One Harbor-shaped trial dir, as populate_context_post_run and Harbor's download would leave it.
    const trial = join(work, "trials", "pa_provider", "job", "pa_provider_lumbar_mri_001__abcdefg");
    mkdirSync(join(trial, "agent", "fiable"), { recursive: true });
    mkdirSync(join(trial, "verifier"), { recursive: true });
    copyFileSync(run.trajectoryPath, join(trial, "agent", "trajectory.json"));
    for (const f of readdirSync(run.ledgerDir)) {
      copyFileSync(join(run.ledgerDir, f), join(trial, "agent", "fiable", f));
    }
    const fm = run.trajectory.final_metrics;
    writeFileSync(
      join(trial, "result.json"),
      JSON.stringify({
        task_name: "actava-ai/pa_provider_lumbar_mri_001",
        agent_info: {
          name: "fiable-agent",
          version: "0.1.0",
          model_info: { name: "claude-sonnet-5", provider: "anthropic" },
        },
        agent_result: {
          n_input_tokens: fm.total_prompt_tokens,
          n_cache_tokens: fm.total_cached_tokens,
          n_output_tokens: fm.total_completion_tokens,
          cost_usd: fm.total_cost_usd,
        },
        verifier_result: { rewards: { reward: 1 } },
        started_at: "2026-11-30T04:00:00Z",
        finished_at: "2026-11-30T04:05:00Z",
        agent_execution: { started_at: "2026-11-30T04:00:30Z", finished_at: "2026-11-30T04:04:00Z" },
      }),
    );
    writeFileSync(join(trial, "verifier", "reward.json"), '{"reward": 1.0}');
    writeFileSync(
      join(trial, "verifier", "scorecard.json"),
      JSON.stringify({ binary_reward: 1, checks: {}, failed_checks: [], not_applicable_checks: [] }),
    );
    const result = aggregateArms([{ name: "fiable-agent", roots: [join(work, "trials")] }], { iters: 10 });
    const row = result.rows.find((r) => r.domain === "pa_provider")!;
    assert.ok(row, JSON.stringify(result.rows.map((r) => r.domain)));
    assert.is(row.n_trials, 1);
    assert.is(row.pass_at_1, 1);
    assert.is(row.mean_tool_calls, 8);
    assert.is(row.mean_mcp_calls, 7);
    assert.is(row.n_trajectories, 1);
    assert.is(row.guard?.denies, 1);
    assert.is(row.guard?.errors, 0);
    assert.is(row.mean_reported_cost_usd, fm.total_cost_usd);

    // Replay reads the same trial and re-derives the live deny from the recorded calls.
    const replay = replayTrial(findTrials([join(work, "trials")])[0], { arms: ["checklist"], out: null });
    assert.not.ok("reason" in replay, JSON.stringify(replay));
    if (!("reason" in replay)) {
      assert.is(replay.harness, "fiable-agent");
      assert.equal(replay.toolCalls, { all: 8, mcp: 7 });
      assert.ok(
        replay.arms.checklist?.rules["PP-01"]?.calls.some((c) => c.id === "toolu_early"),
        JSON.stringify(replay.arms),
      );
    }
  } finally {
    cleanup(run);
    rmSync(work, { recursive: true, force: true });
  }
});

s.run();
