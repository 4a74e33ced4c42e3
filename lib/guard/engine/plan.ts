/**
 * Role plans for the plan arm: the principles table (rules/principles.ts) assembled per seat and entry phase,
 * in workflow order, plus the handbook pages that matter for the case, within the context budget.
 * Pure: the handbook pages arrive as data (lib/guard/handbook.ts finds them).
 */
import { type Principle, principlesFor } from "../../../rules/principles.ts";
import type { Phase, Seat } from "./seat.ts";
import type { HandbookRecord } from "./record.ts";

/** The most context the plan may add, in characters. */
export const PLAN_BUDGET = 10_000;

/** One handbook page the plan points at: path under the handbook root, its title and why it was chosen. */
export interface HandbookPage {
  path: string;
  title: string;
  why: string;
}

/** Finds handbook pages for a case; does its own I/O and never throws (fails open with a record). */
export type HandbookLookup = (query: { prompt: string; seat: Seat | null; phase: Phase | null }) => {
  pages: HandbookPage[];
  record: HandbookRecord;
};

const SEAT_TITLES: Record<Seat, string> = {
  provider: "provider prior authorization",
  payer: "payer utilization management",
  cm: "care management",
};

const INTRO =
  "Answer-blind operating procedure. Your only sources are the task prompt, the chart or case, the " +
  "handbook and tool results; the tags in brackets are principle IDs the guard's messages quote.";

function line(p: Principle): string {
  return `${p.text} [${p.id}]`;
}

/** The plan for a seat and entry phase, within the budget; empty when the seat is unknown. */
export function rolePlan(
  seat: Seat | null,
  phase: Phase | null,
  options: { pages?: HandbookPage[] } = {},
): string {
  if (!seat) return "";
  const rows = principlesFor(seat, phase);
  const always = rows.filter((p) => p.seat === "all").map((p) => `- ${line(p)}`);
  const steps = rows.filter((p) => p.seat !== "all").map((p, i) => `${i + 1}. ${line(p)}`);
  let text = [
    `## fiable-agent role plan: ${SEAT_TITLES[seat]}${phase ? ` (entry phase: ${phase})` : ""}`,
    INTRO,
    "",
    "Always:",
    ...always,
    "",
    "Workflow, in order:",
    ...steps,
  ].join("\n");
  if (text.length > PLAN_BUDGET) text = text.slice(0, text.lastIndexOf("\n", PLAN_BUDGET));
  return text + pagesSection(options.pages ?? [], PLAN_BUDGET - text.length);
}

/** The handbook section: as many page lines as fit in `room` characters; empty when none fit. */
export function pagesSection(pages: HandbookPage[], room: number): string {
  let out = "\n\nHandbook pages for this case (open these before deciding):";
  let added = 0;
  for (const page of pages) {
    const entry = `\n- ${page.path} — ${page.title} (${page.why})`;
    if (out.length + entry.length > room) break;
    out += entry;
    added++;
  }
  return added ? out : "";
}
