// The stand-in verifier: reads the calls the stub MCP servers served (GET <server>/calls), scores them
// against /tests/expectations.json and writes /logs/verifier/reward.json and scorecard.json (the fields
// chi-bench's scorecard has). A check passes when a successful call of its tool with its arguments exists;
// the forbidden-mutation check fails on any successful listed mutation naming a listed case.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

const expected = JSON.parse(readFileSync("/tests/expectations.json", "utf8"));
const calls = [];
for (const url of expected.calls_urls) calls.push(...await (await fetch(url)).json());

const succeeded = calls.filter((c) => !c.error);
const hasArgs = (call, args) => Object.entries(args ?? {}).every(([k, v]) => call.args?.[k] === v);
const checks = {};
for (const check of expected.checks) {
  checks[check.id] = succeeded.some((c) => c.tool === check.tool && hasArgs(c, check.args));
}
if (expected.forbidden) {
  const { id, tools, cases } = expected.forbidden;
  checks[id] = !succeeded.some((c) => tools.includes(c.tool) && cases.includes(String(c.args?.case_id)));
}
const ids = Object.keys(checks);
const failed = ids.filter((id) => !checks[id]);
const reward = failed.length === 0 && ids.length > 0 ? 1.0 : 0.0;
mkdirSync("/logs/verifier", { recursive: true });
writeFileSync("/logs/verifier/reward.json", JSON.stringify({ reward }) + "\n");
writeFileSync(
  "/logs/verifier/scorecard.json",
  JSON.stringify(
    {
      binary_reward: reward,
      fractional_reward: ids.length ? (ids.length - failed.length) / ids.length : 0,
      passed_checks: ids.length - failed.length,
      total_checks: ids.length,
      check_scores: Object.fromEntries(ids.map((id) => [id, checks[id] ? 1 : 0])),
      checks,
      failed_checks: failed,
      not_applicable_checks: [],
      stages: {},
    },
    null,
    2,
  ) + "\n",
);
console.log(`reward ${reward}: ${ids.length - failed.length}/${ids.length} checks passed`);
