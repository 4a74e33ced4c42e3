/**
 * The outreach summary must not contradict itself: `engagement_status=engaged` means the member consented
 * (the tool's own definition), `refused` and `pending` mean they did not, and the consent recorded is what
 * the rest of the workflow (assessment, care plan, CM-04) acts on.
 * Known limitations: checks the summary against itself, not against the transcript. A transcript check was
 * measured and rejected: 11 PASSING hermes trials recorded consent after the patient simulator had failed
 * (no member reply at all), and a block there would have turned a passing run into a disenrolment. Never
 * fired on the 700 replayed trials.
 * Fires in passing trials (replay, checklist arm, 10 packets, 700 trials): none.
 */
import { objectArg } from "../lib/guard/engine/facts.ts";
import { arg, type Rule, toolCall } from "../lib/guard/engine/rule.ts";
import { callText } from "../lib/guard/engine/next_call.ts";

const END = (summary: Record<string, unknown>) =>
  toolCall("cm_outreach.end_outreach_call", { session_id: "SES-0E12A4B9", summary });

/** The engagement statuses that say the member did not consent. */
const NO_CONSENT = ["refused", "pending"];

const READ = "cm_outreach_get_transcript(session_id=SES-0E12A4B9)";
const END_AGAIN = "cm_outreach_end_outreach_call(session_id=SES-0E12A4B9, summary=<one summary whose " +
  "consent_obtained and engagement_status agree with the transcript>)";

/** CM-09: no outreach summary whose consent_obtained contradicts its engagement_status. */
export const rule: Rule<{ sessionId: string; consent: string; status: string; read: string; end: string }> = {
  meta: {
    id: "CM-09",
    name: "consent-matches-engagement",
    principle: "P-CM-04",
    seat: "cm",
    triggers: ["cm_outreach.end_outreach_call"],
    protects: ["judge.cm.outreach.quality", "cm.cross_stage.audit_actions"],
    message:
      "Cannot end outreach call {sessionId} with this summary: consent_obtained={consent} contradicts " +
      "engagement_status={status} (engaged means the member consented; refused and pending mean they did " +
      "not). What the member said decides it: read {read}, then call {end}.",
  },
  check(call) {
    const summary = objectArg(call.input.summary);
    const consent = summary?.consent_obtained;
    const status = String(summary?.engagement_status ?? "");
    const contradicts = (consent === true && NO_CONSENT.includes(status)) ||
      (consent === false && status === "engaged");
    if (!contradicts) return null;
    const sessionId = arg(call, "session_id");
    return {
      sessionId,
      consent: String(consent),
      status,
      read: callText("cm_outreach.get_transcript", { session_id: sessionId }),
      end: callText("cm_outreach.end_outreach_call", {
        session_id: sessionId,
        summary: "<one summary whose consent_obtained and engagement_status agree with the transcript>",
      }),
    };
  },
  valid: [
    {
      name: "engaged with consent",
      call: END({ engagement_status: "engaged", consent_obtained: true }),
      evidence: {},
    },
    {
      name: "tentative with consent",
      call: END({ engagement_status: "tentative", consent_obtained: true }),
      evidence: {},
    },
    {
      name: "refused without consent",
      call: END({ engagement_status: "refused", consent_obtained: false }),
      evidence: {},
    },
  ],
  invalid: [
    {
      name: "refused but consent recorded",
      call: END({ engagement_status: "refused", consent_obtained: true }),
      evidence: {},
      data: { sessionId: "SES-0E12A4B9", consent: "true", status: "refused", read: READ, end: END_AGAIN },
      reason: "Cannot end outreach call SES-0E12A4B9 with this summary: consent_obtained=true contradicts " +
        "engagement_status=refused (engaged means the member consented; refused and pending mean they did " +
        "not). What the member said decides it: read cm_outreach_get_transcript(session_id=SES-0E12A4B9), " +
        "then call cm_outreach_end_outreach_call(session_id=SES-0E12A4B9, summary=<one summary whose " +
        "consent_obtained and engagement_status agree with the transcript>).",
    },
    {
      name: "engaged without consent, the summary as JSON text",
      call: toolCall("cm_outreach.end_outreach_call", {
        session_id: "SES-0E12A4B9",
        summary: JSON.stringify({ engagement_status: "engaged", consent_obtained: false }),
      }),
      evidence: {},
      data: { sessionId: "SES-0E12A4B9", consent: "false", status: "engaged", read: READ, end: END_AGAIN },
    },
  ],
};
