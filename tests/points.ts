/** A difference of two rates in one unit everywhere: signed percentage points, its interval in the same points. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { points, pointsInterval } from "../lib/results/points.ts";

const s = suite("points");

const ROWS: [string, number | null, string][] = [
  ["a gain", 0.13333, "+13.3 pts"],
  ["a loss", -0.0667, "-6.7 pts"],
  ["exactly zero", 0, "0.0 pts"],
  ["a loss that rounds to zero is not -0.0", -0.0001, "0.0 pts"],
  ["a gain that rounds to zero is not +0.0", 0.0004, "0.0 pts"],
  ["unknown", null, "–"],
];
for (const [name, diff, want] of ROWS) s(`${name}: ${want}`, () => assert.is(points(diff), want));

s("an interval: the estimate with its unit, the bounds in the same points", () => {
  assert.is(pointsInterval({ diff: 0.1333, lo: 0.02, hi: 0.25 }), "+13.3 pts [+2.0, +25.0]");
  assert.is(pointsInterval({ diff: -0.5, lo: -1, hi: 0 }), "-50.0 pts [-100.0, 0.0]");
  assert.is(pointsInterval({ diff: null, lo: null, hi: null }), "–");
});

s.run();
