/**
 * Scenario: run integrity with the real Claude Code. The calls Claude Code made (the tool_use blocks it sent
 * back to the model — the ids Harbor's ATIF keeps as tool_call_id) are matched to the guard's ledger by
 * tool_use_id: full coverage when the guard answers; coverage 0 and a failing verdict when it never answers
 * (a command hook hangs past Claude Code's hook timeout and is ended before it writes a record — what a dead
 * resident guard leaves too).
 * The Harbor stand-in trial (issue 14) will add the same check on a converted trajectory.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MODES, runBed } from "../support/e2e/bed.ts";
import { explain, PAYER, PAYER_PROMPT } from "../support/e2e/scenario.ts";
import type { BedRun } from "../support/e2e/bed.ts";
import { type TrialFacts, trialIntegrity } from "../../lib/integrity.ts";
import { normalizeToolName } from "../../lib/names.ts";
import type { WorldCall } from "../../lib/tool_counts.ts";

/** The χ-World calls of the run as a trajectory has them: every tool_use Claude Code sent back, in order. */
function transcriptCalls(run: BedRun): WorldCall[] {
  const messages = run.main.at(-1)?.body.messages ?? [];
  const answered = new Set<string>();
  const calls: WorldCall[] = [];
  messages.forEach((m, step) => {
    for (const b of Array.isArray(m.content) ? m.content as Record<string, unknown>[] : []) {
      if (b.type === "tool_result") answered.add(String(b.tool_use_id));
      const tool = b.type === "tool_use" ? normalizeToolName(String(b.name)) : null;
      if (tool) calls.push({ id: String(b.id), tool, raw: String(b.name), answered: false, step });
    }
  });
  return calls.map((c) => ({ ...c, answered: answered.has(c.id) }));
}

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

  if (mode === "command") {
    s(
      "a guard that never answers leaves the calls without records: coverage 0, the trial fails",
      async () => {
        const run = await runBed({
          mode,
          arm: "checklist",
          seat: "payer",
          prompt: PAYER_PROMPT,
          // The guard hangs on PreToolUse with a 30 s budget (the profile's maximum), so Claude Code's 10 s hook
          // timeout ends the hook process before it writes anything: the call proceeds unguarded, unrecorded.
          fault: { kind: "hang", event: "pre" },
          budgets: { decision_ms: 30_000, stop_blocks: 0 },
          script: [{ calls: [PAYER.queue] }, { text: "Done." }],
          timeoutMs: 90_000,
        });
        const why = explain(run);
        assert.is(run.claude.code, 0, why);
        assert.is(run.calls.length, 1, `the call reached the server unguarded; ${why}`);
        const t = trialIntegrity(facts(run, mode));
        assert.equal([t.tool_calls, t.coverage, t.verdict], [1, 0, "fail"], why);
        assert.match(t.problems.join("\n"), /none of its 1 χ-World tool calls .* has a pre record/);
      },
    );
  }

  s.run();
}
