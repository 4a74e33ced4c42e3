/** Pass-rate statistics: estimators, bootstrap CIs, paired differences and McNemar on known answers. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  bootstrapMean,
  choose,
  flips,
  mcnemarExact,
  pairedBootstrap,
  passAt1,
  passAtK,
  passHatK,
  passHatKMean,
  prng,
  type TaskOutcome,
} from "../lib/results/stats.ts";

const s = suite("stats");
const close = (a: number | null, b: number, eps = 1e-12) =>
  assert.ok(a !== null && Math.abs(a - b) < eps, `${a} ≉ ${b}`);
const outcomes = (rows: [string, number, number][]): TaskOutcome[] =>
  rows.map(([task, n, c]) => ({ task, n, c }));

const CHOOSE: [number, number, number][] = [[5, 2, 10], [3, 3, 1], [3, 0, 1], [2, 3, 0], [10, 5, 252]];
for (const [n, k, want] of CHOOSE) s(`C(${n},${k}) = ${want}`, () => assert.is(choose(n, k), want));

const HAT: [number, number, number, number][] = [
  [3, 3, 3, 1],
  [3, 2, 2, 1 / 3],
  [3, 2, 3, 0],
  [4, 2, 1, 0.5],
  [5, 0, 1, 0],
];
for (const [n, c, k, want] of HAT) {
  s(`pass^${k} with ${c}/${n} passes = ${want}`, () => close(passHatK(n, c, k), want));
}

const AT: [number, number, number, number][] = [[3, 1, 2, 2 / 3], [3, 0, 3, 0], [3, 1, 3, 1], [4, 2, 1, 0.5]];
for (const [n, c, k, want] of AT) {
  s(`pass@${k} with ${c}/${n} passes = ${want}`, () => close(passAtK(n, c, k), want));
}

s("pass@1 is the mean over tasks of c/n, not over trials", () => {
  close(passAt1(outcomes([["a", 1, 1], ["b", 3, 1]])).value, (1 + 1 / 3) / 2);
});

s("pass^k only uses tasks with at least k attempts", () => {
  const e = passHatKMean(outcomes([["a", 3, 3], ["b", 1, 0], ["c", 3, 0]]), 2);
  assert.is(e.n_tasks, 2);
  close(e.value, 0.5);
});

s("bootstrap of a constant has a zero-width CI", () => {
  const e = bootstrapMean([0.25, 0.25, 0.25]);
  assert.equal([e.value, e.lo, e.hi], [0.25, 0.25, 0.25]);
});

s("bootstrap is reproducible for a seed and moves with it", () => {
  const xs = [0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0];
  assert.equal(bootstrapMean(xs, { seed: 0 }), bootstrapMean(xs, { seed: 0 }));
  const a = bootstrapMean(xs, { seed: 0 }), b = bootstrapMean(xs, { seed: 7, iters: 999 });
  assert.ok(a.lo! <= a.value! && a.value! <= a.hi!);
  assert.ok(b.lo! <= b.value! && b.value! <= b.hi!);
  assert.is.not(prng(1)(), prng(2)());
});

s(
  "an empty task set has no estimate",
  () => assert.equal(bootstrapMean([]), { value: null, lo: null, hi: null, n_tasks: 0 }),
);

const MCNEMAR: [number, number, number][] = [
  [0, 0, 1],
  [5, 0, 0.0625],
  [0, 5, 0.0625],
  [1, 9, 22 / 1024],
  [3, 3, 1],
  [2, 6, 2 * 37 / 256],
];
for (const [b, c, p] of MCNEMAR) {
  s(`McNemar exact b=${b} c=${c} → p=${p}`, () => close(mcnemarExact(b, c), p));
}

s("paired bootstrap: an arm that passes every task the control fails", () => {
  const arm = outcomes([["a", 1, 1], ["b", 1, 1], ["c", 1, 1]]);
  const ctl = outcomes([["a", 1, 0], ["b", 1, 0], ["c", 1, 0], ["d", 1, 1]]);
  assert.equal(pairedBootstrap(arm, ctl), { diff: 1, lo: 1, hi: 1, n_shared: 3 });
});

s("paired bootstrap: identical arms differ by exactly zero", () => {
  const arm = outcomes([["a", 1, 1], ["b", 1, 0], ["c", 2, 1]]);
  assert.equal(pairedBootstrap(arm, arm), { diff: 0, lo: 0, hi: 0, n_shared: 3 });
});

s("paired bootstrap: 2 gained, 1 lost of 10 shared tasks → +0.1 with the CI around it", () => {
  const ctl = outcomes([..."abcdefghij"].map((t, i) => [t, 1, i < 5 ? 1 : 0] as [string, number, number]));
  const arm = ctl.map((t) => ({ ...t, c: t.task === "f" || t.task === "g" ? 1 : t.task === "a" ? 0 : t.c }));
  const d = pairedBootstrap(arm, ctl);
  close(d.diff, 0.1);
  // diffs are +1, +1, −1 and seven 0s: mean 0.1, se ≈ 0.17, so the 95% interval is about ±0.33.
  assert.ok(d.lo! >= -0.3 && d.lo! <= -0.1 && d.hi! >= 0.3 && d.hi! <= 0.5, JSON.stringify(d));
});

s("flips name the tasks each way and test them with McNemar", () => {
  const ctl = outcomes([["a", 1, 1], ["b", 1, 0], ["c", 1, 1], ["d", 1, 0], ["x", 1, 1]]);
  const arm = outcomes([["a", 1, 1], ["b", 1, 1], ["c", 1, 0], ["d", 1, 0], ["e", 1, 1], ["f", 1, 1]]);
  assert.equal(flips(arm, ctl), { gained: ["b"], lost: ["c"], both: 1, neither: 1, p_mcnemar: 1 });
});

s("flips give no McNemar p when an arm has several attempts per task", () => {
  const f = flips(outcomes([["a", 3, 3]]), outcomes([["a", 1, 0]]));
  assert.equal([f.gained, f.p_mcnemar], [["a"], null]);
});

s.run();
