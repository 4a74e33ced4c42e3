/** Hand-built Harbor trial dirs for the aggregator tests: result.json, verifier files, optional ledger. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What a fake trial looks like; everything is optional but the task. */
export interface FakeTrial {
  task: string;
  domain?: string;
  reward?: number | null;
  model?: string;
  tokens?: { input: number; cache: number; output: number };
  costUsd?: number | null;
  agentSeconds?: number;
  exception?: string;
  scorecardReward?: number;
  result?: string | null;
  ledger?: unknown[];
  id?: string;
}

/** A fresh temp dir. */
export function tempDir(prefix = "fiable-agg-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

function iso(seconds: number): string {
  return new Date(Date.UTC(2026, 6, 1) + seconds * 1000).toISOString().replace("Z", "") + "123Z";
}

/** Writes one trial dir under `root/<domain>/<task>__<id>` and returns its path. */
export function writeTrial(root: string, t: FakeTrial, n = 0): string {
  const domain = t.domain ?? "pa_um";
  const dir = join(root, domain, `${t.task.slice(0, 32)}__${t.id ?? `t${String(n).padStart(6, "0")}`}`);
  mkdirSync(join(dir, "verifier"), { recursive: true });
  const [provider, name] = (t.model ?? "anthropic/claude-sonnet-5").split("/");
  const reward = t.reward === undefined ? 1 : t.reward;
  const result = {
    task_name: `actava-ai/${t.task}`,
    trial_name: `${t.task}__x`,
    agent_info: { name: "claude-code", version: "2.1.0", model_info: { name, provider } },
    agent_result: {
      n_input_tokens: t.tokens?.input ?? 1_000_000,
      n_cache_tokens: t.tokens?.cache ?? 800_000,
      n_output_tokens: t.tokens?.output ?? 10_000,
      cost_usd: t.costUsd === undefined ? 1.5 : t.costUsd,
    },
    verifier_result: reward === null ? null : { rewards: { reward } },
    exception_info: t.exception ? { exception_type: t.exception, exception_message: "boom" } : null,
    started_at: iso(0),
    finished_at: iso(1000),
    agent_execution: { started_at: iso(10), finished_at: iso(10 + (t.agentSeconds ?? 100)) },
  };
  if (t.result !== null) writeFileSync(join(dir, "result.json"), t.result ?? JSON.stringify(result));
  if (reward !== null) {
    const card = t.scorecardReward ?? reward;
    writeFileSync(join(dir, "verifier", "reward.json"), JSON.stringify({ reward }));
    writeFileSync(
      join(dir, "verifier", "scorecard.json"),
      JSON.stringify({
        binary_reward: card,
        checks: { "outcome.target_status": card >= 1, "judge.md_review:final_decision": "not_applicable" },
      }),
    );
  }
  if (t.ledger) {
    mkdirSync(join(dir, "agent", "fiable"), { recursive: true });
    writeFileSync(
      join(dir, "agent", "fiable", "s1.jsonl"),
      t.ledger.map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
  }
  return dir;
}

/** Writes an arm: one trial per row, under a fresh root. */
export function writeArm(trials: FakeTrial[], root = tempDir()): string {
  trials.forEach((t, i) => writeTrial(root, t, i));
  return root;
}
