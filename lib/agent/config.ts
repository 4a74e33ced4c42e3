/** The agent's settings from command-line flags and the environment (flags win). Pure: no I/O. */
import { type Arm, ARMS } from "../guard/ledger.ts";
import { DEFAULT_LIMITS, type Limits } from "./loop.ts";
import { parsePrice, type Price, priceOf } from "./cost.ts";

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

/** Flags with a value; the help text lists them. */
const FLAGS = [
  "--instruction",
  "--instruction-file",
  "--mcp-url",
  "--arm",
  "--model",
  "--trajectory",
  "--ledger",
  "--handbook",
  "--session",
  "--profile",
  "--max-turns",
  "--max-tokens",
  "--max-cost",
  "--max-output-tokens",
  "--retries",
  "--backoff-ms",
  "--prices",
] as const;

/** Usage text. */
export const USAGE = `Usage: agent.ts --instruction-file FILE|--instruction TEXT --mcp-url URL [options]
  --arm stock|shadow|plan|checklist|critic   (env FIABLE_AGENT_ARM, FIABLE_CC_ARM; default checklist)
  --model NAME             (env ANTHROPIC_MODEL; default claude-sonnet-5)
  --trajectory FILE        (default /logs/agent/trajectory.json)
  --ledger DIR             (env FIABLE_LEDGER_DIR; default /logs/agent/fiable)
  --handbook DIR           (env FIABLE_HANDBOOK_DIR; default /workspace/skills/managed-care-operations-handbook)
  --max-turns N  --max-tokens N  --max-cost USD  --max-output-tokens N  --retries N  --backoff-ms MS
  --prices IN,OUT,CACHE    USD per million tokens (default: the model's list price)
  Credentials: ANTHROPIC_API_KEY and optionally ANTHROPIC_BASE_URL, from the environment only.`;

function positive(flag: string, text: string | undefined, fallback: number, integer: boolean): number {
  if (text === undefined || text === "") return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new Error(
      `Cannot use ${flag} "${text}": it must be a non-negative ${integer ? "integer" : "number"}. ` +
        `Use e.g. ${flag} ${fallback}.`,
    );
  }
  return n;
}

/** Parses flags and environment; throws an Error naming the bad flag and the fix. */
export function parseConfig(args: string[], env: Record<string, string | undefined>): AgentConfig {
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (!(FLAGS as readonly string[]).includes(flag)) {
      throw new Error(`Cannot parse "${flag}": it is not a known flag. Use one of ${FLAGS.join(", ")}.`);
    }
    if (i + 1 >= args.length) throw new Error(`Cannot parse ${flag}: it needs a value.`);
    values.set(flag, args[++i]);
  }
  const armWord = values.get("--arm") ?? env.FIABLE_AGENT_ARM ?? env.FIABLE_CC_ARM ?? "checklist";
  if (!(ARMS as readonly string[]).includes(armWord)) {
    throw new Error(`Cannot run: --arm "${armWord}" is unknown. Use one of ${ARMS.join(", ")}.`);
  }
  const apiKey = env.ANTHROPIC_API_KEY ?? "";
  if (!apiKey) {
    throw new Error(
      "Cannot run: ANTHROPIC_API_KEY is not set. Export it in the environment (never pass it as a flag).",
    );
  }
  const model = values.get("--model") ?? env.ANTHROPIC_MODEL ?? "claude-sonnet-5";
  const known = priceOf(model);
  const price = values.has("--prices") ? parsePrice(values.get("--prices")!) : known.price;
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
      "/workspace/skills/managed-care-operations-handbook",
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
