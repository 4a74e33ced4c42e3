/** The Trial page: its scorecard, and the timeline with each call's guard record (`#timeline`, paged). */
import type { Child, FC } from "hono/jsx";
import type { CheckInfo } from "../../../rules/catalog/checks.ts";
import type { RuleMeta } from "../../../lib/guard/engine/rule.ts";
import type { ReplayMark, Row } from "../../read/model.ts";
import type { CallItem, CheckLink, Item } from "../../read/transcript.ts";
import { cls, Cost, firstLines, json, kilo, Name, Outcome, time, usd } from "../../ui/format.tsx";
import { CallHead, GuardBox, GuardRecord, quietAllow } from "../../ui/guard.tsx";
import { entryHref, ITEMS_PER_PAGE } from "../../ui/links.ts";
import type { GuardFacts } from "../../../lib/results/guard_facts.ts";

/**
 * A replay's blocks on one trial, each with whether it came in time for the checks it protects, and each rule
 * linked to the step it would first have blocked (shown with that replay's overlay).
 */
const ReplayRules: FC<{ row: Row; m: ReplayMark; stepItems: ReadonlyMap<number, number> }> = (
  { row, m, stepItems },
) => {
  const v = m.verdict?.verdict;
  if (!v) return <>{m.rules.join(", ") || "stop gate"}</>;
  const parts = Object.entries(v.rules).map(([id, f]) => {
    const step = m.verdict?.steps[id];
    const at = step === undefined ? undefined : stepItems.get(step);
    const text = f.timing ? `${id}, ${f.timing}` : id;
    return at === undefined ? text : (
      <a class="step-link" href={entryHref(row.id, at, m.arm)}>
        {text} at step {step! + 1}
      </a>
    );
  });
  if (v.gate) parts.push(`stop gate${v.gate.timing ? `, ${v.gate.timing}` : ""}`);
  return <>{parts.flatMap((p, i) => (i ? ["; ", p] : [p]))}</>;
};

/** What the Trial page knows about rules and checks. */
export interface RuleBook {
  rules: readonly RuleMeta[];
  checks: readonly CheckInfo[];
}

const Metrics: FC<{ m: NonNullable<Extract<Item, { kind: "agent" }>["metrics"]> }> = ({ m }) => (
  <span class="metrics">
    {m.prompt !== null ? `in ${kilo(m.prompt)}` : ""}
    {m.cached !== null ? ` · cached ${kilo(m.cached)}` : ""}
    {m.completion !== null ? ` · out ${kilo(m.completion)}` : ""}
    {m.cost !== null ? ` · $${m.cost.toFixed(4)}` : ""}
  </span>
);

/** True when a denied call's result is the guard's block reason itself (shown once, in the guard's box). */
function blockedWith(call: CallItem): boolean {
  const reason = call.guard && String(call.guard.decision) === "deny" ? call.guard.reason : undefined;
  const first = typeof reason === "string" ? reason.split("\n").find((l) => l.trim())?.trim() : undefined;
  return !!first && call.result.includes(first);
}

const CallView: FC<{ call: CallItem; overlay: string | null }> = ({ call, overlay }) => {
  const d = call.guard ? cls(call.guard.decision) : "";
  const w = call.would ? cls(call.would.decision) : "";
  return (
    <div class={`call ${d ? `call-${d}` : ""} ${w === "deny" ? "would-deny" : ""}`} data-call={call.id}>
      <div class="head">
        <CallHead call={call} />
        {call.sidechain ? <span class="muted">(subagent)</span> : null}
        {call.guard && quietAllow(call.guard)
          ? (
            <span class="guard-ok">
              guard allowed{call.guard.latency_ms !== undefined ? ` · ${call.guard.latency_ms} ms` : ""}
            </span>
          )
          : null}
      </div>
      {call.guard && !quietAllow(call.guard) ? <GuardBox record={call.guard} /> : null}
      {call.would && (w !== "allow" || call.would.rules?.length)
        ? <GuardBox record={call.would} would={overlay ?? "replay"} />
        : null}
      {call.result && blockedWith(call)
        ? <div class="result muted">result: the block reason above, as the model read it</div>
        : call.result
        ? (
          <div class="result">
            <pre class="preview">{firstLines(call.result)}</pre>
            {call.result.length > firstLines(call.result).length
              ? (
                <details>
                  <summary>whole result ({call.result.length} characters)</summary>
                  <pre>{json(call.result, 20_000)}</pre>
                </details>
              )
              : null}
          </div>
        )
        : null}
      {Object.keys(call.input).length
        ? (
          <details class="args">
            <summary>arguments</summary>
            <pre>{json(call.input)}</pre>
          </details>
        )
        : null}
      {call.script
        ? (
          <details class="script">
            <summary>codex script</summary>
            <pre>{json(call.script, 20_000)}</pre>
          </details>
        )
        : null}
    </div>
  );
};

