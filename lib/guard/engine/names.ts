/** Tool-name normalisation: every harness spelling of a healthverse tool → its registered `namespace.method`. */
import { type ToolInfo, TOOLS } from "../../../rules/catalog/tools.ts";

const BY_FLAT = new Map<string, ToolInfo>();
const BY_NAME = new Map<string, ToolInfo>();
for (const tool of TOOLS) {
  BY_NAME.set(tool.name, tool);
  BY_FLAT.set(tool.name.replace(".", "_"), tool);
  BY_FLAT.set(tool.name.replace(".", "__"), tool);
}

/** hermes' `mcp_<server>_` for the server names seen. */
const HERMES = /^mcp_(?:healthverse|chi_bench)_/;
/** Claude Code's `mcp__<server>__<tool>`: a server spelled with one character at least, then a tool. */
const CLAUDE_CODE = /^mcp__[^]+__[^]/;

/** True for a Claude Code MCP tool name of any server (`mcp__<server>__<tool>`). */
export function isMcpToolName(raw: string): boolean {
  return CLAUDE_CODE.test(raw.trim());
}

function catalogName(name: string): string | null {
  return (BY_NAME.get(name) ?? BY_FLAT.get(name))?.name ?? null;
}

/**
 * The registered `namespace.method` for a tool name in any harness spelling, or null when it is not a
 * healthverse tool (Bash, Read, ToolSearch, …). Looks names up; never splits on `_`, because namespaces
 * contain underscores (`payer_letter_center`, `p2p_session`). Claude Code spells a server name with each
 * character outside `[A-Za-z0-9_-]` as `_` (`chi bench!` → `chi_bench_`), so a server's spelling may itself
 * hold `__` or end in `_` (`mcp__a__b__…`, `mcp__healthverse___…`): the tool is what follows the first `__`
 * after which a catalog tool stands. The hook matcher lets only the trial's declared servers reach the guard.
 */
export function normalizeToolName(raw: string): string | null {
  const name = raw.trim();
  if (name.startsWith("mcp__")) {
    for (let at = name.indexOf("__", 6); at >= 0; at = name.indexOf("__", at + 1)) {
      const found = catalogName(name.slice(at + 2));
      if (found) return found;
    }
    return null;
  }
  return catalogName(name.replace(HERMES, ""));
}

/** The catalog entry for a registered or sanitised tool name, or undefined. */
export function toolInfo(name: string): ToolInfo | undefined {
  const normalized = normalizeToolName(name);
  return normalized ? BY_NAME.get(normalized) : undefined;
}

/** The name the model sees in Claude Code without its server prefix: `auth.submit_authorization` → `auth_submit_authorization`. */
export function shownName(name: string): string {
  return (normalizeToolName(name) ?? name).replace(".", "_");
}

/** True for tools that change state: `mutate` and `terminal`. */
export function isMutating(name: string): boolean {
  const effect = toolInfo(name)?.effect;
  return effect === "mutate" || effect === "terminal";
}

/** True for tools that close a lifecycle, always or for the given arguments (`terminal_when`). */
export function isTerminal(name: string, input: Record<string, unknown> = {}): boolean {
  const tool = toolInfo(name);
  if (!tool) return false;
  if (tool.effect === "terminal") return true;
  if (!tool.terminalWhen) return false;
  if (tool.name === "triage.route_case") return true;
  return input.decision === "request_info" || input.recommendation === "request_info";
}
