/**
 * The ReAct loop: ask the model, run its tool calls through the guard, feed results back, and let the
 * closure gate decide whether it may finish. Stops cleanly on a limit or an API failure, saying why.
 */
import { costOf, type Price } from "./cost.ts";
import type { InlineGuard } from "./guard.ts";
import type { Toolbox } from "./mcp.ts";
import { type Block, type Message, type Model, ModelError } from "./model.ts";
import { addStep, type AtifResult, type AtifToolCall, type Trajectory } from "./trajectory.ts";

/** Per-trial limits; each stops the loop cleanly when reached. */
export interface Limits {
  /** Model calls. */
  maxTurns: number;
  /** Prompt + completion tokens over the whole trial. */
  maxTokens: number;
  /** USD spent over the whole trial. */
  maxCostUsd: number;
}

/** The defaults: 200 turns, 20 M tokens, 25 USD. */
export const DEFAULT_LIMITS: Limits = { maxTurns: 200, maxTokens: 20_000_000, maxCostUsd: 25 };

/** Most characters of one tool result the model is shown (the trajectory keeps the whole text). */
export const RESULT_CAP = 60_000;

/** A tool result as the model sees it: whole when it fits the cap, else its head and a note. */
export function shownResult(text: string, cap = RESULT_CAP): string {
  return text.length <= cap
    ? text
    : `${text.slice(0, cap)}\n[… ${text.length - cap} more characters not shown]`;
}

/** Why the loop stopped. */
export type StopReason = "end_turn" | "max_turns" | "max_tokens" | "max_cost" | "api_error";

/** What the loop needs. */
export interface LoopDeps {
  model: Model;
  modelName: string;
  tools: Toolbox;
  guard: InlineGuard;
  trajectory: Trajectory;
  limits: Limits;
  price: Price;
  /** The base system prompt; the role plan is appended. */
  system: string;
  /** Called after every step (the entry writes the trajectory file here). */
  onStep?: (t: Trajectory) => void;
  now?: () => string;
}

/** The loop's result. */
export interface LoopResult {
  reason: StopReason;
  detail: string;
  turns: number;
  costUsd: number;
  tokens: number;
}

/** The function name a trajectory records for a tool: Claude Code's spelling for MCP tools, so counters match. */
export function trajectoryName(shown: string, registered: string | undefined): string {
  return registered && registered.includes(".") ? `mcp__healthverse__${shown}` : shown;
}

function limitHit(l: Limits, turns: number, tokens: number, cost: number): [StopReason, string] | null {
  if (turns >= l.maxTurns) return ["max_turns", `max turns reached (${turns} of ${l.maxTurns})`];
  if (tokens >= l.maxTokens) return ["max_tokens", `max tokens reached (${tokens} of ${l.maxTokens})`];
  if (cost >= l.maxCostUsd) {
    return ["max_cost", `cost ceiling reached (${cost.toFixed(4)} of ${l.maxCostUsd} USD)`];
  }
  return null;
}

