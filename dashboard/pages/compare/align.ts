/**
 * Two sequences aligned: a heaviest common subsequence on a key, gaps where one side has no counterpart, and
 * the first row where they part. Pure and generic; the Compare page aligns two trials' steps with it
 * (compare.ts).
 */
/** One row of an alignment: a step of each side, or null on the side that has no counterpart. */
export interface Aligned<T> {
  a: T | null;
  b: T | null;
}

/** Two sequences aligned, with the index of the first row that is not a match and counts (-1: none). */
export interface Alignment<T> {
  rows: Aligned<T>[];
  first: number;
  /** False when the differing middle was too long to align exactly (its calls are listed, not matched). */
  exact: boolean;
}

/** The most cells (middle of a × middle of b) aligned exactly: 4M cells is 16 MB for the table. */
export const MAX_CELLS = 4_000_000;

/** How to align: the largest table to fill, and the steps that matter (default: all). */
export interface AlignOptions<T> {
  maxCells?: number;
  /**
   * The steps that matter: a match of one outweighs any number of matches of the others (so a run of
   * harness-local calls never pulls a case call out of line), and the first divergence is on one of them.
   */
  counts?: (x: T) => boolean;
}

/**
 * Aligns `a` and `b` on `key`: the common prefix and suffix match as they stand, the middle by a heaviest
 * common subsequence (each match of a step that `counts` weighs more than all the others together; on a tie,
 * `a`'s step comes first); a middle beyond `maxCells` is listed `a` then `b`. The first divergence is the
 * first row with one side only whose step `counts`.
 */
export function align<T>(
  a: readonly T[],
  b: readonly T[],
  key: (x: T) => string,
  opts: AlignOptions<T> = {},
): Alignment<T> {
  const maxCells = opts.maxCells ?? MAX_CELLS;
  const counts = opts.counts ?? (() => true);
  const ka = a.map(key), kb = b.map(key);
  let head = 0;
  while (head < a.length && head < b.length && ka[head] === kb[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head && ka[a.length - 1 - tail] === kb[b.length - 1 - tail]
  ) tail++;
  const n = a.length - head - tail, m = b.length - head - tail;
  const rows: Aligned<T>[] = [];
  for (let i = 0; i < head; i++) rows.push({ a: a[i], b: b[i] });
  const exact = (n + 1) * (m + 1) <= maxCells;
  if (exact) {
    // lcs[i * (m + 1) + j]: the heaviest common subsequence of the middles from i and from j on. A step that
    // counts weighs one more than the most matches there can be, so the sum stays below (n + 1) * (m + 1).
    const w = m + 1;
    const heavy = Math.min(n, m) + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = ka[head + i] === kb[head + j]
          ? lcs[(i + 1) * w + j + 1] + (counts(a[head + i]) ? heavy : 1)
          : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && ka[head + i] === kb[head + j]) rows.push({ a: a[head + i++], b: b[head + j++] });
      else if (j >= m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
        rows.push({ a: a[head + i++], b: null });
      } else rows.push({ a: null, b: b[head + j++] });
    }
  } else {
    for (let i = 0; i < n; i++) rows.push({ a: a[head + i], b: null });
    for (let j = 0; j < m; j++) rows.push({ a: null, b: b[head + j] });
  }
  for (let t = tail; t > 0; t--) rows.push({ a: a[a.length - t], b: b[b.length - t] });
  const first = rows.findIndex((r) => (r.a === null) !== (r.b === null) && counts((r.a ?? r.b)!));
  return { rows, first, exact };
}
