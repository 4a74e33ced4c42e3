/**
 * Scenario 7: parallel read-only MCP calls in one turn. The stub annotates read tools `readOnlyHint`, so
 * Claude Code runs them concurrently and their hooks overlap; every call still gets its pre and post
 * record, keyed by tool_use_id, and no ledger line is torn.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { MODES, runBed } from "../support/e2e/bed.ts";
import { explain, mcp, PAYER_PROMPT } from "../support/e2e/scenario.ts";

const CASE = "CASE-3903B8ED";
const READS = [
  "triage_get",
  "triage_calculate_sla",
  "triage_check_gold_card",
  "review_get_md_review_data",
  "determination_get_summary",
].map((tool, i) => mcp(tool, { case_id: CASE }, `toolu_e2e_read_${i + 1}`));

for (const mode of MODES) {
  const s = suite(`e2e parallel read-only calls (${mode} hooks)`);

  s(`${READS.length} reads in one turn each have a pre and a post record`, async () => {
    const run = await runBed({
      mode,
      arm: "checklist",
      seat: "payer",
      prompt: PAYER_PROMPT,
      // Stop gate budget 0: the run ends right after the reads (the open determination is released).
      budgets: { stop_blocks: 0 },
      script: [{ text: "Reading the case from every angle.", calls: READS }, { text: "Done." }],
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    assert.is(run.corrupt, 0, why);
    assert.is(run.main.length, 2, `all results came back in one request; ${why}`);
    assert.is(run.calls.length, READS.length, why);
    const tools = run.ledger.filter((r) => r.event === "pre" || r.event === "post").map((r) => r.event);
    assert.ok(tools.indexOf("post") >= 2, `the calls ran one at a time, not as a batch; ${why}`);
    for (const call of READS) {
      const mine = run.ledger.filter((r) => r.tool_use_id === call.id);
      assert.equal(
        mine.map((r) => `${r.event}:${r.decision}`).sort(),
        ["post:record", "pre:allow"],
        call.id + why,
      );
    }
  });

  s.run();
}
