/** fiable-agent e2e: 429 and 5xx are retried with backoff; other errors and spent retries stop cleanly (exit 3). */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { cleanup, explainRun, runAgentBed } from "../support/agent_bed.ts";
import { PAYER_PROMPT } from "../support/e2e/scenario.ts";

const DONE = { text: "Nothing to do." };
const ROWS = [
  {
    name: "429 then 200 is retried",
    status: 429,
    times: 1,
    retries: "4",
    code: 0,
    reason: "end_turn",
    faulted: 1,
  },
  {
    name: "529 twice then 200 is retried",
    status: 529,
    times: 2,
    retries: "4",
    code: 0,
    reason: "end_turn",
    faulted: 2,
  },
  {
    name: "400 is not retried",
    status: 400,
    times: 1,
    retries: "4",
    code: 3,
    reason: "api_error",
    faulted: 1,
  },
  {
    name: "500 past the retries stops",
    status: 500,
    times: 9,
    retries: "2",
    code: 3,
    reason: "api_error",
    faulted: 3,
  },
];

const s = suite("e2e/agent_retry");

for (const row of ROWS) {
  s(row.name, async () => {
    const run = await runAgentBed({
      seat: "payer",
      prompt: PAYER_PROMPT,
      script: [DONE],
      arm: "shadow",
      fault: { status: row.status, times: row.times },
      args: ["--retries", row.retries],
    });
    try {
      const why = explainRun(run);
      assert.is(run.code, row.code, why);
      assert.is(run.faulted, row.faulted, why);
      assert.is(run.summary?.stop_reason, row.reason, why);
      assert.is(run.trajectory.final_metrics.extra.stop_reason, row.reason, why);
      if (row.reason === "end_turn") {
        const agent = run.trajectory.steps.find((st) => st.source === "agent");
        assert.is(agent?.extra?.api_attempts, row.faulted + 1, why);
        assert.is(run.main.length, 1, why);
      } else {
        assert.match(String(run.summary?.detail), `HTTP ${row.status}`);
        assert.match(String(run.summary?.detail), `after ${row.faulted} attempt`);
        assert.is(run.main.length, 0, why);
      }
    } finally {
      cleanup(run);
    }
  });
}

s.run();