/** Runs one task to its end and returns why it ended; never throws for model or tool failures. */
export async function runLoop(instruction: string, deps: LoopDeps): Promise<LoopResult> {
  const now = deps.now ?? (() => new Date().toISOString());
  const t = deps.trajectory;
  const plan = deps.guard.prompt(instruction);
  const system = plan ? `${deps.system}\n\n${plan}` : deps.system;
  addStep(t, { timestamp: now(), source: "system", message: system });
  addStep(t, { timestamp: now(), source: "user", message: instruction });
  deps.onStep?.(t);
  const messages: Message[] = [{ role: "user", content: instruction }];
  let turns = 0;
  let tokens = 0;
  let cost = 0;
  const finish = (reason: StopReason, detail: string): LoopResult => {
    if (reason !== "end_turn") {
      deps.guard.halt(`fiable-agent stopped: ${detail}`);
      addStep(t, { timestamp: now(), source: "system", message: `fiable-agent stopped: ${detail}` });
    }
    Object.assign(t.final_metrics.extra, { stop_reason: reason, stop_detail: detail, turns });
    deps.onStep?.(t);
    return { reason, detail, turns, costUsd: cost, tokens };
  };
  for (;;) {
    const hit = limitHit(deps.limits, turns, tokens, cost);
    if (hit) return finish(hit[0], hit[1]);
    let reply;
    try {
      reply = await deps.model({ system, messages, tools: deps.tools.specs });
    } catch (err) {
      const status = err instanceof ModelError && err.status ? ` (HTTP ${err.status})` : "";
      return finish("api_error", `API error${status}: ${(err as Error).message}`);
    }
    turns++;
    const u = reply.usage;
    const read = u.cache_read_input_tokens ?? 0;
    const write = u.cache_creation_input_tokens ?? 0;
    const prompt = u.input_tokens + read + write;
    const stepCost = costOf(u, deps.price);
    tokens += prompt + u.output_tokens;
    cost += stepCost;
    messages.push({
      role: "assistant",
      content: reply.content.length ? reply.content : [{ type: "text", text: "…" }],
    });
    const uses = reply.content.filter((b): b is Extract<Block, { type: "tool_use" }> =>
      b.type === "tool_use"
    );
    const calls: AtifToolCall[] = [];
    const results: AtifResult[] = [];
    const toolResults: Block[] = [];
    for (const use of uses) {
      const input = use.input && typeof use.input === "object" ? use.input : {};
      const registered = deps.tools.registered(use.name);
      const guardName = registered ?? use.name;
      calls.push({
        tool_call_id: use.id,
        function_name: trajectoryName(use.name, registered),
        arguments: input,
        extra: { tool_use_name: use.name, raw_arguments: JSON.stringify(input) },
      });
      const verdict = deps.guard.pre(guardName, input, use.id);
      let text: string;
      let isError: boolean;
      if (!verdict.allow) {
        text = verdict.reason;
        isError = true;
      } else {
        const out = await deps.tools.call(use.name, input);
        text = out.text;
        isError = out.isError;
        if (isError) deps.guard.postFail(guardName, input, use.id, out.text);
        else deps.guard.post(guardName, input, use.id, out.content.length ? out.content : out.text);
      }
      toolResults.push({
        type: "tool_result",
        tool_use_id: use.id,
        content: shownResult(text),
        ...(isError ? { is_error: true } : {}),
      });
      results.push({
        source_call_id: use.id,
        content: text,
        extra: { tool_result_is_error: isError, ...(verdict.allow ? {} : { fiable_blocked: true }) },
      });
    }
    const text = reply.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text).join(
      "\n",
    );
    const thinking = reply.content.filter((b) => b.type === "thinking")
      .map((b) => (b as { thinking: string }).thinking).join("\n");
    addStep(t, {
      timestamp: now(),
      source: "agent",
      model_name: reply.model || deps.modelName,
      message: text,
      ...(thinking ? { reasoning_content: thinking } : {}),
      ...(calls.length ? { tool_calls: calls, observation: { results } } : {}),
      metrics: {
        prompt_tokens: prompt,
        completion_tokens: u.output_tokens,
        cached_tokens: read,
        cost_usd: Math.round(stepCost * 1e9) / 1e9,
        extra: {
          input_tokens: u.input_tokens,
          cache_read_input_tokens: read,
          cache_creation_input_tokens: write,
        },
      },
      llm_call_count: 1,
      extra: {
        stop_reason: reply.stop_reason,
        ...(reply.attempts > 1 ? { api_attempts: reply.attempts } : {}),
      },
    });
    deps.onStep?.(t);
    if (toolResults.length) {
      messages.push({ role: "user", content: toolResults });
      continue;
    }
    const gate = deps.guard.stop();
    if (!gate.block) return finish("end_turn", "the model ended its turn");
    messages.push({ role: "user", content: gate.reason });
    addStep(t, { timestamp: now(), source: "user", message: gate.reason, extra: { fiable_stop_gate: true } });
    deps.onStep?.(t);
  }
}
