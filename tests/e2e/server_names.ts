/**
 * MCP server names with the real Claude Code CLI and http hooks: every name a χ-Bench task source uses —
 * `chi-bench` (opus-4-8's packet) and the Harbor-hub export's `chi-bench-provider`, `chi-bench-payer` and
 * `chi-bench-cm` in one task (`healthverse`, most leaderboard runs, is every other end-to-end test's) — and
 * names Claude Code spells with a trailing `_`, a `__`, or `_` for spaces and punctuation (`healthverse_`,
 * `a__b`, `chi bench!`, ` healthverse`, `-x`, ` `). The scripted model calls each tool by the name the CLI
 * offered it under, so the spelling is the CLI's own: the guard's (`serverToolPrefix`) must equal it, the hooks
 * fire on each server's tools, the guard decides on them, and each call reaches the server it names.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serverToolPrefix } from "../../lib/guard/config/claude_settings.ts";
import { runBed } from "../support/e2e/bed.ts";
import { CLAUDE_CODE_VERSION, HARBOR_CLAUDE_CODE_VERSION } from "../support/e2e/claude_version.ts";
import type { StubSeat } from "../support/e2e/healthverse.ts";
import type { MessagesRequest } from "../support/e2e/model_server.ts";
import { explain, PAYER, PAYER_PROMPT, preOf, resultShown, ruleIds } from "../support/e2e/scenario.ts";

/** Both pinned CLIs: the bed's and the one real Harbor trials ran. */
const PINNED = [CLAUDE_CODE_VERSION, HARBOR_CLAUDE_CODE_VERSION];

/** One tool only its seat's server offers, and its registered name. */
const SEAT_READ: Record<StubSeat, [string, string]> = {
  payer: ["payer_intake_hub_list_intake_queue", "payer_intake_hub.list_intake_queue"],
  provider: ["chart_search_patients", "chart.search_patients"],
  cm: ["cm_intake_list_referral_queue", "cm_intake.list_referral_queue"],
};

const CASES: { name: string; servers: { name: string; seat: StubSeat }[]; versions?: string[] }[] = [
  { name: "chi-bench", servers: [{ name: "chi-bench", seat: "payer" }] },
  {
    name: "Harbor hub: chi-bench-provider, chi-bench-payer, chi-bench-cm",
    servers: [
      { name: "chi-bench-provider", seat: "provider" },
      { name: "chi-bench-payer", seat: "payer" },
      { name: "chi-bench-cm", seat: "cm" },
    ],
  },
  {
    name: "spelled with a trailing _, a __, punctuation: healthverse_, a__b, chi bench!",
    servers: [
      { name: "healthverse_", seat: "payer" },
      { name: "a__b", seat: "provider" },
      { name: "chi bench!", seat: "cm" },
    ],
    versions: PINNED,
  },
  {
    name: "a leading space, a leading -, a space alone",
    servers: [
      { name: " healthverse", seat: "payer" },
      { name: "-x", seat: "provider" },
      { name: " ", seat: "cm" },
    ],
    versions: PINNED,
  },
];

/** The one offered tool name that ends in `__<tool>`: the CLI's own spelling of its server's tool. */
function offered(request: MessagesRequest, tool: string): string {
  const names = (request.tools ?? []).map((t) => t.name).filter((n) => n.endsWith(`__${tool}`));
  if (names.length !== 1) throw new Error(`expected one offered tool ending __${tool}, got ${names}`);
  return names[0];
}

const s = suite("e2e server names (http hooks)");

for (const c of CASES) {
  for (const version of c.versions ?? [CLAUDE_CODE_VERSION]) {
    s(
      `${c.name} (Claude Code ${version}): hooks fire on every declared server's tools; a premature finalize is denied`,
      async () => {
        const payer = c.servers.find((x) => x.seat === "payer")!.name;
        const spelled: Record<string, string> = {};
        const reads = c.servers.map((server, i) => (request: MessagesRequest) => {
          const name = offered(request, SEAT_READ[server.seat][0]);
          spelled[server.name] = name;
          return { calls: [{ name, input: {}, id: `toolu_names_read_${i}` }] };
        });
        const early = (request: MessagesRequest) => ({
          calls: [{
            name: offered(request, "determination_finalize"),
            input: PAYER.finalize().input,
            id: "toolu_names_early",
          }],
        });
        const run = await runBed({
          mode: "http",
          arm: "checklist",
          seat: "payer",
          servers: c.servers,
          prompt: PAYER_PROMPT,
          script: [...reads, early, { text: "Stopping here." }],
          budgets: { stop_blocks: 0 },
          claudeVersion: version,
        });
        const why = explain(run);
        assert.is(run.claude.code, 0, why);
        c.servers.forEach((server, i) => {
          const [tool, registered] = SEAT_READ[server.seat];
          assert.is(
            spelled[server.name],
            `mcp__${serverToolPrefix(server.name)}__${tool}`,
            "the CLI's spelling",
          );
          const id = `toolu_names_read_${i}`;
          assert.is(preOf(run, id)?.tool, registered, `${server.name}: ${why}`);
          assert.ok(
            run.ledger.some((r) => r.event === "post" && r.tool_use_id === id),
            `${server.name} post; ${why}`,
          );
          assert.ok(
            run.callsBy[server.name].some((call) => call.tool === registered),
            `${server.name}; ${why}`,
          );
        });
        assert.is(preOf(run, "toolu_names_early")?.decision, "deny", why);
        assert.ok(ruleIds(preOf(run, "toolu_names_early")).includes("UM-01"), why);
        assert.match(resultShown(run, "toolu_names_early")?.text ?? "", "[UM-01]");
        assert.not.ok(run.callsBy[payer].some((call) => call.tool === "determination.finalize"), why);
      },
    );
  }
}

s.run();
