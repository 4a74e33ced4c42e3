/** A dashboard fixture: the sample trials plus one hostile trial whose tool arguments and results carry HTML/JS payloads. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scorecardOf, writeSamples } from "../../lib/samples.ts";
import type { LedgerRecord } from "../../lib/ledger.ts";

/** Payloads that must never execute or break the page. */
export const PAYLOADS = [
  `<script>window.__pwned=1</script>`,
  `"><img src=x onerror="window.__pwned=2">`,
  `'><svg onload=window.__pwned=3>`,
  `</pre></li></ol><script>window.__pwned=4</script>`,
  `javascript:window.__pwned=5`,
];

/** The hostile trial's name. */
export const HOSTILE = "cm_xss_payload_001__Hostile";

/** Writes the fixture under `dir`; returns the logs root and the hostile ledger path (for live appends). */
export function writeFixture(dir: string): { logs: string; ledger: string; liveLedger: string } {
  const logs = join(dir, "logs");
  writeSamples(logs, { attempts: 1 });
  const trial = join(logs, "hostile", "cm", HOSTILE);
  mkdirSync(join(trial, "verifier"), { recursive: true });
  mkdirSync(join(trial, "agent", "fiable"), { recursive: true });
  const payload = PAYLOADS.join(" ");
  writeFileSync(
    join(trial, "result.json"),
    JSON.stringify({
      task_name: "actava-ai/cm_xss_payload_001",
      trial_name: HOSTILE,
      agent_info: { name: "fiable-cc", model_info: { name: "claude-opus-5", provider: "anthropic" } },
      agent_result: { cost_usd: 1.25 },
      verifier_result: { rewards: { reward: 0.0 } },
    }),
  );
  writeFileSync(
    join(trial, "verifier", "scorecard.json"),
    JSON.stringify(scorecardOf("cm", ["cm.care_plan.finalized"])),
  );
  writeFileSync(join(trial, "verifier", "reward.json"), JSON.stringify({ reward: 0.0 }));
  const base = {
    v: 1 as const,
    t: "2026-07-20T10:00:00.000Z",
    session: "hostile-session",
    arm: "checklist" as const,
  };
  const records: LedgerRecord[] = [
    {
      ...base,
      event: "prompt",
      decision: "context",
      prompt: payload,
      seat: "cm",
      phase: "cm",
      reason: `plan ${payload}`,
    },
    {
      ...base,
      event: "pre",
      decision: "deny",
      tool: "cm_care_plan.finalize",
      tool_use_id: "toolu_x1",
      case: payload,
      input: { case_id: payload, [payload]: payload },
      rules: [{ id: "CM-01", checks: [payload], message: payload }],
      votes: [{ judge: "policy", object: true, reason: payload }],
      reason: payload,
    },
    {
      ...base,
      event: "post",
      decision: "record",
      tool: "cm_chart.get_chart_data",
      tool_use_id: "toolu_x2",
      input: {},
      result: { note: payload },
    },
    { ...base, event: "stop", decision: "block", obligations: [payload], reason: payload },
  ];
  const ledger = join(trial, "agent", "fiable", "hostile-session.jsonl");
  writeFileSync(ledger, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const liveDir = join(dir, "live");
  mkdirSync(liveDir, { recursive: true });
  const liveLedger = join(liveDir, "live-session-1.jsonl");
  writeFileSync(
    liveLedger,
    JSON.stringify({
      ...base,
      session: "live-session-1",
      event: "prompt",
      decision: "record",
      seat: "payer",
      t: new Date().toISOString(),
    }) + "\n",
  );
  return { logs, ledger, liveLedger };
}

/** One more live record for `session`, as the guard appends it. */
export function liveRecord(session: string, n: number): string {
  return JSON.stringify({
    v: 1,
    t: new Date().toISOString(),
    session,
    event: "pre",
    arm: "checklist",
    decision: "deny",
    tool: "determination.finalize",
    tool_use_id: `toolu_live_${n}`,
    case: "CASE-3903B8ED",
    input: { case_id: "CASE-3903B8ED", decision: "approved" },
    rules: [{ id: "UM-TEST", checks: ["outcome.determination_exists"], message: `live marker ${n}` }],
    reason: `live marker ${n}`,
  }) + "\n";
}