/** One transcript entry as a list item with a stable anchor. */
function itemView(item: Item, index: number, overlay: string | null): Child {
  const anchor = `item-${index}`;
  if (item.kind === "record") {
    return (
      <li id={anchor} class={`ev rec ev-${cls(item.record.event)} ${item.would ? "would" : ""}`}>
        <span class="time">{time(item.record.t)}</span>
        <GuardRecord record={item.record} would={item.would} overlay={overlay} />
      </li>
    );
  }
  if (item.kind === "prompt") {
    const first = item.text.split("\n").find((l) => l.trim()) ?? "";
    return (
      <li id={anchor} class="ev prompt">
        <div class="head">
          <span class="time">{time(item.t)}</span> task prompt
        </div>
        <div class="title">{first.replace(/^#+\s*/, "")}</div>
        <details>
          <summary>whole prompt ({item.text.length} characters)</summary>
          <pre>{json(item.text, 40_000)}</pre>
        </details>
      </li>
    );
  }
  if (item.kind === "system") {
    return (
      <li id={anchor} class="ev system">
        <details>
          <summary>
            <span class="time">{time(item.t)}</span> system · {firstLines(item.text, 1, 120)}
          </summary>
          <pre>{json(item.text, 20_000)}</pre>
        </details>
      </li>
    );
  }
  if (item.kind === "user") {
    return (
      <li id={anchor} class={`ev user ${item.feedback ? "feedback" : ""}`}>
        <div class="head">
          <span class="time">{time(item.t)}</span>{" "}
          {item.feedback ? "stop gate, as the agent read it" : "user message"}
        </div>
        <pre>{json(item.text, 8000)}</pre>
      </li>
    );
  }
  return (
    <li id={anchor} class="ev agent">
      <div class="head">
        <span class="time">{time(item.t)}</span> <span class="step">step {item.step + 1}</span>{" "}
        {item.metrics ? <Metrics m={item.metrics} /> : null}
      </div>
      {item.text ? <div class="text">{json(item.text, 6000)}</div> : null}
      {item.reasoning
        ? (
          <details class="reasoning">
            <summary>reasoning</summary>
            <pre>{json(item.reasoning, 12_000)}</pre>
          </details>
        )
        : null}
      {item.calls.map((c) => <CallView key={c.id} call={c} overlay={overlay} />)}
    </li>
  );
}

/** Said over the transcript when the chosen replay overlay has no records: the replay kept no ledgers. */
export const ReplayNotKept: FC<{ arm: string }> = ({ arm }) => (
  <p class="notice" id="replay-ledgers">
    Replay {arm} ran without{" "}
    <code>--ledgers</code>: its figures count on the Trials, Arms and Rules pages, but its decision on each
    call was not kept, so this transcript shows none. Rerun <code>deno task replay</code> with{" "}
    <code>--ledgers</code> (the same <code>--out</code>) to see them here.
  </p>
);

/** The transcript: `<ol id="timeline">` (one page of it), polling itself while the trial is live. */
export const Timeline: FC<{
  row: Row;
  items: readonly Item[];
  page: number;
  overlay: string | null;
  live: boolean;
  note?: string;
}> = ({ row, items, page, overlay, live, note }) => {
  const start = (page - 1) * ITEMS_PER_PAGE;
  const shown = items.slice(start, start + ITEMS_PER_PAGE);
  const q = new URLSearchParams();
  if (page > 1) q.set("page", String(page));
  if (overlay) q.set("replay", overlay);
  const poll = live
    ? {
      "hx-get": `/trials/${row.id}${q.size ? `?${q}` : ""}`,
      "hx-trigger": "every 1s",
      "hx-swap": "outerHTML",
    }
    : {};
  return (
    <ol id="timeline" start={start + 1} data-count={String(items.length)} {...poll}>
      {shown.map((item, i) => itemView(item, start + i, overlay))}
      {!items.length
        ? <li class="muted">{note ?? "No trajectory or guard ledger for this trial."}</li>
        : null}
    </ol>
  );
};

/** Links between pages of a long transcript. */
const TranscriptPager: FC<{ row: Row; total: number; page: number; overlay: string | null }> = (
  { row, total, page, overlay },
) => {
  const pages = Math.max(1, Math.ceil(total / ITEMS_PER_PAGE));
  if (pages <= 1) return null;
  const href = (p: number) => {
    const q = new URLSearchParams({ page: String(p) });
    if (overlay) q.set("replay", overlay);
    return `/trials/${row.id}?${q}`;
  };
  return (
    <nav class="pager">
      entries {(page - 1) * ITEMS_PER_PAGE + 1}–{Math.min(total, page * ITEMS_PER_PAGE)} of {total} ·{" "}
      {page > 1 ? <a href={href(page - 1)} rel="prev">‹ prev</a> : null} page {page} of {pages}{" "}
      {page < pages ? <a href={href(page + 1)} rel="next">next ›</a> : null}
    </nav>
  );
};

/** The scorecard column: failed checks with the rules that protect them and links to the steps involved. */
export const Scorecard: FC<{
  row: Row;
  book: RuleBook;
  links: Map<string, CheckLink[]>;
  /** Why the verifier failed each check (read/sources/explanations.ts), by check id. */
  explanations: ReadonlyMap<string, string>;
  /** A trajectory step's place on the transcript (its item index). */
  stepItems: ReadonlyMap<number, number>;
  overlay: string | null;
  recipe: string;
}> = ({ row, book, links, explanations, stepItems, overlay, recipe }) => {
  const href = (i: number) => entryHref(row.id, i, overlay);
  const replayRules = new Map(row.replays.map((m) => [m.arm, new Set(m.rules)]));
  return (
    <aside id="scorecard">
      <h2>Scorecard</h2>
      <p>
        <Outcome value={row.outcome} /> reward {row.reward ?? "—"}
      </p>
      {row.exception
        ? (
          <p class="error" id="exception">
            Harbor: <strong>{row.exception.type}</strong>
            {row.exception.message ? `: ${firstLines(row.exception.message, 2, 300)}` : ""}
          </p>
        )
        : null}
      <dl class="facts">
        <dt>cost ({recipe})</dt>
        <dd>
          <Cost
            value={row.cost}
            model={row.model}
            known={row.source === "trial" && row.outcome !== "running"}
            digits={4}
          />
        </dd>
        {row.reportedCost !== null
          ? (
            <>
              <dt>harness-reported</dt>
              <dd class="muted" title="the agent's own estimate; figures use the recipe">
                {usd(row.reportedCost, 4)} (not used in figures)
              </dd>
            </>
          )
          : null}
        <dt>tool calls</dt>
        <dd>{row.toolCalls ?? "—"}</dd>
        <dt>model</dt>
        <dd>{row.model ?? "—"}</dd>
      </dl>
      {row.facts ? <GuardFactsView facts={row.facts} /> : null}
      {row.replays.length
        ? (
          <div class="replays">
            <h3>Replay</h3>
            <ul>
              {row.replays.map((m) => (
                <li class={m.blocked ? "would" : ""}>
                  {m.arm}: {m.verdict && !m.verdict.verdict
                    ? `not observable (${m.verdict.unobservable}): counted in no replay figure`
                    : m.blocked
                    ? (
                      <>
                        would have blocked (<ReplayRules row={row} m={m} stepItems={stepItems} />)
                      </>
                    )
                    : "would not have blocked"}
                </li>
              ))}
            </ul>
          </div>
        )
        : null}
      <h3>Failed checks</h3>
      {row.failedChecks.length
        ? (
          <ul class="failed-checks">
            {row.failedChecks.map((id) => {
              const protectors = book.rules.filter((r) => r.protects.includes(id));
              const info = book.checks.find((c) => c.id === id);
              const at = links.get(id) ?? [];
              return (
                <li data-check={id}>
                  <code>
                    <Name text={id} />
                  </code>{" "}
                  {info ? <span class="muted">({info.kind}, preventable: {info.preventable})</span> : null}
                  {explanations.has(id) ? <div class="why">{explanations.get(id)}</div> : null}
                  <div>
                    {protectors.length
                      ? protectors.map((r) => {
                        const fired = row.rules.includes(r.id);
                        const would = [...replayRules].filter(([, s]) => s.has(r.id)).map(([a]) => a);
                        return (
                          <span class={`rule ${fired ? "fired" : ""} ${would.length ? "would" : ""}`}>
                            {r.id}{" "}
                            {fired ? "fired" : would.length ? `would fire (${would.join(", ")})` : "quiet"}
                          </span>
                        );
                      })
                      : <span class="muted">no rule protects it</span>}
                  </div>
                  {at.length
                    ? (
                      <div class="steps">
                        at{" "}
                        {at.slice(0, 10).map((l) => (
                          <a key={l.index} class="step-link" href={href(l.index)}>{l.label}</a>
                        ))}
                        {at.length > 10 ? ` +${at.length - 10} more` : ""}
                      </div>
                    )
                    : null}
                </li>
              );
            })}
          </ul>
        )
        : <p class="muted">{row.scorecard ? "No failed checks." : "No scorecard."}</p>}
    </aside>
  );
};

const ENDING_LABEL: Record<NonNullable<Row["ending"]>, string> = {
  stop: "the agent stopped",
  api_error: "ended on an API error (StopFailure)",
};

/** The guard's facts from result.json: what a packet keeps of the guard in place of its ledgers. */
export const GuardFactsView: FC<{ facts: GuardFacts }> = ({ facts: f }) => {
  const short = (x: string | null) => x ? x.slice(0, 12) : "unknown";
  const blocks = Object.entries(f.blocks_by_rule).sort((a, b) => b[1] - a[1]).map(([id, n]) => `${id} ${n}`);
  const errors = Object.entries(f.api_errors).map(([kind, n]) => `${kind} ${n}`);
  return (
    <div class="guard-facts" id="guard-facts">
      <h3>Guard facts (result.json)</h3>
      <dl class="facts">
        <dt>arm</dt>
        <dd>{f.arm}</dd>
        <dt>hooks</dt>
        <dd>{f.hooks} ({f.hooks_reason})</dd>
        <dt>guard</dt>
        <dd title={`bundle sha256 ${f.guard.bundle_sha256 ?? "unknown"}`}>{short(f.guard.commit)}</dd>
        <dt>rule set</dt>
        <dd title={f.rules.ids.join(", ")}>{f.rules.ids.length} ids · {short(f.rules.digest)}</dd>
        <dt>Claude Code</dt>
        <dd>{f.claude_code ?? "unknown"}</dd>
        <dt>coverage</dt>
        <dd>{f.coverage ? `${f.coverage.covered} of ${f.coverage.calls} χ-World calls` : "no trajectory"}</dd>
        <dt>plan</dt>
        <dd>{f.plan_injected === null ? "—" : f.plan_injected ? "reached the model" : "never reached"}</dd>
        <dt>blocks</dt>
        <dd>{blocks.length ? blocks.join(", ") : "none"}</dd>
        <dt>stop-gate holds</dt>
        <dd>{f.stop_gate.holds}</dd>
        <dt>fail-open</dt>
        <dd>{f.fail_open}</dd>
        <dt>ending</dt>
        <dd>
          {f.ending === "none" ? "none recorded" : ENDING_LABEL[f.ending]}
          {errors.length ? ` (${errors.join(", ")})` : ""}
        </dd>
        <dt>call time</dt>
        <dd>{f.tool_ms ? `median ${f.tool_ms.median} ms, p95 ${f.tool_ms.p95} ms` : "—"}</dd>
      </dl>
    </div>
  );
};

const SOURCE_LABEL: Record<Row["source"], string> = {
  trial: "trial folder",
  live: "guard ledger, no trial folder yet",
  ingest: "records posted live",
};

/** The Trial page: transcript beside the scorecard. */
export const TrialPage: FC<{
  row: Row;
  timeline: Child;
  scorecard: Child;
  total: number;
  page: number;
  overlay: string | null;
  overlays: string[];
  banner?: Child;
  /** The "Compare with" line: the other trials of this task. */
  compare?: Child;
}> = ({ row, timeline, scorecard, total, page, overlay, overlays, banner, compare }) => (
  <>
    <h1>
      <Name text={row.name} />
    </h1>
    <p class="muted summary">
      {row.arm} · {row.task} · {row.domain} · {SOURCE_LABEL[row.source]}
      {row.guarded && row.source !== "ingest"
        ? (
          <>
            {" · "}
            <a href={`/trials/${row.id}/ledger`} id="ledger-link">guard ledger</a>
          </>
        )
        : row.guarded
        ? ""
        : row.facts
        ? " (guard facts in result.json, no ledger)"
        : " (no guard ledger)"}
      {row.ending ? ` · ${ENDING_LABEL[row.ending]}` : ""}
      {row.seat ? ` · seat ${row.seat}` : ""} · {row.blocks} blocks · {row.shadows} shadow · {row.releases}
      {" "}
      releases
      {row.errors ? ` · ${row.errors} fail-open errors` : ""}
      {row.gaps ? ` · ${row.gaps} gaps` : ""}
      {row.restarts ? ` · ${row.restarts} guard restarts` : ""}
    </p>
    {compare}
    {overlays.length
      ? (
        <p class="overlays">
          Replay overlay: <a href={`/trials/${row.id}?replay=none`} class={overlay ? "" : "active"}>none</a>
          {overlays.map((a) => (
            <>
              {" · "}
              <a
                href={`/trials/${row.id}?replay=${encodeURIComponent(a)}`}
                class={overlay === a ? "active" : ""}
              >
                {a}
              </a>
            </>
          ))}
          <span class="muted">— what the guard would have decided had this arm run on this trial</span>
        </p>
      )
      : null}
    {banner}
    <div class="trial">
      <section id="transcript">
        <h2>Transcript</h2>
        <TranscriptPager row={row} total={total} page={page} overlay={overlay} />
        {timeline}
        <TranscriptPager row={row} total={total} page={page} overlay={overlay} />
      </section>
      {scorecard}
    </div>
  </>
);
