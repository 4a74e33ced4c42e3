/** Plain-text rendering of an install plan: one line per file, and the changed lines of small text edits. */
import type { Plan } from "./plan.ts";

const MAX_DIFF_LINES = 4000;

/** Changed lines between two texts (longest-common-subsequence), as "+ line" / "- line". */
export function lineDiff(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length * b.length > MAX_DIFF_LINES * MAX_DIFF_LINES) return ["(file too large to diff)"];
  const n = a.length, m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++, j++;
    } else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) out.push(`+ ${b[j++]}`);
    else out.push(`- ${a[i++]}`);
  }
  return out;
}

function size(bytes: Uint8Array): string {
  return bytes.length >= 1024 * 1024
    ? `${(bytes.length / 1024 / 1024).toFixed(1)} MB`
    : bytes.length >= 1024
    ? `${(bytes.length / 1024).toFixed(1)} kB`
    : `${bytes.length} B`;
}

/** The plan as lines: `  action  path  (why, size)` and indented diffs for edits and restores of text files. */
export function renderPlan(plan: Plan): string[] {
  const dec = new TextDecoder();
  const width = Math.max(...plan.changes.map((c) => c.path.length), 0);
  const lines: string[] = [];
  for (const c of plan.changes) {
    const bytes = c.after ?? c.before;
    lines.push(
      `  ${c.action.padEnd(7)} ${c.path.padEnd(width)}  (${c.why}${bytes ? `, ${size(bytes)}` : ""})`,
    );
    const text = (c.action === "edit" || c.action === "restore") && !c.path.endsWith(".json") &&
      c.before && c.after && c.after.length < 1_000_000;
    if (text) {
      for (const d of lineDiff(dec.decode(c.before!), dec.decode(c.after!))) lines.push(`            ${d}`);
    }
  }
  return lines;
}
