/**
 * The power script: its fast decision is the protocol's paired bootstrap decision, its bootstrap draws are
 * lib/results/stats.ts's, power behaves (≈ 2.5% false positives at no effect, near 1 at a large one), and the
 * section in docs/EVALUATION_PROTOCOL.md is what the script generates from the real packets.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync } from "node:fs";
import { pairedBootstrap, prng } from "../lib/results/stats.ts";
import {
  bodyDigest,
  bootstrapCounts,
  calibrate,
  currentBody,
  DESIGN,
  improves,
  inputsDigest,
  logOddsShift,
  mcnemarGain,
  PACKET_SETS,
  PILOT_POWER,
  pilotDigest,
  pilotRuns,
  POWER,
  powerCurve,
  PROTOCOL,
  rescue,
  taskRuns,
} from "../scripts/power.ts";

const s = suite("power");

for (const k of [1, 2, 4]) {
  s(`improves() equals pairedBootstrap's "lower bound above 0" on random experiments (${k} attempts)`, () => {
    const rand = prng(7 + k), n = 75, w = bootstrapCounts(n);
    for (let trial = 0; trial < 60; trial++) {
      const shift = rand() * 0.4 - 0.1;
      const arm = [], control = [], diff = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const p = rand();
        let a = 0, c = 0;
        for (let j = 0; j < k; j++) {
          if (rand() < Math.min(1, p + shift)) a++;
          if (rand() < p) c++;
        }
        arm.push({ task: `t${i}`, n: k, c: a });
        control.push({ task: `t${i}`, n: k, c });
        diff[i] = a - c;
      }
      const want = pairedBootstrap(arm, control, { iters: DESIGN.iters, seed: DESIGN.seed }).lo! > 0;
      assert.is(improves(diff, w), want, `experiment ${trial}`);
    }
  });
}

s("bootstrapCounts draws n tasks per resample, as bootstrapMean does", () => {
  const w = bootstrapCounts(75);
  for (let b = 0; b < DESIGN.iters; b += 97) {
    assert.is(w.slice(b * 75, (b + 1) * 75).reduce((a, x) => a + x, 0), 75);
  }
});

s("calibration hits the registered baseline; both effect models grow with their parameter", () => {
  const tasks = Array.from({ length: 20 }, (_, i) => ({ task: `t${i}`, c: i % 5, n: 9 }));
  const p = calibrate(tasks, 0.373);
  assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) / p.length - 0.373) < 1e-9);
  const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(m(logOddsShift(p, 0.5)) > m(p) && m(rescue(p, 0.2)) > m(p));
});

s("power is about 2.5% with no effect and near 1 with a large one (3 attempts)", () => {
  const p = Array.from({ length: 75 }, (_, i) => 0.05 + 0.9 * (i / 74));
  const curve = powerCurve(p, 3, logOddsShift, 400);
  assert.ok(curve(0).power <= 0.06, `power at 0: ${curve(0).power}`);
  assert.ok(curve(2).power >= 0.95, `power at +2 log-odds: ${curve(2).power}`);
  assert.ok(curve(0.3).power <= curve(0.6).power);
});

/**
 * A generated section of the protocol: its body digest matches its text (never edited by hand) and, with the
 * real packets beside the repo, its inputs digest is the one the script computes now (not stale).
 */
function sectionIsCurrent(name: "power" | "pilot-power", inputs: () => string): void {
  const body = currentBody(readFileSync(PROTOCOL, "utf8"), name === "power" ? POWER : PILOT_POWER);
  assert.ok(body, `docs/EVALUATION_PROTOCOL.md has no ${name} markers`);
  const lines = body!.split("\n");
  const recorded = new RegExp(`^<!-- ${name}:body sha256=([0-9a-f]{64}) -->$`).exec(lines.at(-1)!)?.[1];
  assert.is(
    recorded,
    bodyDigest(lines.slice(0, -1).join("\n")),
    `the ${name} section was edited by hand: run \`deno run -A scripts/power.ts\``,
  );
  if (!PACKET_SETS.some(existsSync)) {
    console.warn(
      `skipped the inputs check: ${PACKET_SETS.join(", ")} absent (needs ../shared beside the repo)`,
    );
    return;
  }
  assert.ok(
    body!.includes(`<!-- ${name}:inputs sha256=${inputs()} -->`),
    `the ${name} section is stale (packets, prices, reference, design or scripts/power.ts changed): run ` +
      "`deno run -A scripts/power.ts`",
  );
}

s("the protocol's power section is what scripts/power.ts generates from the real packets", () => {
  sectionIsCurrent("power", () => inputsDigest(taskRuns().tasks));
});

s(
  "mcnemarGain: the protocol's reduction (half the attempts) and a gain only when more tasks were gained",
  () => {
    // 8 tasks gained, 0 lost: p = 2/256 < 0.05. Arm passes 1 of 2 (half): passed.
    const arm = [1, 1, 1, 1, 1, 1, 1, 1, 0], ctl = [0, 0, 0, 0, 0, 0, 0, 0, 0];
    assert.is(mcnemarGain(arm, ctl, 2), true);
    assert.is(mcnemarGain(ctl, arm, 2), false, "a loss is no gain");
    assert.is(mcnemarGain(arm.slice(0, 5), ctl.slice(0, 5), 2), false, "5 to 0 is p 0.0625");
  },
);

s(
  "the pilot's McNemar and go rule fire about α/2 of the time with no effect, nearly always at a large one",
  () => {
    const p = Array.from({ length: 25 }, (_, i) => 0.05 + 0.5 * (i / 24));
    for (const test of ["bootstrap", "mcnemar"] as const) {
      const curve = powerCurve(p, 1, logOddsShift, 400, test);
      assert.ok(curve(0).power <= 0.05, `${test} at 0: ${curve(0).power}`);
      assert.ok(curve(4).power >= 0.9, `${test} at +4 log-odds: ${curve(4).power}`);
    }
  },
);

s("the protocol's pilot section is what scripts/power.ts generates from the real packets", () => {
  sectionIsCurrent("pilot-power", () => {
    const run = pilotRuns();
    assert.equal(run.baseline.map((b) => b.packet), [
      "2026-05-28-claude-opus-4-8",
      "2026-07-06-sonnet-5-claude-code",
    ]);
    return pilotDigest(run.tasks, run.baseline);
  });
});

s.run();
