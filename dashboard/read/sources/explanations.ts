/**
 * Source: why the verifier failed each check, where chi-bench writes it: a check's own details in the
 * scorecard's stages (`stages.<stage>.details.<check>`, what the e2e checks record), the judges' explanations
 * (`rubric_items` in scorecard.json, and `verifier/verdicts.json` as the workspace judge and `rejudge` write
 * it), and the care-management gates (`gate_results`). Read when a trial is opened; text redacted and clipped.
 * A leaderboard packet keeps none of it (chi-bench's `prepare` strips the scorecard to its checks).
 */
import { join } from "node:path";
import { redactText } from "../../../lib/guard/engine/secrets.ts";
import { readJsonFile } from "./trials.ts";

/** The longest explanation shown for one check. */
const MAX = 600;

function obj(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;
}

function clip(text: string): string {
  const one = redactText(text.trim()).replace(/\s+/g, " ");
  return one.length > MAX ? one.slice(0, MAX - 1) + "…" : one;
}

/** A details object in a line: `key: value; key: value` (values as JSON when not text). */
function detailText(details: Record<string, unknown>): string {
  return Object.entries(details).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join("; ");
}

/** A judge's verdicts by rubric id, in either shape chi-bench writes them. */
function verdictsOf(data: unknown): [string, Record<string, unknown>][] {
  const root = obj(obj(data)?.rubric_verdicts) ?? obj(data) ?? {};
  return Object.entries(root).flatMap(([rid, v]) =>
    obj(v) ? [[rid, obj(v)!] as [string, Record<string, unknown>]] : []
  );
}

/**
 * Each check's explanation from what the verifier wrote beside the scorecard (`checks`: the trial's check ids,
 * to find the one a rubric id names), by check id.
 */
export function checkExplanations(scorecard: string | null, checks: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (!scorecard) return out;
  const data = obj(readJsonFile(scorecard));
  const named = (rubric: string) =>
    checks.find((c) => c === rubric || c === `judge.${rubric}` || c.endsWith(`.${rubric}`)) ??
      `judge.${rubric}`;
  const say = (check: string, text: string) => {
    if (text.trim() && !out.has(check)) out.set(check, clip(text));
  };
  for (const item of Array.isArray(data?.rubric_items) ? data!.rubric_items as unknown[] : []) {
    const r = obj(item);
    if (typeof r?.rubric_id === "string" && typeof r.explanation === "string") {
      say(named(r.rubric_id), r.explanation);
    }
  }
  for (const [rid, v] of verdictsOf(readJsonFile(join(scorecard, "..", "verdicts.json")))) {
    if (typeof v.explanation === "string") say(named(rid), v.explanation);
  }
  for (const stage of Object.values(obj(data?.stages) ?? {})) {
    for (const [check, details] of Object.entries(obj(obj(stage)?.details) ?? {})) {
      if (checks.includes(check) && obj(details)) say(check, detailText(obj(details)!));
    }
  }
  for (const item of Array.isArray(data?.gate_results) ? data!.gate_results as unknown[] : []) {
    const g = obj(item);
    if (typeof g?.criterion_id !== "string") continue;
    const { criterion_id: _id, met: _met, ...rest } = g;
    say(`cm_gate.${g.criterion_id}`, detailText(rest));
  }
  return out;
}
