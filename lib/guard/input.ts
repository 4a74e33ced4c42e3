/** Raw hook input under a bound, as both transports (stdin, an http body) collect it. */

/**
 * Largest hook input parsed, in bytes: a larger one is allowed unparsed and recorded from its head and tail.
 * Parsing, folding and serialising cannot be interrupted by the time budget, and a 3 MB object of 200,000 keys
 * took over 1.5 s on a loaded machine; real inputs are far smaller (Claude Code caps an MCP result at 25,000
 * tokens, about 100 KB, and a model's arguments are bounded by its output tokens).
 */
export const MAX_INPUT = 1024 * 1024;
/** Bytes of an oversized input's end kept beside its head (tool_use_id comes last in a hook's JSON). */
const KEEP_TAIL = 64 * 1024;

/** Raw hook input collected under a bound: its text (head, and tail when oversized) and its full size. */
export interface BoundedInput {
  text: string;
  size: number;
}

/** Byte chunks joined into one array (the one chunk itself when there is one). */
export function joinBytes(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

/** Byte chunks decoded as one UTF-8 text (a character split across chunks is kept whole). */
function decodeJoined(chunks: Uint8Array[]): string {
  return new TextDecoder().decode(joinBytes(chunks));
}

/**
 * Collects hook input chunks keeping at most `MAX_INPUT + 1` bytes of head and the last 64 KB, so a 100 MB
 * input costs a drain, not a 100 MB string. `done()` joins head and tail with a newline when oversized.
 */
export function inputCollector(limit = MAX_INPUT): { push(chunk: Uint8Array): void; done(): BoundedInput } {
  const head: Uint8Array[] = [];
  const tail: Uint8Array[] = [];
  let headSize = 0;
  let tailSize = 0;
  let size = 0;
  return {
    push(chunk) {
      size += chunk.length;
      let rest = chunk;
      if (headSize <= limit) {
        const take = rest.subarray(0, limit + 1 - headSize);
        head.push(take);
        headSize += take.length;
        rest = rest.subarray(take.length);
      }
      if (!rest.length) return;
      tail.push(rest);
      tailSize += rest.length;
      while (tail.length > 1 && tailSize - tail[0].length >= KEEP_TAIL) tailSize -= tail.shift()!.length;
    },
    done() {
      const text = decodeJoined(head);
      if (!tail.length) return { text, size };
      const end = joinBytes(tail);
      return {
        text: `${text}\n${new TextDecoder().decode(end.subarray(Math.max(0, end.length - KEEP_TAIL)))}`,
        size,
      };
    },
  };
}
