/** Small helpers the end-to-end scenarios share: χ-Bench prompts, scripted calls and verdicts on a run. */
import type { LedgerRecord } from "../../../lib/guard/engine/record.ts";
import { normalizeToolName } from "../../../lib/guard/engine/names.ts";
import type { WorldCall } from "../../../lib/results/tool_counts.ts";
import type { BedRun } from "./bed.ts";
import {
  lastToolResults,
  type MessagesRequest,
  type RecordedRequest,
  requestText,
  type ScriptedCall,
  type ScriptedTurn,
} from "./model_server.ts";

export { CM_PROMPT, PAYER_PROMPT, PROVIDER_PROMPT } from "../payloads.ts";

/**
 * A scripted call of a χ-World tool by its flat name (`auth_submit_authorization`), with a fixed id, on the
 * task's server (`healthverse` unless named).
 */
export function mcp(
  tool: string,
  input: Record<string, unknown>,
  id?: string,
  server = "healthverse",
): ScriptedCall {
  return { name: `mcp__${server}__${tool}`, input, ...(id ? { id } : {}) };
}

/** The tool_result the model was shown for a tool_use id, from the first main request that carries it. */
export function resultShown(
  run: BedRun,
  toolUseId: string,
): { is_error?: boolean; text: string } | undefined {
  return resultShownIn(run.main, toolUseId);
}

/** The tool_result shown for a tool_use id in main-loop requests (a bed run's or a stand-in trial's). */
export function resultShownIn(
  main: RecordedRequest[],
  toolUseId: string,
): { is_error?: boolean; text: string } | undefined {
  for (const request of main) {
    const hit = lastToolResults(request.body).find((r) => r.tool_use_id === toolUseId);
    if (hit) return hit;
  }
  return undefined;
}

/** The ledger records for one event and decision (any when omitted). */
export function records(run: BedRun, event: string, decision?: string): LedgerRecord[] {
  return run.ledger.filter((r) => r.event === event && (!decision || r.decision === decision));
}

/** The ledger's pre record for a tool_use id. */
export function preOf(run: BedRun, toolUseId: string): LedgerRecord | undefined {
  return run.ledger.find((r) => r.event === "pre" && r.tool_use_id === toolUseId);
}

/** The text of every user message of a request, to find injected reasons (stop feedback). */
export function userTexts(request: RecordedRequest): string {
  return JSON.stringify(request.body.messages.filter((m) => m.role === "user"));
}

/** The rule IDs a ledger record carries. */
export function ruleIds(record: LedgerRecord | undefined): string[] {
  return record?.rules?.map((h) => h.id) ?? [];
}

/** A short diagnosis of a run for assertion messages: exit code, stderr tail, ledger decisions. */
export function explain(run: BedRun): string {
  const decisions = run.ledger.map((r) => `${r.event}:${r.decision}${r.tool ? `:${r.tool}` : ""}`).join(" ");
  const scriptErrors = run.requests.filter((r) => r.error).map((r) => r.error);
  return `exit ${run.claude.code}${run.claude.timedOut ? " (timed out)" : ""}; ledger [${decisions}]; ` +
    (scriptErrors.length ? `script errors [${scriptErrors.join("; ")}]; ` : "") +
    `stub [${run.calls.map((c) => c.tool).join(" ")}]; stderr: ${run.claude.stderr.slice(-600)}`;
}

/** The payer MD-review target case (the stub's queue lists it first). */
export const PAYER_CASE = "CASE-3903B8ED";

/** Payer calls on the happy path of an MD review, each satisfying every contract rule. */
export const PAYER = {
  queue: mcp("payer_intake_hub_list_intake_queue", {}),
  mdData: mcp("review_get_md_review_data", { case_id: PAYER_CASE }),
  decide: mcp("review_submit_md_case_decision", {
    case_id: PAYER_CASE,
    decision: "approve",
    signed_off: true,
    clinical_notes:
      "MRI 2026-10-02 shows a complex medial meniscal tear; 8 weeks of physical therapy failed.",
    determination_rationale:
      "Criterion C1 (imaging-confirmed tear) and C2 (failed conservative therapy) are met.",
  }),
  summary: mcp("determination_get_summary", { case_id: PAYER_CASE }),
  finalize: (id?: string) => mcp("determination_finalize", { case_id: PAYER_CASE, decision: "approved" }, id),
  letter: mcp("payer_letter_center_generate_approval", { case_id: PAYER_CASE }),
};

/** A step that delivers the letter whose id the last result showed (the model copies it, as GLOBAL-05 asks). */
export function deliverShownLetter(request: MessagesRequest): ScriptedTurn {
  const letterId = /LET-[0-9a-f]{8}/.exec(requestText(request))?.[0] ?? "LET-missing";
  return { calls: [mcp("payer_letter_center_deliver", { letter_id: letterId, channel: "fax" })] };
}

/** The χ-World calls of the run as a trajectory has them: every tool_use Claude Code sent back, in order. */
export function transcriptCalls(run: BedRun): WorldCall[] {
  const messages = run.main.at(-1)?.body.messages ?? [];
  const answered = new Set<string>();
  const calls: WorldCall[] = [];
  messages.forEach((m, step) => {
    for (const b of Array.isArray(m.content) ? m.content as Record<string, unknown>[] : []) {
      if (b.type === "tool_result") answered.add(String(b.tool_use_id));
      const tool = b.type === "tool_use" ? normalizeToolName(String(b.name)) : null;
      if (tool) calls.push({ id: String(b.id), tool, raw: String(b.name), answered: false, step });
    }
  });
  return calls.map((c) => ({ ...c, answered: answered.has(c.id) }));
}
