/** The closure gate: obligations per seat that must be closed before the agent may stop. */
import { type Evidence, succeeded } from "./evidence.ts";

/** One open obligation: an ID, what is open, and the tool that closes it. */
export interface Obligation {
  id: string;
  text: string;
  closes: string;
}

function any(
  ev: Evidence,
  tool: string,
  where: (input: Record<string, unknown>) => boolean = () => true,
): boolean {
  return ev.calls.some((c) => c.ok && c.tool === tool && where(c.input));
}

const LETTERS: Record<string, string> = {
  approved: "payer_letter_center.generate_approval",
  denied: "payer_letter_center.generate_denial",
  partially_approved: "payer_letter_center.generate_partial_approval",
};

function providerObligations(ev: Evidence): Obligation[] {
  const open: Obligation[] = [];
  if (!any(ev, "cases.create_from_order")) {
    open.push({
      id: "PP-CASE",
      text: "no case was created from the order",
      closes: "cases_create_from_order",
    });
  }
  const determined = succeeded(ev, "auth.finalize_provider_determination");
  if (!determined.length && !any(ev, "auth.submit_authorization")) {
    open.push({
      id: "PP-DETERMINATION",
      text: "no provider determination is recorded",
      closes:
        "auth_finalize_provider_determination (final_action submit_pa, gather_more_evidence or do_not_submit)",
    });
  }
  const last = determined.at(-1);
  if (last?.input.final_action === "submit_pa" && !any(ev, "auth.submit_authorization")) {
    open.push({
      id: "PP-SUBMIT",
      text: "the determination is submit_pa but the case was never submitted",
      closes: "auth_submit_authorization",
    });
  }
  return open;
}

function payerObligations(ev: Evidence): Obligation[] {
  const open: Obligation[] = [];
  const pended = any(ev, "review.submit_md_case_decision", (i) => i.decision === "request_info") ||
    any(ev, "review.submit_nurse_case_recommendation", (i) => i.recommendation === "request_info") ||
    any(ev, "payer_letter_center.generate_pend");
  const fastTracked = ev.calls.some((c) =>
    c.ok && c.tool === "triage.route_case" && /"status"\s*:\s*"approved"|authorization_number/.test(c.text)
  );
  const finals = succeeded(ev, "determination.finalize");
  if (!finals.length && !pended && !fastTracked) {
    open.push({
      id: "UM-DETERMINATION",
      text: "no determination is finalized and no pend path was taken",
      closes: "determination_finalize",
    });
  }
  for (const fin of finals) {
    const decision = String(fin.input.decision ?? "");
    const letter = LETTERS[decision];
    if (letter && !any(ev, letter)) {
      open.push({
        id: "UM-LETTER",
        text: `the case was finalized ${decision} but no ${decision.replace("_", " ")} letter was generated`,
        closes: letter.replace(".", "_"),
      });
    }
  }
  const p2pDecision = any(ev, "review.submit_md_case_decision", (i) => i.decision === "p2p_review");
  const p2pRecorded = any(ev, "p2p.record_outcome") || any(ev, "p2p_session.submit_summary");
  if ((p2pDecision || ev.phase === "p2p") && !p2pRecorded) {
    open.push({
      id: "UM-P2P",
      text: "the peer-to-peer outcome is not recorded",
      closes: "p2p_record_outcome",
    });
  }
  return open;
}

function cmObligations(ev: Evidence): Obligation[] {
  if (!any(ev, "cm_intake.open_case")) {
    return [{ id: "CM-OPEN", text: "no care-management case was opened", closes: "cm_intake_open_case" }];
  }
  if (!any(ev, "cm_care_plan.finalize") && !any(ev, "cm_intake.disenroll_case")) {
    return [{
      id: "CM-FINALIZE",
      text: "the case is open without a finalized care plan",
      closes: "cm_care_plan_finalize (after the assessment and a saved care plan)",
    }];
  }
  return [];
}

/** The obligations still open for the session's seat; none when the seat is unknown. */
export function openObligations(ev: Evidence): Obligation[] {
  if (ev.seat === "provider") return providerObligations(ev);
  if (ev.seat === "payer") return payerObligations(ev);
  if (ev.seat === "cm") return cmObligations(ev);
  return [];
}

/** The Stop block reason: every open obligation with the tool that closes it. */
export function closureMessage(open: Obligation[]): string {
  const lines = open.map((o) => `- ${o.id}: ${o.text}; close it with ${o.closes}.`);
  return `Cannot stop yet: ${open.length} obligation${open.length === 1 ? " is" : "s are"} open.\n${
    lines.join("\n")
  }\nFinish them, then stop.`;
}
