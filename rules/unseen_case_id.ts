/**
 * A case id must come from the system: a mutation on a case id that never appeared in the prompt or an earlier
 * result is a guess (Codex wrote `case_id:"CASE ring?"`), and a guess can land on a distractor. Ids that only came
 * back as echoes of the agent's own arguments do not count.
 * A result Claude Code saved to a file (over its MCP limit) counts: live the guard reads the file when the hook gets
 * only the notice (Claude Code 2.1.332), and replay takes what the agent read of it (two P5/P6 fires on a case id
 * read that way are gone). In replay an id a saved result may hold that the agent never read is reported as not
 * observable, not as a block (lib/trajectories/replay.ts). Replay runs a codex script's calls one after the other,
 * as the script did, so a referral fetched and opened in one script is seen by the open (its one passing-trial fire
 * on the tuning packets came from feeding the script's calls all at once). The block budget releases the call after
 * two denials.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { groundedIds, mutatingTools, shown } from "../lib/guard/engine/facts.ts";
import { normalizeId } from "../lib/guard/engine/ids.ts";
import { type Call, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";
import { grounded, lockedCaseId, lookupCall } from "../lib/guard/engine/next_ids.ts";
import type { Evidence } from "../lib/guard/engine/evidence.ts";
import { TOOLS } from "./catalog/tools.ts";

const ARGS = ["case_id", "referral_id"];
const QUEUE = toolCall("payer_intake_hub.list_intake_queue", {}, {
  result: { result: [{ case_id: "CASE-3903B8ED" }] },
});
const DISPOSE = (caseId: string) => toolCall("triage.set_disposition", { case_id: caseId });

/**
 * The next call: the same call on the case this session already changed, when it has one (the unseen id is
 * then a mistyped copy of it, or another case, which GLOBAL-01 refuses anyway); else the lookup of the seat
 * that lists the ids, then the call with the id as it returns it.
 */
function nextFor(call: Call, ev: Evidence, arg: string): string {
  const locked = arg === "case_id" ? lockedCaseId(ev) : "";
  if (locked && grounded(ev, locked)) {
    return `This session's case is ${locked}: call ${
      callText(call.tool, { case_id: locked })
    } with your other ` +
      "arguments as they are";
  }
  const lookup = lookupCall(arg, call, ev);
  const then = callText(call.tool, { [arg]: "<the id exactly as it returns it>" });
  return lookup
    ? `Call ${lookup} first, then ${then}`
    : `Look the id up with your seat's list tool, then ${then}`;
}

/** GLOBAL-02: no mutation naming a case or referral id never seen in the prompt or an earlier result. */
export const rule: Rule<{ tool: string; arg: string; value: string; next: string }> = {
  meta: {
    id: "GLOBAL-02",
    fromAbsence: true,
    name: "unseen-case-id",
    principle: "P-ALL-02",
    seat: "all",
    triggers: mutatingTools(TOOLS).filter((name) =>
      TOOLS.find((t) => t.name === name)?.args.some((a) => ARGS.includes(a))
    ),
    protects: [
      "cross.forbidden_mutations",
      "cm.cross_stage.no_forbidden_mutations",
      "cross.forward_transitions",
      "new_referral.case_created",
      "new_referral.service_request_created",
    ],
    message: "Cannot call {tool} with {arg}={value}: that id has not appeared in the task prompt or any " +
      "earlier result. {next}.",
  },
  check(call, evidence) {
    const arg = ARGS.find((a) => typeof call.input[a] === "string" && String(call.input[a]).trim());
    if (!arg) return null;
    const value = String(call.input[arg]).trim();
    if (groundedIds(evidence).has(normalizeId(value))) return null;
    return { tool: shown(call), arg, value, next: nextFor(call, evidence, arg) };
  },
  valid: [
    { name: "a case id listed by the queue", call: DISPOSE("CASE-3903B8ED"), evidence: { calls: [QUEUE] } },
    {
      name: "the listed id in other case and punctuation",
      call: DISPOSE("case-3903b8ed"),
      evidence: { calls: [QUEUE] },
    },
  ],
  invalid: [
    {
      name: "an id never seen anywhere",
      call: DISPOSE("CASE ring?"),
      evidence: { calls: [QUEUE] },
      data: {
        tool: "triage_set_disposition",
        arg: "case_id",
        value: "CASE ring?",
        next:
          "Call payer_intake_hub_list_intake_queue() first, then triage_set_disposition(case_id=<the id " +
          "exactly as it returns it>)",
      },
      reason: "Cannot call triage_set_disposition with case_id=CASE ring?: that id has not appeared in the " +
        "task prompt or any earlier result. Call payer_intake_hub_list_intake_queue() first, then " +
        "triage_set_disposition(case_id=<the id exactly as it returns it>).",
    },
    {
      name: "an id seen only in the agent's own failed call",
      call: DISPOSE("CASE-0000AAAA"),
      evidence: {
        calls: [QUEUE, toolCall("triage.set_disposition", { case_id: "CASE-0000AAAA" }, { error: "x" })],
      },
      data: {
        tool: "triage_set_disposition",
        arg: "case_id",
        value: "CASE-0000AAAA",
        next:
          "Call payer_intake_hub_list_intake_queue() first, then triage_set_disposition(case_id=<the id " +
          "exactly as it returns it>)",
      },
    },
    {
      name: "a mistyped copy of the case the session already changed",
      call: DISPOSE("CASE-3903B8DE"),
      evidence: {
        calls: [QUEUE, toolCall("payer_intake_hub.confirm_decisions", { case_id: "CASE-3903B8ED" })],
      },
      data: {
        tool: "triage_set_disposition",
        arg: "case_id",
        value: "CASE-3903B8DE",
        next:
          "This session's case is CASE-3903B8ED: call triage_set_disposition(case_id=CASE-3903B8ED) with " +
          "your other arguments as they are",
      },
    },
  ],
};
