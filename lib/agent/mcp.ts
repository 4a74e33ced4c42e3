/**
 * The simulator's tools over MCP streamable HTTP. The model sees each tool under its flattened name
 * (`auth.submit_authorization` → `auth_submit_authorization`, what Claude Code shows without its
 * `mcp__healthverse__` prefix); the map back to the registered name is an exact lookup, never a split.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ToolSpec } from "./model.ts";

/** The text of a tool result and whether the tool reported failure. */
export interface ToolOutcome {
  text: string;
  isError: boolean;
  /** The raw content blocks, as Claude Code hands them to PostToolUse. */
  content: unknown[];
}

/** A set of tools the loop can offer and call. */
export interface Toolbox {
  specs: ToolSpec[];
  /** The registered name behind a name the model used, or undefined when the box has no such tool. */
  registered(shown: string): string | undefined;
  call(shown: string, input: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
}

/** The name the model sees for a registered MCP tool name: the first `.` becomes `_`. */
export function flatName(registered: string): string {
  return registered.replace(".", "_").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 128);
}

/** Joins an MCP result's content blocks into text. */
export function contentText(content: unknown[]): string {
  return content.map((b) =>
    b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string"
      ? (b as { text: string }).text
      : JSON.stringify(b)
  ).join("\n");
}

/** Connects to the MCP server at `url` and lists its tools. */
export async function connectMcp(url: string, options: { timeoutMs?: number } = {}): Promise<Toolbox> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(
      `Cannot connect to the MCP server "${url}": it is not a URL. Pass --mcp-url http://host:port/mcp.`,
    );
  }
  const client = new Client({ name: "fiable-agent", version: "0.1.0" });
  try {
    await client.connect(new StreamableHTTPClientTransport(parsed));
  } catch (err) {
    throw new Error(
      `Cannot connect to the MCP server ${parsed.origin}${parsed.pathname}: ${(err as Error).message}. ` +
        "Check that the simulator is up and the URL ends with its MCP path.",
    );
  }
  const tools: { name: string; description?: string; inputSchema: Record<string, unknown> }[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const byShown = new Map(tools.map((t) => [flatName(t.name), t.name]));
  return {
    specs: tools.map((t) => ({
      name: flatName(t.name),
      description: t.description ?? t.name,
      input_schema: t.inputSchema ?? { type: "object", properties: {} },
    })),
    registered: (shown) => byShown.get(shown),
    async call(shown, input) {
      const name = byShown.get(shown);
      if (!name) return { text: `Unknown tool ${shown}.`, isError: true, content: [] };
      try {
        const result = await client.callTool({ name, arguments: input }, undefined, {
          timeout: options.timeoutMs ?? 120_000,
        });
        const content = Array.isArray(result.content) ? result.content as unknown[] : [];
        return { text: contentText(content), isError: result.isError === true, content };
      } catch (err) {
        const text = `Tool ${shown} failed: ${(err as Error).message}`;
        return { text, isError: true, content: [{ type: "text", text }] };
      }
    },
    close: () => client.close(),
  };
}

/** Several toolboxes as one; the first box that knows a name answers it. */
export function combine(boxes: Toolbox[]): Toolbox {
  const owner = (shown: string) => boxes.find((b) => b.registered(shown) !== undefined);
  return {
    specs: boxes.flatMap((b) => b.specs),
    registered: (shown) => owner(shown)?.registered(shown),
    call: (shown, input) =>
      owner(shown)?.call(shown, input) ??
        Promise.resolve({
          text: `Unknown tool ${shown}. Use one of the listed tools.`,
          isError: true,
          content: [],
        }),
    close: async () => {
      for (const b of boxes) await b.close();
    },
  };
}
