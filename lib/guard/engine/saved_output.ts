/**
 * Claude Code's notice for an MCP result too large to show: it saves the result to a file in the session's
 * `tool-results/` folder and shows the model (and, from 2.1.332 on, the PostToolUse hook) only a notice naming
 * that file. Two shapes, measured with the real CLIs: `Error: result (418,034 characters across 1 line)
 * exceeds maximum allowed tokens. Output has been saved to <path>.txt.` (the model's view of a result over
 * the MCP token limit; the hook's too from 2.1.332) and `<persisted-output>\nOutput too large (554.8KB).
 * Full output saved to: <path>` (2.1.139 and 2.1.219, model only). The ids of such a result reach the
 * evidence only through that file: the live guard reads it (lib/guard/saved_output.ts), replay takes what the
 * agent read of it (lib/trajectories/saved_reads.ts). Pure: text in, path out.
 */

const NOTICES = [
  /^\s*Error: result \([\d,.]+ characters[^)]*\) exceeds maximum allowed tokens\. Output has been saved to (\/[^\n]*?\.txt)(?=\.?\s|\.?$)/,
  /^\s*<persisted-output>\s*\n\s*Output too large \([^)\n]*\)\. Full output saved to: (\/[^\n]*?)\s*(?:\n|$)/,
];

/** The path of the file a saved-output notice names, or null when the text is no such notice. */
export function savedOutputPath(text: string): string | null {
  for (const notice of NOTICES) {
    const m = notice.exec(text.slice(0, 2048));
    if (m) return m[1];
  }
  return null;
}

/**
 * Whether a path is a file Claude Code saved for this session: `<projects>/<cwd>/<session>/tool-results/<file>`,
 * beside the session's transcript when its path is known. Anything else (another session's file, a path that
 * climbs with `..`) is never read: a notice is tool output, and a tool could forge one.
 */
export function isSessionToolResult(path: string, session: string, transcriptPath?: string): boolean {
  if (!session || /(?:^|\/)\.\.(?:\/|$)/.test(path) || path.includes("\0")) return false;
  const m = /^(.*)\/([^/]+)\/tool-results\/[^/]+$/.exec(path);
  if (!m || m[2] !== session) return false;
  if (!transcriptPath) return /\/projects\/[^/]+$/.test(m[1]);
  return transcriptPath === `${m[1]}/${session}.jsonl`;
}

/**
 * Whether a saved file's name is the one Claude Code gives the result of this call: `<tool_use_id>.json` or
 * `.txt` (2.1.2xx), or `mcp-<server>-<tool>-<epoch ms>[-<suffix>].txt` (2.1.19x, 2.1.332), the tool spelled as
 * in the call's name (`mcp__hv__list` → `mcp-hv-list`) and the time no earlier than the call's start, when
 * that is known (`startedMs`, with a second's slack). A file the agent named itself, or an older one, is not.
 */
export function savedNameFits(
  name: string,
  call: { tool: string; toolUseId?: string; startedMs?: number },
): boolean {
  if (call.toolUseId && (name === `${call.toolUseId}.json` || name === `${call.toolUseId}.txt`)) return true;
  const m = /^(mcp-.+)-(\d{13})(?:-[a-z0-9]{1,16})?\.txt$/.exec(name);
  if (!m || m[1] !== call.tool.replace(/__/g, "-")) return false;
  return call.startedMs === undefined || Number(m[2]) >= call.startedMs - 1000;
}

/**
 * A saved result's text as the hook would have received it: a JSON array of content blocks (what 2.1.2xx
 * writes) is returned parsed, so its text is read like any MCP response; anything else stays text.
 */
export function savedOutputResponse(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("[")) return text;
  try {
    const parsed = JSON.parse(trimmed);
    return Array.isArray(parsed) && parsed.every((b) => b && typeof b === "object" && "type" in b)
      ? parsed
      : text;
  } catch {
    return text;
  }
}
