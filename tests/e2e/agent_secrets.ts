/** fiable-agent e2e: the API key appears in no file the agent wrote, no output line and no model request. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { type AgentBedRun, cleanup, explainRun, FAKE_KEY, runAgentBed } from "../support/agent_bed.ts";
import { PAYER_PROMPT } from "../support/e2e/scenario.ts";

const CASE = "CASE-3903B8ED";
const SCRIPT = [
  { calls: [{ name: "payer_intake_hub_list_intake_queue", input: {} }] },
  { calls: [{ name: "review_get_md_review_data", input: { case_id: CASE } }] },
  { text: "Stopping." },
];

/** Every place a key could land: each file written, stdout and stderr. */
function leaks(run: AgentBedRun): string[] {
  const found = run.files.filter((f) => readFileSync(f, "utf8").includes(FAKE_KEY));
  if (run.stdout.includes(FAKE_KEY)) found.push("stdout");
  if (run.stderr.includes(FAKE_KEY)) found.push("stderr");
  return found;
}

const s = suite("e2e/agent_secrets");

s("a normal run with a retried 429: key in no file, output or request", async () => {
  const run = await runAgentBed({
    seat: "payer",
    prompt: PAYER_PROMPT,
    script: SCRIPT,
    fault: { status: 429, times: 1 },
  });
  try {
    const why = explainRun(run);
    assert.is(run.code, 0, why);
    assert.ok(run.files.length >= 2, `the agent wrote a trajectory and a ledger: ${run.files.join(", ")}`);
    assert.equal(leaks(run), []);
    assert.not.ok(run.main.some((r) => JSON.stringify(r.body).includes(FAKE_KEY)), "key in a model request");
  } finally {
    cleanup(run);
  }
});

s("a simulator result that echoes the key is scrubbed from the trajectory and the ledger", async () => {
  const run = await runAgentBed({
    seat: "payer",
    prompt: PAYER_PROMPT,
    script: SCRIPT,
    handlers: { "payer_intake_hub.list_intake_queue": () => ({ result: [], debug: `key=${FAKE_KEY}` }) },
  });
  try {
    assert.is(run.code, 0, explainRun(run));
    assert.equal(leaks(run), []);
    assert.match(readFileSync(run.trajectoryPath, "utf8"), "key=[redacted]");
  } finally {
    cleanup(run);
  }
});

s("an API failure's message carries no key either", async () => {
  const run = await runAgentBed({
    seat: "payer",
    prompt: PAYER_PROMPT,
    script: SCRIPT,
    fault: { status: 401, times: 1 },
  });
  try {
    assert.is(run.code, 3, explainRun(run));
    assert.equal(leaks(run), []);
  } finally {
    cleanup(run);
  }
});

s.run();
