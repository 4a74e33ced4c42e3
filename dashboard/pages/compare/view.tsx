/**
 * The Compare page: two trials of one task side by side, their calls aligned (compare.ts) with the guard's
 * decision on each and a replay's would-be one, the first row where they part marked, and their checks.
 */
import type { Child, FC } from "hono/jsx";
import type { LedgerRecord } from "../../../lib/guard/engine/record.ts";
import type { Row } from "../../read/model.ts";
import { argumentDiff, type CheckPair, isCaseStep, type TrialStep } from "./model.ts";
import type { Alignment } from "./align.ts";
import { cls, Decision, Outcome, usd } from "../../ui/format.tsx";
import { CallHead } from "../../ui/guard.tsx";
import { entryHref } from "../../ui/links.ts";

/** The rule ids a record names, for a compact cell. */
function ruleIds(r: LedgerRecord): string[] {
  return (Array.isArray(r.rules) ? r.rules : []).map((h) => String(h?.id ?? "")).filter(Boolean);
}

/** One decision in a cell: quiet allows say nothing, anything else shows its badge and rules. */
const Verdict: FC<{ record: LedgerRecord | null; who: string }> = ({ record, who }) => {
  if (!record) return null;
  const d = String(record.decision);
  const rules = ruleIds(record);
  if (d === "allow" && !rules.length) return null;
  return (
    <div class={`verdict gd-${cls(d)}`} data-who={who}>
      <span class="who">{who}</span> <Decision value={d} /> {rules.join(" ")}
    </div>
  );
};

/** A link from a call to its place on its Trial page. */
function stepHref(row: Row, at: TrialStep, overlay: string | null): string {
  return entryHref(row.id, at.index, overlay);
}

/** The arguments this side gives differently from its aligned counterpart, field by field. */
const ArgDiff: FC<{ diff: [string, string | null][] }> = ({ diff }) =>
  diff.length
    ? (
      <ul class="argdiff">
        {diff.slice(0, 8).map(([path, value]) => (
          <li key={path}>
            <span class="k">{path}</span>{" "}
            {value === null ? <span class="muted">(absent)</span> : `= ${value}`}
          </li>
        ))}
        {diff.length > 8 ? <li class="muted">+{diff.length - 8} more</li> : null}
      </ul>
    )
    : null;

const Cell: FC<{ row: Row; at: TrialStep | null; overlay: string | null; diff?: [string, string | null][] }> =
  (
    { row, at, overlay, diff },
  ) => {
    if (!at) return <td class="gap-cell muted">—</td>;
    const link = (
      <a class="step-link" href={stepHref(row, at, overlay)}>
        {at.kind === "call" ? `step ${at.step + 1}` : "stop"}
      </a>
    );
    if (at.kind === "stop") {
      const obligations = Array.isArray(at.record.obligations) ? at.record.obligations.length : 0;
      return (
        <td class={`stop-cell ${at.would ? "would" : ""}`}>
          {link} {at.would ? `replay ${overlay ?? ""} would have: ` : ""}stop gate{" "}
          <Decision value={at.record.decision} />
          {obligations ? <span class="muted">{` · ${obligations} obligations open`}</span> : null}
        </td>
      );
    }
    const c = at.call;
    return (
      <td class={`call-cell ${c.guard ? `call-${cls(c.guard.decision)}` : ""}`}>
        {link} <CallHead call={c} />
        <ArgDiff diff={diff ?? []} />
        <Verdict record={c.guard} who="guard" />
        <Verdict record={c.would} who={`replay ${overlay ?? ""}`} />
      </td>
    );
  };

/** The aligned calls: `<table id="alignment">`, one row per aligned pair, the first divergence marked. */
export const AlignmentTable: FC<{
  a: Row;
  b: Row;
  alignment: Alignment<TrialStep>;
  overlay: string | null;
}> = ({ a, b, alignment, overlay }) => (
  <table id="alignment">
    <thead>
      <tr>
        <th>#</th>
        <th>A · {a.arm}</th>
        <th>B · {b.arm}</th>
      </tr>
    </thead>
    <tbody>
      {alignment.rows.map((r, i) => {
        const diff = r.a?.kind === "call" && r.b?.kind === "call" ? argumentDiff(r.a.args, r.b.args) : [];
        return (
          <tr
            id={`row-${i + 1}`}
            class={[
              r.a && r.b ? "same" : r.a ? "only-a" : "only-b",
              isCaseStep((r.a ?? r.b)!) ? "" : "local",
              i === alignment.first ? "diverge" : "",
              diff.length ? "args-differ" : "",
            ].filter(Boolean).join(" ")}
          >
            <td class="idx">
              {i + 1}
              {i === alignment.first ? <div class="badge warn">first divergence</div> : null}
              {diff.length ? <div class="badge args">arguments differ</div> : null}
            </td>
            <Cell row={a} at={r.a} overlay={overlay} diff={diff.map(([p, x]) => [p, x])} />
            <Cell row={b} at={r.b} overlay={overlay} diff={diff.map(([p, , y]) => [p, y])} />
          </tr>
        );
      })}
      {!alignment.rows.length
        ? (
          <tr>
            <td colspan={3} class="muted">Neither trial made a tool call.</td>
          </tr>
        )
        : null}
    </tbody>
  </table>
);

/** A check's verdict on one side. */
function checkText(v: boolean | null): string {
  return v === null ? "not scored" : v ? "passed" : "failed";
}

