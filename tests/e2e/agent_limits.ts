/** fiable-agent e2e: each limit stops the loop cleanly and says why (stdout, trajectory, ledger). */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cleanup, explainRun, runAgentBed } from "../support/agent_bed.ts";
import { PAYER_PROMPT } from "../support/e2e/scenario.ts";

const READ = { calls: [{ name: "payer_intake_hub_list_intake_queue", input: {} }] };
/** Each scripted turn costs 100 input + 20 output tokens: 0.0006 USD at claude-sonnet-5 prices. */
const ROWS: { flag: string; value: string; reason: string; detail: RegExp }[] = [
  { flag: "--max-turns", value: "2", reason: "max_turns", detail: /max turns reached \(2 of 2\)/ },
  { flag: "--max-tokens", value: "200", reason: "max_tokens", detail: /max tokens reached \(240 of 200\)/ },
  {
    flag: "--max-cost",
    value: "0.001",
    reason: "max_cost",
    detail: /cost ceiling reached \(0\.0012 of 0\.001 USD\)/,
  },
];

const s = suite("e2e/agent_limits");

for (const row of ROWS) {
  s(`${row.flag} ${row.value} stops after two turns with reason ${row.reason}`, async () => {
    const run = await runAgentBed({
      seat: "payer",
      prompt: PAYER_PROMPT,
      script: [READ, READ, READ, READ, READ],
      args: [row.flag, row.value],
    });
    try {
      const why = explainRun(run);
      assert.is(run.code, 0, why);
      assert.is(run.summary?.stop_reason, row.reason, why);
      assert.match(String(run.summary?.detail), row.detail);
      assert.is(run.main.length, 2, why);
      assert.is(run.trajectory.final_metrics.extra.stop_reason, row.reason);
      assert.match(run.trajectory.steps.at(-1)?.message ?? "", row.detail);
      const halt = run.ledger.at(-1);
      assert.is(halt?.event, "stop", why);
      assert.is(halt?.decision, "record", why);
      assert.match(halt?.note ?? "", row.detail);
      assert.ok(halt?.obligations?.some((o) => o.startsWith("UM-DETERMINATION")), why);
    } finally {
      cleanup(run);
    }
  });
}

s("a bad limit is refused with the flag and a fix, exit 2", async () => {
  const run = await runAgentBed({
    seat: "payer",
    prompt: PAYER_PROMPT,
    script: [],
    args: ["--max-turns", "many"],
  });
  try {
    assert.is(run.code, 2);
    assert.match(run.stderr, 'Cannot use --max-turns "many": it must be a non-negative integer.');
    assert.is(run.main.length, 0);
  } finally {
    cleanup(run);
  }
});

s.run();
