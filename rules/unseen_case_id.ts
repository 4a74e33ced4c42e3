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
import { type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { TOOLS } from "./catalog/tools.ts";

const ARGS = ["case_id", "referral_id"];
const QUEUE = toolCall("payer_intake_hub.list_intake_queue", {}, {
  result: { result: [{ case_id: "CASE-3903B8ED" }] },
});
const DISPOSE = (caseId: string) => toolCall("triage.set_disposition", { case_id: caseId });

/** GLOBAL-02: no mutation naming a case or referral id never seen in the prompt or an earlier result. */
export const rule: Rule<{ tool: string; arg: string; value: string }> = {
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
      "earlier result. List or get the case first (the queue or get tool of your seat) and pass {arg} " +
      "exactly as the system returned it.",
  },
  check(call, evidence) {
    const arg = ARGS.find((a) => typeof call.input[a] === "string" && String(call.input[a]).trim());
    if (!arg) return null;
    const value = String(call.input[arg]).trim();
    return groundedIds(evidence).has(normalizeId(value)) ? null : { tool: shown(call), arg, value };
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
      data: { tool: "triage_set_disposition", arg: "case_id", value: "CASE ring?" },
    },
    {
      name: "an id seen only in the agent's own failed call",
      call: DISPOSE("CASE-0000AAAA"),
      evidence: {
        calls: [QUEUE, toolCall("triage.set_disposition", { case_id: "CASE-0000AAAA" }, { error: "x" })],
      },
      data: { tool: "triage_set_disposition", arg: "case_id", value: "CASE-0000AAAA" },
    },
  ],
};
