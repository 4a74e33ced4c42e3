/**
 * A scripted Anthropic Messages API for end-to-end tests: plays a script of assistant turns to Claude Code's
 * main loop (streamed as SSE, exactly as the real API streams) and records every request it receives, so a
 * test can assert on what the model was shown. Side requests (title generation, quota checks, token counts)
 * get short canned answers and do not consume the script.
 */
import { Hono } from "hono";

/** One tool call the scripted model makes. */
export interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
  /** The tool_use id; generated when absent. */
  id?: string;
}

/**
 * One assistant turn: optional text, then zero or more tool calls (all in one message, i.e. parallel); or an
 * API error the Messages API answers instead (`apiError`: an HTTP status Claude Code does not retry, such as
 * 400, and the error type), which ends Claude Code's turn with a StopFailure.
 */
export interface ScriptedTurn {
  text?: string;
  calls?: ScriptedCall[];
  apiError?: { status: 400 | 401 | 403 | 404 | 413; type: string; message: string };
}

/**
 * A turn, or a function of the request that chooses the turn (to react to what the model was shown); it may
 * be async (to act on the world before answering, e.g. kill the guard).
 */
export type ScriptStep =
  | ScriptedTurn
  | ((request: MessagesRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);

/** The parts of a Messages API request body the tests read. */
export interface MessagesRequest {
  model?: string;
  system?: unknown;
  messages: { role: string; content: unknown }[];
  tools?: { name: string }[];
  stream?: boolean;
  max_tokens?: number;
  [key: string]: unknown;
}

/** A request the server received: its path, body, whether it was a main-loop turn and the turn it got. */
export interface RecordedRequest {
  path: string;
  body: MessagesRequest;
  main: boolean;
  reply?: ScriptedTurn;
  /** Set when a script step threw; the model then ended its turn with this text. */
  error?: string;
}

/** A running model server. */
export interface ModelServer {
  url: string;
  requests: RecordedRequest[];
  /** The main-loop requests, in order. */
  main(): RecordedRequest[];
  /** How many script steps are still unplayed. */
  remaining(): number;
  close(): Promise<void>;
}

/** The answer once the script is spent: end the turn. */
export const DONE: ScriptedTurn = { text: "Done." };

/**
 * True for a main-loop request: it offers tools to the model. Side requests (titles, quota, summaries) offer none.
 */
export function isMainLoop(body: MessagesRequest): boolean {
  return Array.isArray(body.tools) && body.tools.length > 0;
}

/** Every text of a request flattened to one string (system, messages, tool results), for `includes` checks. */
export function requestText(body: MessagesRequest): string {
  return JSON.stringify([body.system ?? "", body.messages]);
}

/** The tool_result blocks of a request's last user message. */
export function lastToolResults(
  body: MessagesRequest,
): { tool_use_id: string; is_error?: boolean; text: string }[] {
  const last = body.messages.at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as Record<string, unknown>[])
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      tool_use_id: String(b.tool_use_id),
      is_error: b.is_error as boolean | undefined,
      text: typeof b.content === "string" ? b.content : JSON.stringify(b.content ?? ""),
    }));
}

let counter = 0;
function newId(prefix: string): string {
  counter++;
  return `${prefix}_e2e${Date.now().toString(36)}${counter.toString().padStart(4, "0")}`;
}

function contentOf(turn: ScriptedTurn): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (turn.text) blocks.push({ type: "text", text: turn.text });
  for (const call of turn.calls ?? []) {
    blocks.push({ type: "tool_use", id: call.id ?? newId("toolu"), name: call.name, input: call.input });
  }
  if (!blocks.length) blocks.push({ type: "text", text: "Done." });
  return blocks;
}

const USAGE = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/** The full (non-streamed) message for a turn. */
export function messageOf(turn: ScriptedTurn, model: string): Record<string, unknown> {
  const content = contentOf(turn);
  return {
    id: newId("msg"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: USAGE,
  };
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The SSE event stream the Messages API sends for a message: start, block start/delta/stop, delta, stop. */
export function sseOf(message: Record<string, unknown>): string {
  const content = message.content as Record<string, unknown>[];
  let out = sse("message_start", {
    type: "message_start",
    message: { ...message, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } },
  });
  out += sse("ping", { type: "ping" });
  content.forEach((block, index) => {
    if (block.type === "text") {
      out += sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      out += sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      });
    } else {
      out += sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      out += sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    out += sse("content_block_stop", { type: "content_block_stop", index });
  });
  out += sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: USAGE.output_tokens },
  });
  out += sse("message_stop", { type: "message_stop" });
  return out;
}

/** Starts the scripted model on 127.0.0.1 (a free port); every main-loop request plays the next step. */
export function startModelServer(script: ScriptStep[]): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  let mainCount = 0;
  const app = new Hono();
  app.post("/v1/messages/count_tokens", (c) => c.json({ input_tokens: 100 }));
  app.post("/v1/messages", async (c) => {
    const body = await c.req.json() as MessagesRequest;
    const main = isMainLoop(body);
    const recorded: RecordedRequest = { path: c.req.path, body, main };
    requests.push(recorded);
    let turn: ScriptedTurn;
    if (main) {
      const step = next < script.length ? script[next++] : DONE;
      try {
        turn = typeof step === "function" ? await step(body, mainCount) : step;
      } catch (err) {
        // Never answer 5xx: Claude Code would retry with backoff until the test times out.
        recorded.error = `script step ${mainCount} threw: ${(err as Error).message}`;
        turn = { text: recorded.error };
      }
      mainCount++;
    } else {
      turn = { text: "Scripted side answer" };
    }
    recorded.reply = turn;
    if (turn.apiError) {
      const { status, type, message } = turn.apiError;
      return c.json({ type: "error", error: { type, message } }, status);
    }
    const message = messageOf(turn, body.model ?? "claude-scripted");
    if (!body.stream) return c.json(message);
    return new Response(sseOf(message), {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "request-id": newId("req"),
      },
    });
  });
  app.all("*", (c) => {
    requests.push({ path: c.req.path, body: { messages: [] }, main: false });
    return c.json(
      { type: "error", error: { type: "not_found_error", message: `No route ${c.req.path}` } },
      404,
    );
  });
  return new Promise((resolve) => {
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
    resolve({
      url: `http://127.0.0.1:${server.addr.port}`,
      requests,
      main: () => requests.filter((r) => r.main),
      remaining: () => script.length - next,
      close: () => server.shutdown(),
    });
  });
}
