/** Pass-rate statistics: estimators, bootstrap CIs, paired differences and McNemar on known answers. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import padjust from "@stdlib/stats-padjust";
import jStat from "jstat";
import {
  bootstrapMean,
  choose,
  decide,
  flips,
  holm,
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
  assert.equal(flips(arm, ctl), {
    gained: ["b"],
    lost: ["c"],
    both: 1,
    neither: 1,
    p_mcnemar: 1,
    p_mcnemar_basis: "single",
  });
});

s("with several attempts McNemar counts a task passed when at least half its attempts passed", () => {
  // a: 3/3 vs 0/1 gained; b: 1/2 vs 0/3 gained (half passes); c: 1/3 vs 2/3 lost; d: 0/2 vs 1/3 neither.
  const arm = outcomes([["a", 3, 3], ["b", 2, 1], ["c", 3, 1], ["d", 2, 0]]);
  const ctl = outcomes([["a", 1, 0], ["b", 3, 0], ["c", 3, 2], ["d", 3, 1]]);
  const f = flips(arm, ctl);
  assert.equal([f.gained, f.lost, f.neither, f.p_mcnemar_basis], [["a", "b"], ["c"], 1, "half"]);
  assert.is(f.p_mcnemar, mcnemarExact(2, 1));
  assert.is(flips(arm, outcomes([["z", 1, 1]])).p_mcnemar, null);
});

// McNemar's exact test is the two-sided exact binomial test on the discordant pairs at p = ½: twice the
// smaller tail, from jStat's binomial CDF (which rounds to 10 decimal places).
for (const [b, c] of [[0, 0], [0, 1], [2, 5], [7, 1], [10, 10], [3, 17], [0, 25], [12, 30]]) {
  s(`mcnemarExact(${b}, ${c}) equals the binomial test from jStat's CDF`, () => {
    const want = Math.min(1, 2 * jStat.binomial.cdf(Math.min(b, c), b + c, 0.5));
    close(mcnemarExact(b, c), want, 1e-10);
  });
}

s("holm equals @stdlib/stats-padjust's holm on random families, nulls left out", () => {
  const rand = prng(11);
  for (let trial = 0; trial < 200; trial++) {
    const m = 1 + Math.floor(rand() * 6);
    const ps = Array.from({ length: m }, () => rand() < 0.2 ? rand() * 1e-3 : rand());
    const want = padjust(ps, "holm") as number[];
    holm(ps).forEach((p, i) => close(p, want[i], 1e-12));
  }
  assert.equal(holm([0.01, null, 0.04, 0.03]), [0.03, null, 0.06, 0.06]);
});

s("decide: the protocol's rule on a paired interval", () => {
  assert.equal(
    [decide({ lo: 0.01, hi: 0.2 }), decide({ lo: -0.2, hi: -0.01 }), decide({ lo: -0.1, hi: 0.1 })],
    ["improves", "harms", "inconclusive"],
  );
  assert.is(decide({ lo: null, hi: null }), null);
});

s.run();