/** The checks failed on either side: `<table id="compare-checks">`. */
export const CheckTable: FC<{ pairs: CheckPair[]; passedBoth: number; a: Row; b: Row }> = (
  { pairs, passedBoth, a, b },
) => (
  <>
    <table id="compare-checks">
      <thead>
        <tr>
          <th>check</th>
          <th>A · {a.arm}</th>
          <th>B · {b.arm}</th>
        </tr>
      </thead>
      <tbody>
        {pairs.map((p) => (
          <tr data-check={p.id}>
            <td>
              <code>{p.id}</code>
            </td>
            <td>
              <span class={`badge ${p.a === null ? "" : p.a ? "passed" : "failed"}`}>{checkText(p.a)}</span>
            </td>
            <td>
              <span class={`badge ${p.b === null ? "" : p.b ? "passed" : "failed"}`}>{checkText(p.b)}</span>
            </td>
          </tr>
        ))}
        {!pairs.length
          ? (
            <tr>
              <td colspan={3} class="muted">No check failed on either side.</td>
            </tr>
          )
          : null}
      </tbody>
    </table>
    <p class="muted">{passedBoth} checks passed on both sides (not listed).</p>
  </>
);

/** What the page says of one side in its header. */
const Side: FC<{ label: string; row: Row; calls: number }> = ({ label, row, calls }) => (
  <td data-side={label}>
    <strong>{label}</strong> <a href={`/trials/${row.id}`}>{row.name}</a>
    <div>
      {row.arm} · <Outcome value={row.outcome} /> reward {row.reward ?? "—"} · {calls} calls ·{" "}
      {row.guarded ? `${row.blocks} blocks · ${row.shadows} shadow` : "no guard ledger"} · {usd(row.cost, 4)}
    </div>
  </td>
);

/** A step in words: a call's tool, or the stop gate's decision. */
function stepText(t: TrialStep): string {
  return t.kind === "call"
    ? `${t.call.tool ?? t.call.raw} (step ${t.step + 1})`
    : `${t.would ? "a replay's would-be " : ""}stop gate ${String(t.record.decision)}`;
}

/** What the first divergence is, in words: where the two trials' work on the case first parts. */
function divergenceText(alignment: Alignment<TrialStep>): string {
  const { rows, first } = alignment;
  const gaps = rows.some((r) => !r.a || !r.b);
  if (first < 0) {
    return gaps
      ? "The two trials made the same calls to the case tools, in the same order; only harness-local calls differ."
      : "The two trials made the same calls, in the same order.";
  }
  const r = rows[first];
  const what = r.a
    ? `A has ${stepText(r.a)} where B has no counterpart`
    : `B has ${stepText(r.b!)} where A has no counterpart`;
  const matched = rows.slice(0, first).filter((x) => x.a && x.b && isCaseStep(x.a)).length;
  const local = rows.slice(0, first).some((x) => !x.a || !x.b);
  return `Their work on the case first parts at row ${first + 1}, after ${matched} matching case ` +
    `${matched === 1 ? "call" : "calls"}: ${what}.` +
    (local ? " Harness-local calls (Read, Bash, ToolSearch…) differ before it and are not counted." : "");
}

/** The Compare page. */
export const ComparePage: FC<{
  a: Row;
  b: Row;
  alignment: Alignment<TrialStep>;
  calls: { a: number; b: number };
  checks: Child;
  overlay: string | null;
  overlays: string[];
  /** True when harness-local calls are shown (`?local=hide` hides them). */
  local: boolean;
  /** What the alignment could not hold (a ledger too big to merge). */
  notes: string[];
}> = ({ a, b, alignment, calls, checks, overlay, overlays, local, notes }) => {
  const href = (change: { replay?: string; local?: string }) => {
    const q = new URLSearchParams({ a: a.id, b: b.id, replay: overlay ?? "none" });
    if (!local) q.set("local", "hide");
    for (const [k, v] of Object.entries(change)) q.set(k, v);
    return `/compare?${q}`;
  };
  return (
    <>
      <h1>Compare</h1>
      <p class="muted summary">
        {a.task} · {a.domain}{" "}
        · calls aligned on tool and key arguments (a pair whose other arguments differ is marked, field by
        field), with the stop gate's holds ·{" "}
        <a href={`/compare?${new URLSearchParams({ a: b.id, b: a.id })}`}>swap sides</a>
      </p>
      <table id="sides">
        <tbody>
          <tr>
            <Side label="A" row={a} calls={calls.a} />
            <Side label="B" row={b} calls={calls.b} />
          </tr>
        </tbody>
      </table>
      <p id="divergence" class={alignment.first >= 0 ? "diverges" : ""}>
        {alignment.first >= 0 ? <a href={`#row-${alignment.first + 1}`}>{divergenceText(alignment)}</a> : (
          divergenceText(alignment)
        )}
        {alignment.exact
          ? ""
          : " The differing middle was too long to align exactly: its calls are listed A first, then B."}
      </p>
      {overlays.length
        ? (
          <p class="overlays">
            Replay overlay: <a href={href({ replay: "none" })} class={overlay ? "" : "active"}>none</a>
            {overlays.map((o) => (
              <>
                {" · "}
                <a href={href({ replay: o })} class={overlay === o ? "active" : ""}>{o}</a>
              </>
            ))}
            <span class="muted">— on each side that was replayed through that arm</span>
          </p>
        )
        : null}
      {notes.map((n) => <p key={n} class="notice big-ledger">{n}</p>)}
      <h2>Failed checks</h2>
      {checks}
      <h2>Calls</h2>
      <p class="overlays" id="local-calls">
        Harness-local calls (Read, Bash, ToolSearch…):{" "}
        <a href={href({ local: "show" })} class={local ? "active" : ""}>shown</a> ·{" "}
        <a href={href({ local: "hide" })} class={local ? "" : "active"}>hidden</a>
        <span class="muted">— aligned like the others, never counted as the divergence</span>
      </p>
      <AlignmentTable a={a} b={b} alignment={alignment} overlay={overlay} />
    </>
  );
};
