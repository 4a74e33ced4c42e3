/** Seat and phase detection from the task prompt (the first user message), with a tool-based fallback. */
import { toolInfo } from "./names.ts";

/** The three χ-Bench seats. */
export type Seat = "provider" | "payer" | "cm";
/** Entry phase of a task. */
export type Phase = "new_referral" | "intake" | "triage" | "nurse_review" | "mdreview" | "p2p" | "cm";

const SEAT_LINE = /Use only (payer|provider|care-manager) namespaces/;
const SEAT_ROW = /(?:Case|Patient) data & (payer|provider|care-manager) tools/;
const PHASE_TITLES: [RegExp, Phase][] = [
  [/New Intake\b/, "intake"],
  [/Triage Routing\b/, "triage"],
  [/Nurse Clinical Review\b/, "nurse_review"],
  [/MD Review\b/, "mdreview"],
  [/Peer-to-Peer Session\b/, "p2p"],
  [/Clinical Intake\b/, "new_referral"],
  [/Care Management\b.*Handoff|Handoff\b.*Care Management|Care Management (?:Intake )?Handoff/i, "cm"],
];

function seatWord(word: string): Seat {
  return word === "care-manager" ? "cm" : word as Seat;
}

/** Seat from the prompt's rules line or workspace row; null when the prompt names none. */
export function detectSeat(prompt: string): Seat | null {
  const m = SEAT_LINE.exec(prompt) ?? SEAT_ROW.exec(prompt);
  if (m) return seatWord(m[1]);
  if (/\/care-manager\//.test(prompt)) return "cm";
  if (/\/payer\//.test(prompt)) return "payer";
  if (/\/provider\//.test(prompt)) return "provider";
  return null;
}

/** Phase from the H1 title of the prompt (any `# ` line, since some harnesses prepend a preamble). */
export function detectPhase(prompt: string): Phase | null {
  const titles = prompt.split("\n").filter((line) => /^#\s/.test(line));
  for (const title of titles) {
    for (const [pattern, phase] of PHASE_TITLES) if (pattern.test(title)) return phase;
  }
  return null;
}

/** Seat from the tools in use: each seat's server exposes only its own namespaces. */
export function seatFromTools(tools: string[]): Seat | null {
  for (const name of tools) {
    const domain = toolInfo(name)?.domain;
    if (domain === "provider" || domain === "payer" || domain === "cm") return domain;
  }
  return null;
}
