/**
 * Scenario: run integrity with the real Claude Code. The calls Claude Code made (the tool_use blocks it sent
 * back to the model — the ids Harbor's ATIF keeps as tool_call_id) are matched to the guard's ledger by
 * tool_use_id: full coverage when the guard answers. A command hook that hangs past Claude Code's hook timeout is
 * terminated, answers allow on the signal and records a fail-open error, which flags the arm. A dead resident
 * guard that leaves no record at all is covered by the stand-in Harbor trial (tests/e2e/harbor_trial.ts).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MODES, readAllLedgers, runBed } from "../support/e2e/bed.ts";
import { tempLedger, until } from "../support/guard_process.ts";
import { explain, PAYER, PAYER_PROMPT, transcriptCalls } from "../support/e2e/scenario.ts";
import type { BedRun } from "../support/e2e/bed.ts";
import { armIntegrity, type TrialFacts, trialIntegrity } from "../../lib/results/integrity.ts";

function facts(run: BedRun, mode: string): TrialFacts {
  return {
    dir: "e2e-trial",
    config: { agent: { kwargs: { arm: "checklist" } } },
    agentName: "fiable-cc",
    harness: { arm: "checklist", hooks: mode, port: 0 },
    harnessPath: "e2e-trial/agent/fiable/harness.json",
    settings: null,
    ledgerDir: "e2e-trial/agent/fiable",
    ledgers: [{ path: "e2e-trial/agent/fiable/session.jsonl", records: run.ledger, corrupt: run.corrupt }],
    trajectory: "e2e-trial/agent/trajectory.json",
    calls: transcriptCalls(run),
    problems: [],
  };
}

for (const mode of MODES) {
  const s = suite(`e2e run integrity (${mode} hooks)`);

  s("every call Claude Code made has its pre and post record by tool_use_id: full coverage", async () => {
    const run = await runBed({
      mode,
      arm: "checklist",
      seat: "payer",
      prompt: PAYER_PROMPT,
      budgets: { stop_blocks: 0 },
      script: [{ calls: [PAYER.queue] }, { calls: [PAYER.mdData, PAYER.summary] }, { text: "Done." }],
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    const t = trialIntegrity(facts(run, mode));
    assert.is(t.tool_calls, 3, why);
    assert.equal([t.coverage, t.match, t.plan_injected, t.verdict], [1, "tool_use_id", true, "pass"], why);
  });

  s(
    "an API error ends the run: StopFailure recorded, never taken for a stop; duration_ms kept",
    async () => {
      const refused = {
        status: 400,
        type: "invalid_request_error",
        message: "scripted: request refused",
      } as const;
      const ledgerDir = tempLedger();
      const run = await runBed({
        mode,
        arm: "checklist",
        seat: "payer",
        prompt: PAYER_PROMPT,
        ledgerDir,
        budgets: { stop_blocks: 0 },
        // Claude Code retries a refused request before it gives up: every later request is refused too.
        script: [{ calls: [PAYER.queue] }, ...Array(6).fill({ apiError: refused })],
      });
      const why = explain(run);
      assert.not.ok(run.ledger.some((r) => r.event === "stop"), `no Stop after an API error; ${why}`);
      // Claude Code runs StopFailure without waiting for it as it exits: the resident guard answers in time;
      // a command hook runs in a session of its own (setsid) and may record just after claude has gone.
      const ended = mode === "http"
        ? run.ledger.filter((r) => r.event === "stop-fail")
        : await until("the StopFailure record", 5_000, () => {
          const found = readAllLedgers(ledgerDir).records.filter((r) => r.event === "stop-fail");
          return Promise.resolve(found.length > 0 && found);
        }).catch(() => []);
      assert.is(ended.length, 1, why);
      assert.equal(ended[0].decision, "record", why);
      assert.match(ended[0].error ?? "", /^[a-z_]+$/, why);
      const post = run.ledger.find((r) => r.event === "post");
      assert.type(post?.duration_ms, "number", why);
      assert.ok(post!.duration_ms! >= 0, why);
    },
  );

  if (mode === "command") {
    s(
      "a guard that hangs past Claude Code's hook timeout is ended, answers allow and records it: the arm is flagged",
      async () => {
        const run = await runBed({
          mode,
          arm: "checklist",
          seat: "payer",
          prompt: PAYER_PROMPT,
          // The guard hangs on PreToolUse with a 30 s budget (the profile's maximum), so Claude Code's 10 s hook
          // timeout terminates the hook process: it answers allow on the signal and records why.
          fault: { kind: "hang", event: "pre" },
          budgets: { decision_ms: 30_000, stop_blocks: 0 },
          script: [{ calls: [PAYER.queue] }, { text: "Done." }],
          timeoutMs: 90_000,
        });
        const why = explain(run);
        assert.is(run.claude.code, 0, why);
        assert.is(run.calls.length, 1, `the call reached the server; ${why}`);
        const t = trialIntegrity(facts(run, mode));
        assert.equal(
          [t.tool_calls, t.coverage, t.fail_open_errors, t.errors_per_100_calls],
          [1, 1, 1, 100],
          why,
        );
        const arm = armIntegrity([t]);
        assert.ok(arm.errors_flag, why);
        assert.match(arm.problems.join("\n"), /fail-open errors are 100\.00 per 100/);
      },
    );
  }

  s.run();
}
