/**
 * Scenario 2: stopping before the letter. The Stop gate blocks with the open obligations, the model is
 * shown them, and after the letter it allows the stop; a model that keeps stopping is released after K
 * blocks (profile budgets.stop_blocks, default 3), and the release is recorded with the obligations open.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { DEFAULT_BOUNDS } from "../../lib/guard/engine/decide.ts";
import { MODES, runBed } from "../support/e2e/bed.ts";
import { requestText } from "../support/e2e/model_server.ts";
import { deliverShownLetter, explain, PAYER, PAYER_PROMPT, records } from "../support/e2e/scenario.ts";

const DECIDED = [
  { text: "Reading the queue.", calls: [PAYER.queue] },
  { calls: [PAYER.mdData] },
  { calls: [PAYER.decide] },
  { calls: [PAYER.finalize()] },
  { text: "The determination is final. Done." },
];

for (const mode of MODES) {
  const s = suite(`e2e stop gate (${mode} hooks)`);

  s("blocks with the open letter obligation, then allows once the letter is delivered", async () => {
    const run = await runBed({
      mode,
      arm: "checklist",
      seat: "payer",
      prompt: PAYER_PROMPT,
      script: [
        ...DECIDED,
        { text: "Generating the approval letter.", calls: [PAYER.letter] },
        deliverShownLetter,
        { text: "Letter delivered. Done." },
      ],
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    const stops = records(run, "stop");
    assert.equal(stops.map((r) => r.decision), ["block", "allow"], why);
    assert.ok(stops[0].obligations?.some((o) => o.startsWith("UM-LETTER")), why);

    const afterBlock = run.main[DECIDED.length];
    assert.ok(afterBlock, `no request after the blocked stop; ${why}`);
    const shown = requestText(afterBlock.body);
    assert.match(shown, "UM-LETTER");
    assert.match(shown, "payer_letter_center_generate_approval");
    assert.ok(run.calls.some((c) => c.tool === "payer_letter_center.deliver" && !c.error), why);
  });

  s(`releases after ${DEFAULT_BOUNDS.stopBlocks} blocks and records the open obligations`, async () => {
    const stopAgain = { text: "I am done." };
    const run = await runBed({
      mode,
      arm: "checklist",
      seat: "payer",
      prompt: PAYER_PROMPT,
      script: [...DECIDED, stopAgain, stopAgain, stopAgain, stopAgain],
    });
    const why = explain(run);
    assert.is(run.claude.code, 0, why);
    const stops = records(run, "stop");
    assert.equal(
      stops.map((r) => r.decision),
      [...Array(DEFAULT_BOUNDS.stopBlocks).fill("block"), "release"],
      why,
    );
    const release = stops.at(-1)!;
    assert.ok(release.obligations?.some((o) => o.startsWith("UM-LETTER")), why);
    assert.match(release.note ?? "", "released with obligations open");
    assert.is(run.main.length, DECIDED.length + DEFAULT_BOUNDS.stopBlocks, why);
  });

  s.run();
}
