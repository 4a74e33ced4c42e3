/** The agent's settings from command-line flags and the environment (flags win). Pure: no I/O. */
import { type Arm, ARMS } from "../guard/engine/record.ts";
import { DEFAULT_LIMITS, type Limits } from "./loop.ts";
import { parsePrice, type Price, priceOf } from "./cost.ts";
import { CliError, type CommandSpec, helpText, parse, type Parsed } from "../cli.ts";

/** Everything one agent run is configured with. The API key is held here and nowhere else. */
export interface AgentConfig {
  instruction?: string;
  instructionFile?: string;
  mcpUrl?: string;
  arm: Arm;
  model: string;
  apiKey: string;
  baseURL?: string;
  trajectory: string;
  ledgerDir: string;
  handbook: string;
  session?: string;
  profile?: string;
  limits: Limits;
  maxOutputTokens: number;
  retries: number;
  backoffMs: number;
  price: Price;
  priceKnown: boolean;
}

const CONTAINER_HANDBOOK = "/workspace/skills/managed-care-operations-handbook";
const number = (description: string, defaultNote?: string) => ({
  type: "string" as const,
  value: "N",
  description,
  ...(defaultNote ? { defaultNote } : {}),
});

/** The command line: every flag takes a value; the environment fills what a flag leaves out. */
export const CLI: CommandSpec = {
  name: "agent",
  summary: "fiable-agent, the research arm: a small guarded agent loop on the Messages API with the " +
    "simulator's MCP tools; writes an ATIF trajectory and the guard ledger.",
  usage: ["deno run -A agent.ts --instruction-file F --mcp-url U --arm A [options]"],
  options: {
    "instruction-file": { type: "string", value: "FILE", description: "the task text (- for stdin)" },
    instruction: { type: "string", value: "TEXT", description: "the task text itself" },
    "mcp-url": {
      type: "string",
      value: "URL",
      defaultNote: "env FIABLE_MCP_URL",
      description: "the MCP server",
    },
    arm: {
      type: "string",
      value: "ARM",
      defaultNote: "env FIABLE_AGENT_ARM, FIABLE_CC_ARM, else checklist",
      description: ARMS.join("|"),
    },
    model: {
      type: "string",
      value: "NAME",
      defaultNote: "env ANTHROPIC_MODEL, else claude-sonnet-5",
      description: "the model",
    },
    trajectory: {
      type: "string",
      value: "FILE",
      defaultNote: "env FIABLE_TRAJECTORY, else /logs/agent/trajectory.json",
      description: "where the ATIF trajectory goes",
    },
    ledger: {
      type: "string",
      value: "DIR",
      defaultNote: "env FIABLE_LEDGER_DIR, else /logs/agent/fiable",
      description: "the guard ledger dir",
    },
    handbook: {
      type: "string",
      value: "DIR",
      defaultNote: `env FIABLE_HANDBOOK_DIR, else ${CONTAINER_HANDBOOK}`,
      description: "the handbook folder",
    },
    session: { type: "string", value: "ID", defaultNote: "a new UUID", description: "the session id" },
    profile: {
      type: "string",
      value: "FILE",
      defaultNote: "env FIABLE_PROFILE",
      description: "a guard profile",
    },
    "max-turns": number("turn limit", `env FIABLE_MAX_TURNS, else ${DEFAULT_LIMITS.maxTurns}`),
    "max-tokens": number("token limit", `env FIABLE_MAX_TOKENS, else ${DEFAULT_LIMITS.maxTokens}`),
    "max-cost": {
      type: "string",
      value: "USD",
      defaultNote: `env FIABLE_MAX_COST_USD, else ${DEFAULT_LIMITS.maxCostUsd}`,
      description: "cost limit",
    },
    "max-output-tokens": number("output tokens per model call", "16000"),
    retries: number("API retries", "4"),
    "backoff-ms": { type: "string", value: "MS", defaultNote: "2000", description: "first retry's backoff" },
    prices: {
      type: "string",
      value: "IN,OUT,CACHE",
      defaultNote: "the model's list price",
      description: "USD per million tokens",
    },
    version: { type: "boolean", description: "print the version and exit" },
  },
  args: "none",
  notes: [
    "Credentials: ANTHROPIC_API_KEY and optionally ANTHROPIC_BASE_URL, from the environment only.",
    "Exit codes: 0 a clean stop (end of turn or a limit), 1 cannot start, 2 bad usage, 3 API failure.",
  ],
  example:
    "deno run -A agent.ts --instruction-file task.md --mcp-url http://localhost:8100/mcp --arm checklist",
};

