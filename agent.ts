/**
 * fiable-agent, the research arm: a small ReAct loop on the Messages API with the simulator's MCP tools, two
 * handbook tools and the guard engine built in. Writes an ATIF-v1.7 trajectory and the guard ledger.
 * `deno run -A agent.ts --instruction-file task.md --mcp-url http://localhost:8100/mcp [--arm checklist]`.
 * Prints one JSON summary line on stdout; exit 0 on a clean stop (end of turn or a limit), 3 on an API
 * failure after retries, 2 on bad usage, 1 when it cannot start.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import process from "node:process";
import { type AgentConfig, CLI, configOf } from "./lib/agent/config.ts";
import { runCli } from "./lib/cli.ts";
import { anthropicModel, type Model } from "./lib/agent/model.ts";
import { combine, connectMcp, type Toolbox } from "./lib/agent/mcp.ts";
import { type HandbookSearch, handbookTools, sharedSearch } from "./lib/agent/handbook_tools.ts";
import { CACHE_NAME, handbookLookup } from "./lib/guard/handbook.ts";
import { inlineGuard } from "./lib/agent/guard.ts";
import { type LoopResult, runLoop } from "./lib/agent/loop.ts";
import { newTrajectory, writeTrajectory } from "./lib/agent/trajectory.ts";
import { parseProfile, type Profile } from "./lib/guard/config/profile.ts";
import { resolveSettings } from "./lib/guard/config/guard_settings.ts";
import type { EngineConfig } from "./lib/guard/engine/decide.ts";
import { RULES } from "./rules/mod.ts";

/** The agent's version, recorded in the trajectory header. */
export const VERSION = "0.1.0";

/** The base system prompt; the guard's role plan is appended for the plan, checklist and critic arms. */
export const SYSTEM_PROMPT = [
  "You are a managed-care operations agent working in a healthcare simulator through tools.",
  "Work the task in the user's message to completion: find the target case, read its state and the governing",
  "policy, act with the tools, and finish every step the workflow requires before you end your turn.",
  "Tools named namespace_method are the simulator's; handbook_search and handbook_read open the operations",
  "handbook (read-only). Copy identifiers exactly from tool results. When a tool result says a call was",
  "blocked or failed, read the reason, fix the cause and continue; do not repeat the same call unchanged.",
  "When the work is done, end your turn with a short summary of what you did.",
].join("\n");

/**
 * Replaces the literal API key and Anthropic-key-shaped strings in text about to be written anywhere. Narrower
 * than redactText on purpose: paths and ids in a trajectory must survive intact.
 */
export function scrubber(secret: string): (text: string) => string {
  return (text) =>
    (secret.length >= 8 ? text.split(secret).join("[redacted]") : text)
      .replace(/sk-ant-[A-Za-z0-9_-]{16,}/g, "[redacted]");
}

/** The engine config: the arm from the agent config, bounds and rules from the profile. */
export function engineFrom(config: AgentConfig, profile: Profile): EngineConfig {
  const settings = resolveSettings(profile, { FIABLE_CC_ARM: config.arm });
  const ids = settings.rules ?? RULES.map((r) => r.meta.id);
  const rules = settings.rules || settings.disabled.length
    ? ids.filter((id) => !settings.disabled.includes(id))
    : undefined;
  return { arm: config.arm, bounds: settings.bounds, ...(rules ? { rules } : {}) };
}

/** Test seams: a model and toolboxes instead of the network, a search instead of the fallback index. */
export interface Seams {
  model?: Model;
  mcp?: Toolbox;
  search?: HandbookSearch;
  log?: (line: string) => void;
}

function readInstruction(config: AgentConfig): string {
  if (config.instructionFile) {
    return readFileSync(config.instructionFile === "-" ? 0 : config.instructionFile, "utf8");
  }
  if (config.instruction !== undefined) return config.instruction;
  throw new Error(
    "Cannot run: no task. Pass --instruction-file FILE (or - for stdin) or --instruction TEXT.",
  );
}

