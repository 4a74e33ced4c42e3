/** The critic panel for terminal calls: three deterministic judges, blocking when two object. */
import { type Evidence, wasObserved } from "./evidence.ts";
import type { RuleHit, Vote } from "./ledger.ts";
import type { Call } from "./rule.ts";
import { openObligations } from "./closure.ts";

/** Argument names that carry identifiers the call must have observed. */
const ID_ARGS = /(^|_)(id|ids|npi|code|codes)$/;
/** Free-text rationale fields the policy judge reads. */
const RATIONALE_ARGS = [
  "determination_rationale",
  "denial_rationale",
  "override_reason",
  "rationale",
  "reason",
  "summary",
];
const BOILERPLATE =
  /^(n\/?a|none|ok|done|approved?|denied?|see (above|notes?)|per policy|as discussed|test)\.?$/i;

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) { for (const v of value) stringsIn(v, out); }
  return out;
}

/** Contract judge: the checklist's verdict on this call (its rule hits). */
export function contractJudge(hits: RuleHit[]): Vote {
  return hits.length
    ? { judge: "contract", object: true, reason: `contract rules fired: ${hits.map((h) => h.id).join(", ")}` }
    : { judge: "contract", object: false, reason: "no contract rule fired" };
}

/** Grounding judge: every identifier or code argument appeared earlier in the prompt or a result. */
export function groundingJudge(call: Call, ev: Evidence): Vote {
  const unseen: string[] = [];
  for (const [key, value] of Object.entries(call.input)) {
    if (!ID_ARGS.test(key)) continue;
    for (const s of stringsIn(value)) if (s.trim() && !wasObserved(ev, s)) unseen.push(`${key}=${s}`);
  }
  return unseen.length
    ? { judge: "grounding", object: true, reason: `not seen in any earlier result: ${unseen.join(", ")}` }
    : { judge: "grounding", object: false, reason: "every identifier was observed" };
}

/** Policy judge: rationale fields are specific (long enough, citing something seen in the case, not boilerplate). */
export function policyJudge(call: Call, ev: Evidence): Vote {
  const present = RATIONALE_ARGS.filter((k) => typeof call.input[k] === "string");
  const problems: string[] = [];
  for (const key of present) {
    const text = String(call.input[key]).trim();
    if (text.length < 40) problems.push(`${key} is ${text.length} characters (at least 40)`);
    else if (BOILERPLATE.test(text)) problems.push(`${key} is boilerplate`);
  }
  if (!present.length && /finalize|submit|record_outcome/.test(call.tool) && openObligations(ev).length > 2) {
    problems.push("no rationale field and the case has several open obligations");
  }
  return problems.length
    ? { judge: "policy", object: true, reason: problems.join("; ") }
    : { judge: "policy", object: false, reason: "rationale is specific" };
}

/** The panel's three votes for a terminal call. */
export function panel(call: Call, ev: Evidence, hits: RuleHit[]): Vote[] {
  return [contractJudge(hits), groundingJudge(call, ev), policyJudge(call, ev)];
}

/** True when at least two of the three judges object. */
export function panelObjects(votes: Vote[]): boolean {
  return votes.filter((v) => v.object).length >= 2;
}
