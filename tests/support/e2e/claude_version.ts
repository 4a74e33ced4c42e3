/** The one place the end-to-end tests pin Claude Code: the npm package and its exact version. */
export const CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code";
/** The pinned Claude Code version (the hooks reference version of the χ-Bench notes). */
export const CLAUDE_CODE_VERSION = "2.1.332";
/** `package@version`, as npm installs it. */
export const CLAUDE_CODE_SPEC = `${CLAUDE_CODE_PACKAGE}@${CLAUDE_CODE_VERSION}`;
