/**
 * The Claude Code versions this project has run end to end (tests/e2e: the bed, the stand-in Harbor trials, the
 * oversized-result matrix), and the one `install experiments` pins in every arm: the newest of them. A version
 * the matrix never ran is never pinned by default. tests/support/e2e/claude_version.ts re-exports these for the
 * tests, so the tests and the pin cannot drift apart.
 */

/** The npm package. */
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
/** Every version the end-to-end matrix runs. */
export const E2E_MATRIX: readonly string[] = [
  ...new Set([CLAUDE_CODE_VERSION, HARBOR_CLAUDE_CODE_VERSION, ...OVERSIZED_RESULT_VERSIONS]),
];

/** `a` against `b` as dotted whole numbers (2.1.99 < 2.1.139): negative, 0 or positive. */
export function compareVersions(a: string, b: string): number {
  const x = a.split(".").map(Number), y = b.split(".").map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** The version every arm installs unless `--claude-version` says otherwise: the newest the matrix covers. */
export const PINNED_CLAUDE_CODE = [...E2E_MATRIX].sort(compareVersions).at(-1)!;

/** `package@version`, as npm installs it. */
export function claudeSpec(version: string): string {
  return `${CLAUDE_CODE_PACKAGE}@${version}`;
}
