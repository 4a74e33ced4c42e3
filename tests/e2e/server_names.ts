/**
 * Every MCP server name a χ-Bench task source uses, with the real Claude Code CLI and http hooks: `chi-bench`
 * (opus-4-8's packet) and the Harbor-hub export's `chi-bench-provider`, `chi-bench-payer` and `chi-bench-cm`
 * in one task (`healthverse`, most leaderboard runs, is every other end-to-end test's). The hooks fire on
 * each server's tools (Claude Code spells them `mcp__<server>__<namespace>_<method>`, hyphens kept), the
 * guard decides on them, and each call reaches the server it names.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { runBed } from "../support/e2e/bed.ts";
import type { StubSeat } from "../support/e2e/healthverse.ts";
import { explain, mcp, PAYER, PAYER_PROMPT, preOf, resultShown, ruleIds } from "../support/e2e/scenario.ts";

const CASES: {
  name: string;
  servers: { name: string; seat: StubSeat }[];
  reads: [string, string, string][];
}[] = [
  {
    name: "chi-bench",
    servers: [{ name: "chi-bench", seat: "payer" }],
    reads: [["chi-bench", "payer_intake_hub_list_intake_queue", "payer_intake_hub.list_intake_queue"]],
  },
  {
    name: "Harbor hub: chi-bench-provider, chi-bench-payer, chi-bench-cm",
    servers: [
      { name: "chi-bench-provider", seat: "provider" },
      { name: "chi-bench-payer", seat: "payer" },
      { name: "chi-bench-cm", seat: "cm" },
    ],
    reads: [
      ["chi-bench-payer", "payer_intake_hub_list_intake_queue", "payer_intake_hub.list_intake_queue"],
      ["chi-bench-provider", "chart_search_patients", "chart.search_patients"],
      ["chi-bench-cm", "cm_intake_list_referral_queue", "cm_intake.list_referral_queue"],
    ],
  },
];

const s = suite("e2e server names (http hooks)");

for (const c of CASES) {
  s(`${c.name}: hooks fire on every declared server's tools; a premature finalize is denied`, async () => {
    const payer = c.servers.find((x) => x.seat === "payer")!.name;
    const early = mcp("determination_finalize", PAYER.finalize().input, "toolu_names_early", payer);
    const reads = c.reads.map(([server, tool], i) => mcp(tool, {}, `toolu_names_read_${i}`, server));
    const run = await runBed({
      mode: "http",
      arm: "checklist",
      seat: "payer",
      servers: c.servers,
      prompt: PAYER_PROMPT,
      script: [...reads.map((call) => ({ calls: [call] })), { calls: [early] }, { text: "Stopping here." }],
      budgets: { stop_blocks: 0 },
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    const offered = (run.main[0].body.tools ?? []).map((t) => t.name);
    for (const server of c.servers) {
      assert.ok(
        offered.includes(`mcp__${server.name}__${c.reads.find((r) => r[0] === server.name)![1]}`),
        offered.join(" "),
      );
    }
    c.reads.forEach(([server, , registered], i) => {
      const id = `toolu_names_read_${i}`;
      assert.is(preOf(run, id)?.tool, registered, `${server}: ${why}`);
      assert.ok(run.ledger.some((r) => r.event === "post" && r.tool_use_id === id), `${server} post; ${why}`);
      assert.ok(run.callsBy[server].some((call) => call.tool === registered), `${server} served it; ${why}`);
    });
    assert.is(preOf(run, early.id!)?.decision, "deny", why);
    assert.ok(ruleIds(preOf(run, early.id!)).includes("UM-01"), why);
    assert.match(resultShown(run, early.id!)?.text ?? "", "[UM-01]");
    assert.not.ok(run.callsBy[payer].some((call) => call.tool === "determination.finalize"), why);
  });
}

s.run();
