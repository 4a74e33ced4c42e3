/**
 * The ATIF-v1.7 trajectory of one agent run, shaped like Harbor's Claude Code trajectories (one agent step
 * per model turn, its tool calls and their results in the same step, per-step metrics, final metrics).
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** One tool call of a step. */
export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

/** One tool result of a step. */
export interface AtifResult {
  source_call_id: string;
  content: string;
  extra?: Record<string, unknown>;
}

/** Token and cost figures of one model call. */
export interface AtifMetrics {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost_usd: number;
  extra?: Record<string, unknown>;
}

/** One trajectory step. */
export interface AtifStep {
  step_id: number;
  timestamp: string;
  source: "user" | "agent" | "system";
  message: string;
  model_name?: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifResult[] };
  metrics?: AtifMetrics;
  llm_call_count?: number;
  extra?: Record<string, unknown>;
}

/** A whole ATIF-v1.7 trajectory. */
export interface Trajectory {
  schema_version: "ATIF-v1.7";
  session_id: string;
  agent: { name: string; version: string; model_name: string; extra: Record<string, unknown> };
  steps: AtifStep[];
  final_metrics: {
    total_prompt_tokens: number;
    total_completion_tokens: number;
    total_cached_tokens: number;
    total_cost_usd: number;
    total_steps: number;
    extra: Record<string, unknown>;
  };
}

/** A new, empty trajectory. */
export function newTrajectory(
  session: string,
  agent: { version: string; model: string; extra?: Record<string, unknown> },
): Trajectory {
  return {
    schema_version: "ATIF-v1.7",
    session_id: session,
    agent: {
      name: "fiable-agent",
      version: agent.version,
      model_name: agent.model,
      extra: agent.extra ?? {},
    },
    steps: [],
    final_metrics: {
      total_prompt_tokens: 0,
      total_completion_tokens: 0,
      total_cached_tokens: 0,
      total_cost_usd: 0,
      total_steps: 0,
      extra: {},
    },
  };
}

/** Appends a step (numbered from 1) and updates the final metrics; returns the step. */
export function addStep(t: Trajectory, step: Omit<AtifStep, "step_id">): AtifStep {
  const full = { step_id: t.steps.length + 1, ...step };
  t.steps.push(full);
  const f = t.final_metrics;
  f.total_steps = t.steps.length;
  if (step.metrics) {
    f.total_prompt_tokens += step.metrics.prompt_tokens;
    f.total_completion_tokens += step.metrics.completion_tokens;
    f.total_cached_tokens += step.metrics.cached_tokens;
    f.total_cost_usd = Math.round((f.total_cost_usd + step.metrics.cost_usd) * 1e9) / 1e9;
  }
  return full;
}

/** Writes the trajectory as pretty JSON (through `scrub`) via a temp file and a rename: never half a file. */
export function writeTrajectory(
  path: string,
  t: Trajectory,
  scrub: (text: string) => string = (s) => s,
): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, scrub(JSON.stringify(t, null, 2)) + "\n");
  renameSync(tmp, path);
}
