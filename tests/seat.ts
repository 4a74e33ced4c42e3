/** Seat and phase detection from the task prompt. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { detectPhase, detectSeat, seatFromTools } from "../lib/guard/engine/seat.ts";
import { CM_PROMPT, PAYER_PROMPT, PROVIDER_PROMPT } from "./support/payloads.ts";

const s = suite("seat");

const PROMPTS: [string, string, string | null, string | null][] = [
  ["provider", PROVIDER_PROMPT, "provider", "new_referral"],
  ["payer MD review", PAYER_PROMPT, "payer", "mdreview"],
  ["care manager", CM_PROMPT, "cm", "cm"],
  ["payer triage", "# 🧭 Triage Routing — x\n- Use only payer namespaces: `triage`", "payer", "triage"],
  ["payer intake", "# 📋 New Intake — x\n- Use only payer namespaces: `payer_intake_hub`", "payer", "intake"],
  ["nurse review", "# 🩺 Nurse Clinical Review — x\n| Case data & payer tools |", "payer", "nurse_review"],
  ["peer-to-peer", "# 📞 Peer-to-Peer Session — x\n- Use only payer namespaces: `p2p`", "payer", "p2p"],
  [
    "preamble first",
    "# GAMPO OPERATING PROCEDURE — x\n\n# ⚕️ MD Review — y\nUse only payer namespaces",
    "payer",
    "mdreview",
  ],
  ["no cues", "hello", null, null],
];
for (const [name, prompt, seat, phase] of PROMPTS) {
  s(`${name}: seat ${seat}, phase ${phase}`, () => {
    assert.is(detectSeat(prompt), seat);
    assert.is(detectPhase(prompt), phase);
  });
}

s("tools in use name the seat when the prompt does not", () => {
  assert.is(seatFromTools(["Bash", "mcp__healthverse__cm_intake_open_case"]), "cm");
  assert.is(seatFromTools(["Bash"]), null);
});

s.run();
