/** lib/progress.ts: the progress line from counts and elapsed time, and its writer (terminal only). */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { duration, type Progress, progressLine, terminalProgress } from "../lib/progress.ts";

const s = suite("progress");

const LINES: [Progress, string][] = [
  [{ done: 0, total: 700, elapsedMs: 0, what: "trials" }, "0/700 trials · ETA …"],
  [{ done: 3, total: 700, elapsedMs: 50, what: "trials" }, "3/700 trials · ETA …"],
  [{ done: 120, total: 700, elapsedMs: 2_000, what: "trials" }, "120/700 trials · 60 trials/s · ETA 10 s"],
  [{ done: 7, total: 700, elapsedMs: 1_000, what: "trials" }, "7/700 trials · 7.0 trials/s · ETA 1 min 39 s"],
  [
    { done: 2, total: 300, elapsedMs: 60_000, what: "trajectories" },
    "2/300 trajectories · 2.0 trajectories/min · ETA 2 h 29 min",
  ],
  [{ done: 700, total: 700, elapsedMs: 13_400, what: "trials" }, "700/700 trials · done in 13 s"],
  [{ done: 0, total: 0, elapsedMs: 5, what: "trials" }, "0/0 trials · done in 0 s"],
];
for (const [p, line] of LINES) {
  s(`${p.done}/${p.total} after ${p.elapsedMs} ms → ${line}`, () => assert.is(progressLine(p), line));
}

const DURATIONS: [number, string][] = [[0, "0 s"], [59_400, "59 s"], [60_000, "1 min 00 s"], [
  3_725_000,
  "1 h 02 min",
]];
for (const [ms, text] of DURATIONS) s(`duration ${ms} ms → ${text}`, () => assert.is(duration(ms), text));

s("not a terminal: no writer at all", () => {
  assert.is(
    terminalProgress("replay", "trials", { isTerminal: false, write: () => assert.unreachable() }),
    undefined,
  );
});

s("a terminal: redrawn in place, at most every 100 ms, the last count always, then a newline", () => {
  const written: string[] = [];
  let t = 0;
  const bar = terminalProgress("replay", "trials", {
    isTerminal: true,
    write: (x) => written.push(x),
    now: () => t,
  })!;
  bar(0, 4);
  t = 50;
  bar(1, 4); // within 100 ms of the last redraw: skipped
  t = 1_000;
  bar(2, 4);
  t = 1_010;
  bar(4, 4);
  assert.equal(written, [
    "\rreplay: 0/4 trials · ETA …\x1b[K",
    "\rreplay: 2/4 trials · 2.0 trials/s · ETA 1 s\x1b[K",
    "\rreplay: 4/4 trials · done in 1 s\x1b[K\n",
  ]);
});

s.run();
