/**
 * A difference of two rates, in one unit wherever it is shown (summary.md, the pilot verdict, the dashboard):
 * signed percentage points, `+13.3 pts`, its interval's bounds in the same points, `[+2.0, +25.0]`.
 */

/** A difference of two rates as signed points, without the unit: `+13.3`, `-6.7`; one rounding to zero is `0.0`. */
export function signedPoints(diff: number, digits = 1): string {
  const text = (100 * diff).toFixed(digits);
  if (Number(text) === 0) return (0).toFixed(digits);
  return diff > 0 ? `+${text}` : text;
}

/** A difference of two rates in percentage points: `+13.3 pts` (`–` when unknown). */
export function points(diff: number | null | undefined): string {
  return diff === null || diff === undefined ? "–" : `${signedPoints(diff)} pts`;
}

/** A difference with its interval, one unit: `+13.3 pts [+2.0, +25.0]` (`–` when unknown). */
export function pointsInterval(d: { diff: number | null; lo: number | null; hi: number | null }): string {
  if (d.diff === null) return "–";
  const bound = (v: number | null) => (v === null ? "–" : signedPoints(v));
  return `${points(d.diff)} [${bound(d.lo)}, ${bound(d.hi)}]`;
}
