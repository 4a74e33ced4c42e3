/** The one place the tests pin Claude Code: the npm package and one exact version per purpose. */
export const CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code";
/** The end-to-end bed's Claude Code (the hooks reference version of the χ-Bench notes). */
export const CLAUDE_CODE_VERSION = "2.1.332";
/**
 * The stand-in Harbor trials' Claude Code: the version the real Harbor 0.20 run of fiable-cc used
 * (../shared/chi-bench/harbor-lifecycle.md) and the opus-5 leaderboard image baked in.
 */
export const HARBOR_CLAUDE_CODE_VERSION = "2.1.219";
/**
 * The versions whose handling of an MCP result over the limit differs (tests/e2e/oversized_result.ts):
 * 2.1.139 and 2.1.219 pass the PostToolUse hook the whole result, 2.1.332 only the notice naming the file
 * Claude Code saved it to.
 */
export const OVERSIZED_RESULT_VERSIONS = ["2.1.139", HARBOR_CLAUDE_CODE_VERSION, CLAUDE_CODE_VERSION];
/** `package@version`, as npm installs it. */
export function claudeSpec(version: string): string {
  return `${CLAUDE_CODE_PACKAGE}@${version}`;
}
/** The bed's `package@version`. */
export const CLAUDE_CODE_SPEC = claudeSpec(CLAUDE_CODE_VERSION);
