/**
 * Hand-built Harbor trial dirs for the aggregator and integrity tests: result.json, verifier files, optional
 * ledger; and fiable-cc trials in Harbor's full layout (config.json, agent/trajectory.json, agent/fiable/,
 * agent/sessions/settings.json).
 */
import { chainKey, GENESIS, linkOf } from "../../lib/guard/ledger/chain.ts";
import { recordLine } from "../../lib/guard/ledger/ledger.ts";
import { trialKey } from "../../lib/guard/resident/key.ts";
import type { LedgerRecord } from "../../lib/guard/engine/record.ts";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

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
  /** agent_info.name (default claude-code). */
  agent?: string;
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
    agent_info: { name: t.agent ?? "claude-code", version: "2.1.0", model_info: { name, provider } },
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
  // No result.json: the trial stopped early, leaving the config.json Harbor writes when a trial starts.
  else {writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ task: { path: t.task }, trial_name: basename(dir) }),
    );}
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

/** A χ-World call in a hand-built guarded trial: registered tool name, and whether the guard denied it. */
export interface FakeCall {
  tool: string;
  denied?: boolean;
  /** Claude Code refused the input before its hooks (InputValidationError): no ledger record. */
  refused?: boolean;
}

/** A fiable-cc trial in Harbor's layout; every field but `arm` and `calls` has a faithful default. */
export interface GuardedTrialOptions {
  arm: string;
  calls: FakeCall[];
  task?: string;
  domain?: string;
  id?: string;
  /** The guard answered (pre, then post when the call went through) the first N calls; default all. */
  answered?: number;
  /** harness.json's hook mode; null writes no harness.json. Default http (none for stock). */
  hooks?: "http" | "command" | null;
  /** The arm in harness.json when it differs from config.json's. */
  harnessArm?: string;
  /** A prompt record with decision context (default: when the arm plans). */
  plan?: boolean;
  /** The MCP server name the trajectory's calls carry (default healthverse). */
  server?: string;
  /** Write a ledger at all (default: unless stock). */
  ledger?: boolean;
  /** Extra ledger lines: records, or raw text for a corrupt line. */
  extra?: (Record<string, unknown> | string)[];
  /** Write agent/sessions/settings.json with the guard's hooks (default: when harness.json is written). */
  settingsHooks?: boolean;
  /** The trajectory: ok, truncated JSON, absent, or without call ids. */
  trajectory?: "ok" | "truncated" | "none" | "no-ids";
  /** Write result.json (default true). */
  result?: boolean;
  /** The verified reward (default 1). */
  reward?: number;
  /**
   * The ledger as this guard writes it (issue 40): harness.json says ledger format 2, the trial key is in
   * `guard.key`, and each record is chained to the line before it under it (a string in `extra` stays a raw
   * line, which the next record links to, as a guard appending after it would).
   */
  chained?: boolean;
}

const PLANS = new Set(["plan", "checklist", "critic"]);