/** Usage text. */
export const USAGE = helpText(CLI);

function positive(flag: string, text: string | undefined, fallback: number, integer: boolean): number {
  if (text === undefined || text === "") return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new CliError(
      `Cannot use ${flag} "${text}": it must be a non-negative ${integer ? "integer" : "number"}. ` +
        `Use e.g. ${flag} ${fallback}.`,
    );
  }
  return n;
}

/** Parses flags and environment; throws a CliError naming the bad flag and the fix. */
export function parseConfig(args: string[], env: Record<string, string | undefined>): AgentConfig {
  return configOf(parse(CLI, args), env);
}

/** The config from parsed flags and the environment. */
export function configOf(p: Parsed, env: Record<string, string | undefined>): AgentConfig {
  const values = new Map<string, string>();
  for (const name of Object.keys(CLI.options)) {
    const v = p.string(name);
    if (v !== undefined) values.set(`--${name}`, v);
  }
  const armWord = values.get("--arm") ?? env.FIABLE_AGENT_ARM ?? env.FIABLE_CC_ARM ?? "checklist";
  if (!(ARMS as readonly string[]).includes(armWord)) {
    throw new CliError(`Cannot run agent: --arm "${armWord}" is unknown. Use one of ${ARMS.join(", ")}.`);
  }
  const apiKey = env.ANTHROPIC_API_KEY ?? "";
  if (!apiKey) {
    throw new CliError(
      "Cannot run agent: ANTHROPIC_API_KEY is not set. Export it in the environment (never pass it as a flag).",
    );
  }
  const model = values.get("--model") ?? env.ANTHROPIC_MODEL ?? "claude-sonnet-5";
  const known = priceOf(model);
  let price = known.price;
  try {
    if (values.has("--prices")) price = parsePrice(values.get("--prices")!);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  return {
    instruction: values.get("--instruction"),
    instructionFile: values.get("--instruction-file"),
    mcpUrl: values.get("--mcp-url") ?? env.FIABLE_MCP_URL,
    arm: armWord as Arm,
    model,
    apiKey,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    trajectory: values.get("--trajectory") ?? env.FIABLE_TRAJECTORY ?? "/logs/agent/trajectory.json",
    ledgerDir: values.get("--ledger") ?? env.FIABLE_LEDGER_DIR ?? "/logs/agent/fiable",
    handbook: values.get("--handbook") ?? env.FIABLE_HANDBOOK_DIR ??
      CONTAINER_HANDBOOK,
    session: values.get("--session"),
    profile: values.get("--profile") ?? env.FIABLE_PROFILE,
    limits: {
      maxTurns: positive(
        "--max-turns",
        values.get("--max-turns") ?? env.FIABLE_MAX_TURNS,
        DEFAULT_LIMITS.maxTurns,
        true,
      ),
      maxTokens: positive(
        "--max-tokens",
        values.get("--max-tokens") ?? env.FIABLE_MAX_TOKENS,
        DEFAULT_LIMITS.maxTokens,
        true,
      ),
      maxCostUsd: positive(
        "--max-cost",
        values.get("--max-cost") ?? env.FIABLE_MAX_COST_USD,
        DEFAULT_LIMITS.maxCostUsd,
        false,
      ),
    },
    maxOutputTokens: positive("--max-output-tokens", values.get("--max-output-tokens"), 16_000, true),
    retries: positive("--retries", values.get("--retries"), 4, true),
    backoffMs: positive("--backoff-ms", values.get("--backoff-ms"), 2_000, true),
    price,
    priceKnown: known.known || values.has("--prices"),
  };
}
