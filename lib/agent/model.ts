/** The Messages API client: one streamed request per turn, retried with backoff on 429 and 5xx only. */
import Anthropic from "@anthropic-ai/sdk";
import type { Usage } from "./cost.ts";

/** A content block of a model message (the subset the loop uses). */
export type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }
  | { type: string; [key: string]: unknown };

/** One conversation message. */
export interface Message {
  role: "user" | "assistant";
  content: string | Block[];
}

/** A tool as the model is told about it. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** One request: everything but the model name and the output cap. */
export interface Request {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
}

/** One model answer. */
export interface Reply {
  content: Block[];
  stop_reason: string | null;
  usage: Usage;
  model: string;
  /** Attempts made, including the successful one. */
  attempts: number;
}

/** Anything that answers a request: the real API or a test double. */
export type Model = (request: Request) => Promise<Reply>;

/** How the client connects and retries. Credentials come from the caller's environment only. */
export interface ModelOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  maxOutputTokens: number;
  /** Retries after the first attempt (429/5xx only). */
  retries: number;
  /** First backoff in ms; doubles each retry, capped at 30 s, or the server's `retry-after` when given. */
  backoffMs: number;
  /** Request timeout in ms. */
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/** A failed model call after its retries: the status (when any) and how many attempts were made. */
export class ModelError extends Error {
  constructor(message: string, readonly status: number | undefined, readonly attempts: number) {
    super(message);
  }
}

/** True for errors worth retrying: 429, 5xx and the API's in-stream overload and rate-limit errors. */
export function isRetryable(err: unknown): boolean {
  const status = (err as { status?: unknown })?.status;
  if (typeof status === "number") return status === 429 || status >= 500;
  const text = String((err as Error)?.message ?? "");
  return /overloaded_error|rate_limit_error|api_error/.test(text);
}

/** The wait before retry `n` (0-based): the `retry-after` header when present (≤ 60 s), else exponential. */
export function backoff(err: unknown, n: number, baseMs: number): number {
  const headers = (err as { headers?: { get?: (k: string) => string | null } })?.headers;
  const after = Number(headers?.get?.("retry-after") ?? NaN);
  if (Number.isFinite(after) && after >= 0) return Math.min(after * 1000, 60_000);
  return Math.min(baseMs * 2 ** n, 30_000);
}

/** Runs `attempt` with retries on retryable errors; other errors and the last failure surface as ModelError. */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  options: { retries: number; backoffMs: number; sleep?: (ms: number) => Promise<void> },
): Promise<{ value: T; attempts: number }> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let n = 0;; n++) {
    try {
      return { value: await attempt(), attempts: n + 1 };
    } catch (err) {
      const status = (err as { status?: unknown })?.status;
      const code = typeof status === "number" ? status : undefined;
      if (!isRetryable(err) || n >= options.retries) {
        const why = String((err as Error)?.message ?? err).slice(0, 500);
        throw new ModelError(
          `Cannot get a model reply after ${n + 1} attempt${n ? "s" : ""}: ${why}`,
          code,
          n + 1,
        );
      }
      await sleep(backoff(err, n, options.backoffMs));
    }
  }
}

/** A Model backed by the Messages API (streamed, so long replies do not hit HTTP idle timeouts). */
export function anthropicModel(options: ModelOptions): Model {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? "https://api.anthropic.com",
    maxRetries: 0,
    timeout: options.timeoutMs,
  });
  return async (request) => {
    const { value, attempts } = await withRetries(async () => {
      const stream = client.messages.stream({
        model: options.model.replace(/^anthropic\//, ""),
        max_tokens: options.maxOutputTokens,
        system: [{ type: "text", text: request.system, cache_control: { type: "ephemeral" } }],
        // deno-lint-ignore no-explicit-any
        messages: withCacheBreakpoint(request.messages) as any,
        // deno-lint-ignore no-explicit-any
        tools: request.tools as any,
      });
      return await stream.finalMessage();
    }, options);
    return {
      content: value.content as Block[],
      stop_reason: value.stop_reason ?? null,
      usage: value.usage as Usage,
      model: value.model,
      attempts,
    };
  };
}

/** The messages with a cache breakpoint on the last block, so each turn re-reads the prefix from cache. */
export function withCacheBreakpoint(messages: Message[]): Message[] {
  const last = messages.at(-1);
  if (!last) return messages;
  const blocks: Block[] = typeof last.content === "string"
    ? [{ type: "text", text: last.content }]
    : last.content.map((b) => ({ ...b }));
  const tail = blocks.at(-1);
  if (tail) (tail as Record<string, unknown>).cache_control = { type: "ephemeral" };
  return [...messages.slice(0, -1), { role: last.role, content: blocks }];
}