/** The guard profile the config names (`--profile`), parsed and checked; none is an empty profile. */
export async function readProfile(config: Pick<AgentConfig, "profile">): Promise<Profile> {
  return config.profile ? await parseProfile(readFileSync(config.profile, "utf8"), config.profile) : {};
}

/** Runs one task end to end with the given config; the loop's result plus where the trajectory went. */
export async function runAgent(
  config: AgentConfig,
  seams: Seams = {},
): Promise<LoopResult & { trajectory: string; session: string }> {
  const scrub = scrubber(config.apiKey);
  const log = seams.log ?? ((line: string) => process.stderr.write(scrub(line) + "\n"));
  const instruction = readInstruction(config);
  if (!instruction.trim()) throw new Error("Cannot run: the task instruction is empty. Pass the task text.");
  const profile = await readProfile(config);
  const session = config.session ?? randomUUID();
  if (!seams.mcp && !config.mcpUrl) {
    throw new Error(
      "Cannot run: no MCP server. Pass --mcp-url http://host:port/mcp (or set FIABLE_MCP_URL).",
    );
  }
  const mcp = seams.mcp ?? await connectMcp(config.mcpUrl!);
  const boxes = [mcp];
  const hasHandbook = existsSync(config.handbook);
  const cacheFile = join(config.ledgerDir, CACHE_NAME);
  if (hasHandbook) {
    mkdirSync(config.ledgerDir, { recursive: true });
    boxes.push(handbookTools(config.handbook, seams.search ?? sharedSearch(config.handbook, { cacheFile })));
  } else log(`fiable-agent: no handbook at ${config.handbook}; the handbook tools are off.`);
  const tools = combine(boxes);
  const trajectory = newTrajectory(session, {
    version: VERSION,
    model: config.model,
    extra: {
      arm: config.arm,
      limits: config.limits,
      price_usd_per_mtok: config.price,
      cost_source: config.priceKnown ? "list_price" : "fallback_price",
    },
  });
  const engine = engineFrom(config, profile);
  if (hasHandbook) engine.handbook = handbookLookup({ dir: config.handbook, cacheFile, budgetMs: 30_000 });
  const guard = inlineGuard({ session, config: engine, ledgerDir: config.ledgerDir, warn: log });
  const model = seams.model ?? anthropicModel({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    model: config.model,
    maxOutputTokens: config.maxOutputTokens,
    retries: config.retries,
    backoffMs: config.backoffMs,
    timeoutMs: 600_000,
  });
  try {
    const result = await runLoop(instruction, {
      model,
      modelName: config.model,
      tools,
      guard,
      trajectory,
      limits: config.limits,
      price: config.price,
      system: SYSTEM_PROMPT,
      onStep: (t) => {
        try {
          writeTrajectory(config.trajectory, t, scrub);
        } catch (err) {
          // The run goes on; the next step tries again (a trial without a trajectory cannot be scored).
          log(`fiable-agent: cannot write the trajectory ${config.trajectory}: ${(err as Error).message}`);
        }
      },
    });
    return { ...result, trajectory: config.trajectory, session };
  } finally {
    await tools.close().catch(() => {});
  }
}

/** Entry: parse flags and environment, run, print one JSON summary line. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => {
    if (p.flag("version")) {
      console.log(VERSION);
      return Promise.resolve(0);
    }
    return run(configOf(p, process.env));
  }, { err: (line) => void process.stderr.write(`${line}\n`) });
}

async function run(config: AgentConfig): Promise<number> {
  const scrub = scrubber(config.apiKey);
  try {
    const result = await runAgent(config);
    process.stdout.write(
      scrub(JSON.stringify({
        stop_reason: result.reason,
        detail: result.detail,
        turns: result.turns,
        tokens: result.tokens,
        cost_usd: Math.round(result.costUsd * 1e6) / 1e6,
        session: result.session,
        trajectory: result.trajectory,
      })) + "\n",
    );
    return result.reason === "api_error" ? 3 : 0;
  } catch (err) {
    process.stderr.write(scrub(`fiable-agent: ${(err as Error).message}`) + "\n");
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
