/**
 * The guard's records as the pages show them: its decision on a call (with the block reason as the model read
 * it, the judges' votes), the stop gate, lifecycle events, and a call in one line. The Trial, Ledger and
 * Compare pages share them.
 */
import type { FC } from "hono/jsx";
import type { LedgerRecord } from "../../lib/guard/engine/record.ts";
import type { CallItem } from "../read/transcript.ts";
import { cls, Decision, json } from "./format.tsx";

/** The rules a record names, each with the checks it protects and its message, unless `shown` says it already. */
const Hits: FC<{ record: LedgerRecord; shown: string }> = ({ record, shown }) => (
  <>
    {(Array.isArray(record.rules) ? record.rules : []).map((h) => {
      const message = String(h?.message ?? "");
      return (
        <div class="hit">
          <strong>{String(h?.id ?? "")}</strong>
          {Array.isArray(h?.checks) && h.checks.length
            ? <span class="checks">{` → ${h.checks.join(", ")}`}</span>
            : null}
          {message && !shown.includes(message) ? <div class="msg">{message}</div> : null}
        </div>
      );
    })}
  </>
);

const Votes: FC<{ record: LedgerRecord }> = ({ record }) =>
  Array.isArray(record.votes) && record.votes.length
    ? (
      <table class="votes">
        <tbody>
          {record.votes.map((v) => (
            <tr>
              <td>{String(v?.judge ?? "")}{v?.mode ? ` (${v.mode})` : ""}</td>
              <td>{v?.object ? "objects" : "accepts"}</td>
              <td>{String(v?.reason ?? "")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )
    : null;

const DECISION_TEXT: Record<string, string> = {
  deny: "guard denied the call",
  release: "guard released the call (block budget spent)",
  shadow: "guard would have denied (shadow, not enforced)",
  allow: "guard allowed",
  error: "guard failed open (allowed)",
};

export function quietAllow(r: LedgerRecord): boolean {
  return String(r.decision) === "allow" && !r.rules?.length && !r.note;
}

/** The guard's decision on one call, as the ledger recorded it (and as the model read a deny). */
export const GuardBox: FC<{ record: LedgerRecord; would?: string }> = ({ record, would }) => {
  const d = String(record.decision);
  const quiet = quietAllow(record);
  const reason = d === "deny" && record.reason ? json(record.reason) : "";
  return (
    <div class={`guard gd-${cls(d)} ${would ? "would" : ""} ${quiet ? "quiet" : ""}`}>
      <span class="who">{would ? `replay (${would}) would have:` : "guard:"}</span> <Decision value={d} />
      {" "}
      <span class="muted">{DECISION_TEXT[d] ?? ""}</span>
      {record.latency_ms !== undefined ? <span class="muted">{` · ${record.latency_ms} ms`}</span> : null}
      {record.first_block ? <span class="badge first">first block</span> : null}
      {record.case ? <span class="muted">{` · case ${record.case}`}</span> : null}
      {quiet ? null : (
        <>
          {/* Each rule's message once: in the reason as the model read it when that is shown, else here. */}
          <Hits record={record} shown={reason} />
          <Votes record={record} />
          {reason
            ? (
              <details class="reason" open>
                <summary>the block reason as the model read it</summary>
                <pre>{reason}</pre>
              </details>
            )
            : null}
          {record.note ? <div class="note">{String(record.note)}</div> : null}
          {record.error ? <pre class="error">{json(record.error, 2000)}</pre> : null}
        </>
      )}
    </div>
  );
};

/** A call in one line: its tool, its key arguments inline, and whether it errored or got no result. */
export const CallHead: FC<{ call: CallItem }> = ({ call }) => (
  <>
    <code class="tool">{call.tool ?? call.raw}</code>
    {call.keyArgs.map(([k, v]) => (
      <span class="arg">
        <span class="k">{k}</span>=<span class="v">{v}</span>
      </span>
    ))}
    {call.isError ? <span class="badge d-error">error</span> : null}
    {!call.answered ? <span class="badge">no result</span> : null}
  </>
);

export const GuardRecord: FC<{ record: LedgerRecord; would: boolean; overlay: string | null }> = (
  { record: r, would, overlay },
) => {
  const event = String(r.event);
  const who = would ? `replay (${overlay ?? "replay"}) would have: ` : "";
  if (event === "prompt" || event === "session-start") {
    return (
      <div class="record">
        <div class="head">
          {who}
          {event === "prompt" ? "prompt" : "session start"}
          {r.seat ? ` · seat ${r.seat}` : ""}
          {r.phase ? ` · phase ${r.phase}` : ""}
          {r.note ? ` (${r.note})` : ""}
        </div>
        {r.decision === "context" && r.reason
          ? (
            <details class="plan" open={event === "prompt"}>
              <summary>plan given to the agent</summary>
              <pre>{json(r.reason)}</pre>
            </details>
          )
          : null}
        {r.prompt && event === "prompt"
          ? (
            <details>
              <summary>task prompt as the guard saw it</summary>
              <pre>{json(r.prompt)}</pre>
            </details>
          )
          : null}
      </div>
    );
  }
  if (event === "stop") {
    return (
      <div class={`record stop d-${cls(r.decision)} ${would ? "would" : ""}`}>
        <div class="head">
          {who}stop gate <Decision value={r.decision} />
          {r.decision === "block" ? <span class="muted">the agent was sent back to work</span> : null}
          {r.decision === "release" ? <span class="muted">released with obligations open</span> : null}
        </div>
        {Array.isArray(r.obligations) && r.obligations.length
          ? <ul class="obligations">{r.obligations.map((o, i) => <li key={i}>{String(o)}</li>)}</ul>
          : null}
        {r.reason ? <pre class="reason">{json(r.reason, 4000)}</pre> : null}
        {r.note ? <div class="note">{String(r.note)}</div> : null}
      </div>
    );
  }
  if (event === "guard") {
    const gap =
      (r as unknown as { gap?: { since?: string; until?: string; missed?: number; tools?: string[] } })
        .gap;
    return (
      <div class={`record lifecycle d-${cls(r.decision)}`}>
        <div class="head">
          guard <Decision value={r.decision} />{" "}
          {String(r.decision) === "restart" ? "the guard came (back) up for this ledger" : ""}
          {String(r.decision) === "gap" ? "hook events were missed while no guard answered" : ""}
        </div>
        {gap
          ? (
            <div class="gap">
              {String(gap.since ?? "?")} – {String(gap.until ?? "?")}
              {typeof gap.missed === "number" ? ` · ${gap.missed} missed` : ""}
              {Array.isArray(gap.tools) && gap.tools.length ? ` · ${gap.tools.join(", ")}` : ""}
            </div>
          )
          : null}
        {r.note ? <div class="note">{String(r.note)}</div> : null}
      </div>
    );
  }
  if (event === "pre" || event === "post" || event === "post-fail") {
    return (
      <div class={`record d-${cls(r.decision)}`}>
        <div class="head">
          {who}
          {event} <code class="tool">{String(r.tool ?? "")}</code> <Decision value={r.decision} />
        </div>
        <GuardBox record={r} would={would ? overlay ?? "replay" : undefined} />
      </div>
    );
  }
  return (
    <div class={`record d-${cls(r.decision)}`}>
      <div class="head">
        {who}
        {event} <Decision value={r.decision} />
      </div>
      {r.error ? <pre class="error">{json(r.error, 2000)}</pre> : null}
      {r.note ? <div class="note">{String(r.note)}</div> : null}
    </div>
  );
};