/** Writes one guarded (or stock) fiable-cc trial under `root/<domain>/<task>__<id>` and returns its path. */
export function writeGuardedTrial(root: string, o: GuardedTrialOptions): string {
  const domain = o.domain ?? "pa_um";
  const task = o.task ?? "pa_t008_t008_o002_p01_mdreview_payer";
  const dir = join(root, domain, `${task.slice(0, 32)}__${o.id ?? "Trial01"}`);
  const stock = o.arm === "stock";
  const session = "3f1c2d4e-0000-4000-a000-000000000001";
  const ids = o.calls.map((_, i) => `toolu_01${String(i).padStart(22, "0")}`);
  const server = o.server ?? "healthverse";
  mkdirSync(join(dir, "agent", "sessions"), { recursive: true });
  writeFileSync(join(dir, "agent", "claude-code.txt"), "{}\n");
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      trial_name: basename(dir),
      agent: {
        name: null,
        import_path: "chi_bench.experiment.agents.fiable_cc_harness:FiableClaudeCode",
        model_name: "anthropic/claude-opus-5",
        kwargs: { arm: o.arm },
        env: { ANTHROPIC_API_KEY: "${ANTHROPIC_API_KEY}" },
      },
    }),
  );
  if (o.result !== false) {
    writeTrial(root, {
      task,
      domain,
      id: basename(dir).split("__")[1],
      agent: "fiable-cc",
      reward: o.reward,
    });
  }
  const steps: Record<string, unknown>[] = [{ step_id: 1, source: "user", message: "# ⚕️ MD Review" }];
  steps.push({
    step_id: 2,
    source: "agent",
    message: "",
    tool_calls: [{ tool_call_id: "toolu_read", function_name: "Read", arguments: { file_path: "/x" } }],
    observation: { results: [{ source_call_id: "toolu_read", content: "text" }] },
  });
  o.calls.forEach((c, i) => {
    const name = `mcp__${server}__${c.tool.replace(".", "_")}`;
    const id = o.trajectory === "no-ids" ? undefined : ids[i];
    steps.push({
      step_id: steps.length + 1,
      source: "agent",
      message: "",
      tool_calls: [{
        ...(id ? { tool_call_id: id } : {}),
        function_name: name,
        arguments: { case_id: "C-1" },
      }],
      observation: {
        results: [{
          ...(id ? { source_call_id: id } : {}),
          content: c.refused
            ? "<tool_use_error>InputValidationError: case_id is required</tool_use_error>"
            : c.denied
            ? "fiable-guard blocked"
            : "{}",
          extra: { tool_result_is_error: !!(c.denied || c.refused) },
        }],
      },
    });
  });
  const trajectory = JSON.stringify(
    {
      schema_version: "ATIF-v1.7",
      session_id: session,
      agent: { name: "claude-code", version: "2.1.332", model_name: "claude-opus-5" },
      steps,
    },
    null,
    2,
  );
  if (o.trajectory !== "none") {
    writeFileSync(
      join(dir, "agent", "trajectory.json"),
      o.trajectory === "truncated" ? trajectory.slice(0, Math.floor(trajectory.length * 0.6)) : trajectory,
    );
  }
  const fiable = join(dir, "agent", "fiable");
  const hooks = o.hooks === undefined ? (stock ? null : "http") : o.hooks;
  if (hooks) {
    mkdirSync(fiable, { recursive: true });
    writeFileSync(
      join(fiable, "harness.json"),
      JSON.stringify({
        arm: o.harnessArm ?? o.arm,
        hooks,
        port: 8787,
        ...(o.chained ? { ledger_format: 2 } : {}),
      }) + "\n",
    );
    writeFileSync(join(fiable, "guard-serve.log"), "fiable-guard serving\n");
  }
  if (o.settingsHooks ?? !!hooks) {
    const handler = { type: "http", url: "http://127.0.0.1:8787/hook/pre", timeout: 10 };
    writeFileSync(
      join(dir, "agent", "sessions", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "^mcp__healthverse__", hooks: [handler] }] } }),
    );
  }
  if (o.ledger ?? !stock) {
    const t = (i: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, i)).toISOString();
    const rec = (i: number, fields: Record<string, unknown>) => ({
      v: 1,
      t: t(i),
      session,
      arm: o.harnessArm ?? o.arm,
      ...fields,
    });
    const plan = o.plan ?? PLANS.has(o.arm);
    const lines: (Record<string, unknown> | string)[] = [
      rec(0, { event: "session-start", decision: "record", note: "source=startup" }),
      rec(1, {
        event: "prompt",
        decision: plan ? "context" : "record",
        seat: "payer",
        reason: plan ? "plan" : "",
      }),
    ];
    const answered = o.answered ?? o.calls.length;
    o.calls.slice(0, answered).forEach((c, i) => {
      const id = ids[i];
      if (c.refused) return;
      lines.push(rec(2 + i, {
        event: "pre",
        decision: c.denied ? "deny" : "allow",
        tool: c.tool,
        tool_use_id: id,
        case: "C-1",
      }));
      if (!c.denied) {
        lines.push(rec(2 + i, { event: "post", decision: "record", tool: c.tool, tool_use_id: id }));
      }
    });
    lines.push(...(o.extra ?? []));
    mkdirSync(fiable, { recursive: true });
    let text = lines.map((l) => typeof l === "string" ? l : JSON.stringify(l)).join("\n") + "\n";
    if (o.chained) {
      const key = chainKey(trialKey(fiable));
      let p = GENESIS;
      text = "";
      for (const l of lines) {
        const line = typeof l === "string" ? l : recordLine(l as unknown as LedgerRecord, p, key).line;
        text += line + "\n";
        p = linkOf(line);
      }
    }
    writeFileSync(join(fiable, `${session}.jsonl`), text);
  }
  return dir;
}
