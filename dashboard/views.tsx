/**
 * Dashboard pages and their fragments (locality of behaviour): each fragment is a component rendering one
 * element with a stable id, which the page embeds and the route returns alone for htmx. Every value from a
 * trajectory or ledger goes through JSX escaping; nothing here uses raw HTML.
 */
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import type { LedgerRecord } from "../lib/ledger.ts";
import type { CheckInfo } from "../rules/checks.ts";
import type { RuleMeta } from "../lib/rule.ts";
import type { ToolEvent } from "../lib/atif.ts";
import type { AggregateFile, ArmSummary, Row } from "./store.ts";
import type { Hit } from "./search.ts";
import type { HandbookHit } from "../lib/handbook.ts";

/** Formats a 0–1 rate as a percentage. */
export function pct(v: number | null | undefined): string {
  return v === null || v === undefined || Number.isNaN(v) ? "—" : `${(v * 100).toFixed(1)}%`;
}

function usd(v: number | null): string {
  return v === null ? "—" : `$${v.toFixed(2)}`;
}

function num(v: number | null, digits = 1): string {
  return v === null ? "—" : v.toFixed(digits);
}

function json(v: unknown, max = 6000): string {
  let s: string;
  try {
    s = typeof v === "string" ? v : JSON.stringify(v, null, 2) ?? "";
  } catch {
    s = String(v);
  }
  return s.length > max ? s.slice(0, max) + "…" : s;
}

const NAV = [
  ["/", "Arms"],
  ["/trials", "Trials"],
  ["/rules", "Rules"],
  ["/live", "Live"],
  ["/handbook", "Handbook"],
] as const;

/** The full page around a body: nav, search box, htmx from /static. */
export const Layout: FC<PropsWithChildren<{ title: string; active?: string }>> = (
  { title, active, children },
) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta
        name="htmx-config"
        content='{"allowEval":false,"includeIndicatorStyles":false,"allowScriptTags":false}'
      />
      <title>{title} · fiable dashboard</title>
      <link rel="stylesheet" href="/static/app.css" />
      <script src="/static/htmx.min.js"></script>
    </head>
    <body>
      <header>
        <strong class="brand">fiable</strong>
        <nav>
          {NAV.map(([href, label]) => (
            <a key={href} href={href} class={active === label ? "active" : ""}>{label}</a>
          ))}
        </nav>
        <form action="/search" method="get" class="search" role="search">
          <input
            type="search"
            name="q"
            placeholder="Search trials, rules, checks, tools…"
            aria-label="Search"
            hx-get="/search"
            hx-trigger="input changed delay:300ms, search"
            hx-target="#search-results"
            hx-swap="outerHTML"
            autocomplete="off"
          />
          <SearchResults hits={[]} query="" />
        </form>
      </header>
      <main>{children}</main>
    </body>
  </html>
);

/** Search hits: `<ul id="search-results">`. */
export const SearchResults: FC<{ hits: Hit[]; query: string }> = ({ hits, query }) => (
  <ul id="search-results" class={query ? "results open" : "results"}>
    {query && !hits.length ? <li class="muted">No trial matches “{query}”.</li> : null}
    {hits.map(({ row }) => (
      <li>
        <a href={`/trials/${row.id}`}>{row.name}</a> <span class="muted">{row.arm} · {row.domain}</span>{" "}
        <Outcome value={row.outcome} />
      </li>
    ))}
  </ul>
);

/** The search page for a plain (non-htmx) request: the query and its hits. */
export const SearchPage: FC<{ hits: Hit[]; query: string }> = ({ hits, query }) => (
  <Layout title="Search">
    <h1>Search: {query}</h1>
    <ul class="hits">
      {hits.map(({ row }) => (
        <li>
          <a href={`/trials/${row.id}`}>{row.name}</a> <span class="muted">{row.arm} · {row.domain}</span>
          {" "}
          <Outcome value={row.outcome} />
        </li>
      ))}
    </ul>
    {!hits.length ? <p class="muted">No trial matches “{query}”.</p> : null}
  </Layout>
);

const Outcome: FC<{ value: string }> = ({ value }) => <span class={`badge ${value}`}>{value}</span>;

const Decision: FC<{ value: string }> = ({ value }) => <span class={`badge d-${value}`}>{value}</span>;

// ---------- Arms ----------

function whisker(
  est: { value: number | null; lo: number | null; hi: number | null },
  x: number,
  y: (v: number) => number,
) {
  if (est.value === null) return null;
  return (
    <g>
      {est.lo !== null && est.hi !== null
        ? <line x1={x} x2={x} y1={y(est.lo)} y2={y(est.hi)} stroke="#222" stroke-width="1.5" />
        : null}
      {est.lo !== null ? <line x1={x - 5} x2={x + 5} y1={y(est.lo)} y2={y(est.lo)} stroke="#222" /> : null}
      {est.hi !== null ? <line x1={x - 5} x2={x + 5} y1={y(est.hi)} y2={y(est.hi)} stroke="#222" /> : null}
    </g>
  );
}

const COLORS = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2"];

/** SVG bars: pass@1 and pass^k per arm with bootstrap CI whiskers. */
export const PassChart: FC<{ arms: ArmSummary[] }> = ({ arms }) => {
  const metrics = ["pass@1", ...new Set(arms.flatMap((a) => a.passK.map((p) => `pass^${p.k}`)))];
  const W = 90 * metrics.length * Math.max(arms.length, 1) + 60, H = 220, top = 10, bottom = 190;
  const y = (v: number) => bottom - v * (bottom - top);
  const bw = 28;
  return (
    <svg
      id="pass-chart"
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
      role="img"
      aria-label="pass@1 and pass^k per arm"
    >
      {[0, 0.25, 0.5, 0.75, 1].map((t) => (
        <g>
          <line x1="40" x2={W} y1={y(t)} y2={y(t)} stroke="#ddd" />
          <text x="4" y={y(t) + 4} font-size="10">{pct(t)}</text>
        </g>
      ))}
      {metrics.map((m, mi) =>
        arms.map((a, ai) => {
          const est = m === "pass@1" ? a.pass1 : a.passK.find((p) => `pass^${p.k}` === m)?.est;
          const x = 50 + mi * (arms.length * bw + 40) + ai * bw;
          if (!est || est.value === null) return null;
          return (
            <g>
              <rect
                x={x}
                y={y(est.value)}
                width={bw - 4}
                height={bottom - y(est.value)}
                fill={COLORS[ai % COLORS.length]}
              >
                <title>{`${a.arm} ${m}: ${pct(est.value)} [${pct(est.lo)}, ${pct(est.hi)}]`}</title>
              </rect>
              {whisker(est, x + (bw - 4) / 2, y)}
            </g>
          );
        })
      )}
      {metrics.map((m, mi) => (
        <text key={m} x={50 + mi * (arms.length * bw + 40)} y={H - 12} font-size="11">{m}</text>
      ))}
    </svg>
  );
};

/** SVG scatter: mean cost per trial against pass@1, one point per arm. */
export const CostChart: FC<{ arms: ArmSummary[] }> = ({ arms }) => {
  const W = 360, H = 220, left = 50, right = 340, top = 10, bottom = 190;
  const maxCost = Math.max(0.01, ...arms.map((a) => a.cost ?? 0)) * 1.15;
  const x = (c: number) => left + (c / maxCost) * (right - left);
  const y = (v: number) => bottom - v * (bottom - top);
  return (
    <svg
      id="cost-chart"
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
      role="img"
      aria-label="cost per trial against pass@1"
    >
      <line x1={left} x2={right} y1={bottom} y2={bottom} stroke="#999" />
      <line x1={left} x2={left} y1={top} y2={bottom} stroke="#999" />
      <text x={left} y={H - 8} font-size="11">cost per trial (USD) → max {usd(maxCost)}</text>
      <text x="2" y={top + 8} font-size="10">pass@1</text>
      {arms.map((a, i) =>
        a.cost === null || a.pass1.value === null ? null : (
          <g>
            {whisker(a.pass1, x(a.cost), y)}
            <circle cx={x(a.cost)} cy={y(a.pass1.value)} r="6" fill={COLORS[i % COLORS.length]}>
              <title>{`${a.arm}: ${usd(a.cost)} per trial, pass@1 ${pct(a.pass1.value)}`}</title>
            </circle>
            <text x={x(a.cost) + 9} y={y(a.pass1.value) + 4} font-size="11">{a.arm}</text>
          </g>
        )
      )}
    </svg>
  );
};

function field(o: Record<string, unknown>, key: string): unknown {
  return o[key];
}

function ci(o: unknown): string {
  const e = (o ?? {}) as { value?: number | null; lo?: number | null; hi?: number | null };
  return `${pct(e.value)} [${pct(e.lo)}, ${pct(e.hi)}]`;
}

function numOrDash(v: unknown, digits = 2): string {
  return typeof v === "number" && Number.isFinite(v) ? v.toFixed(digits) : "—";
}

/** aggregate.ts results: per arm × domain rows and the paired comparisons against the control. */
export const AggregateTables: FC<{ files: AggregateFile[] }> = ({ files }) => (
  <>
    {files.map((f) => (
      <section class="aggregate">
        <h2>aggregate.ts: {f.path}</h2>
        <table>
          <thead>
            <tr>
              <th>arm</th>
              <th>domain</th>
              <th>trials</th>
              <th>tasks</th>
              <th>pass@1 [95% CI]</th>
              <th>mean cost (USD)</th>
              <th>
                mean walltime (s)
              </th>
            </tr>
          </thead>
          <tbody>
            {f.rows.map((r) => (
              <tr>
                <td>{String(field(r, "arm") ?? field(r, "submission_id") ?? "")}</td>
                <td>{String(field(r, "domain") ?? "")}</td>
                <td>{String(field(r, "n_trials") ?? "")}</td>
                <td>{String(field(r, "n_tasks") ?? "")}</td>
                <td>{ci(field(r, "pass_at_1_ci") ?? { value: field(r, "pass_at_1") })}</td>
                <td>{numOrDash(field(r, "mean_cost_usd"))}</td>
                <td>{numOrDash(field(r, "mean_walltime_s"), 1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {f.comparisons.length
          ? (
            <table class="comparisons">
              <thead>
                <tr>
                  <th>arm vs control</th>
                  <th>domain</th>
                  <th>Δ pass@1 [95% CI]</th>
                  <th>shared tasks</th>
                  <th>gained / lost</th>
                  <th>McNemar p</th>
                </tr>
              </thead>
              <tbody>
                {f.comparisons.map((c) => (
                  <tr>
                    <td>{String(field(c, "arm"))} vs {String(field(c, "control"))}</td>
                    <td>{String(field(c, "domain") ?? "")}</td>
                    <td>
                      {typeof c.diff === "number" ? `${(c.diff * 100).toFixed(1)} pts` : "—"}{" "}
                      [{pct(c.lo as number)}, {pct(c.hi as number)}]
                    </td>
                    <td>{String(field(c, "n_shared") ?? "")}</td>
                    <td>
                      {Array.isArray(c.gained) ? c.gained.length : 0} /{" "}
                      {Array.isArray(c.lost) ? c.lost.length : 0}
                    </td>
                    <td>{numOrDash(field(c, "p_mcnemar"), 3)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
          : null}
      </section>
    ))}
  </>
);

/** The Arms page: per-arm table with CIs and paired differences, then the charts. */
export const ArmsPage: FC<{ arms: ArmSummary[]; rows: number; aggregates?: AggregateFile[] }> = (
  { arms, rows, aggregates },
) => (
  <Layout title="Arms" active="Arms">
    <h1>Arms</h1>
    <p class="muted">
      Computed live from the scored trials below the --logs roots (replays excluded); aggregate.ts results
      from --results follow the charts.
    </p>
    {!arms.length ? <p class="muted">No scored trials yet ({rows} rows). Point --logs at trial trees.</p> : (
      <>
        <table id="arms">
          <thead>
            <tr>
              <th>arm</th>
              <th>trials</th>
              <th>tasks</th>
              <th>pass@1 [95% CI]</th>
              <th>pass^k</th>
              <th>Δ pass@1 vs control [95% CI]</th>
              <th>cost / trial</th>
              <th>tool calls</th>
              <th>blocks</th>
            </tr>
          </thead>
          <tbody>
            {arms.map((a) => (
              <tr>
                <td>
                  <a href={`/trials?arm=${encodeURIComponent(a.arm)}`}>{a.arm}</a>
                  {a.control ? " (control)" : ""}
                </td>
                <td>{a.trials}</td>
                <td>{a.tasks}</td>
                <td>{pct(a.pass1.value)} [{pct(a.pass1.lo)}, {pct(a.pass1.hi)}]</td>
                <td>{a.passK.map((p) => `^${p.k} ${pct(p.est.value)}`).join(", ") || "—"}</td>
                <td>
                  {a.diff
                    ? `${a.diff.diff === null ? "—" : (a.diff.diff * 100).toFixed(1) + " pts"} [${
                      pct(a.diff.lo)
                    }, ${pct(a.diff.hi)}] on ${a.diff.n_shared} tasks`
                    : "—"}
                </td>
                <td>{usd(a.cost)}</td>
                <td>{num(a.toolCalls)}</td>
                <td>{a.blocks}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div class="charts">
          <figure>
            <PassChart arms={arms} />
            <figcaption>pass@1 and pass^k per arm, 95% task bootstrap CI</figcaption>
          </figure>
          <figure>
            <CostChart arms={arms} />
            <figcaption>cost per trial against pass@1</figcaption>
          </figure>
        </div>
      </>
    )}
    {aggregates?.length ? <AggregateTables files={aggregates} /> : null}
  </Layout>
);

// ---------- Trials ----------

/** Filter values for the Trials page. */
export interface TrialFilter {
  arm?: string;
  domain?: string;
  outcome?: string;
  rule?: string;
}

/** The trial list's rows: `<tbody id="trials-rows">`. */
export const TrialRows: FC<{ rows: readonly Row[]; total: number }> = ({ rows, total }) => (
  <tbody id="trials-rows" data-count={String(rows.length)}>
    {rows.map((r) => (
      <tr>
        <td>
          <a href={`/trials/${r.id}`} class="trial-link">{r.name}</a>
        </td>
        <td>{r.arm}</td>
        <td>{r.domain}</td>
        <td>
          <Outcome value={r.outcome} />
        </td>
        <td>{usd(r.cost)}</td>
        <td>{r.toolCalls ?? "—"}</td>
        <td>{r.blocks}{r.shadows ? ` (+${r.shadows} shadow)` : ""}</td>
        <td>{r.rules.join(" ")}</td>
      </tr>
    ))}
    {rows.length < total
      ? (
        <tr>
          <td colspan={8} class="muted">{rows.length} of {total} shown; narrow the filter.</td>
        </tr>
      )
      : null}
  </tbody>
);

const Select: FC<{ name: string; values: string[]; value?: string }> = ({ name, values, value }) => (
  <label>
    {name}{" "}
    <select name={name}>
      <option value="">all</option>
      {values.map((v) => <option key={v} value={v} selected={v === value}>{v}</option>)}
    </select>
  </label>
);

/** The Trials page: filters and the list. */
export const TrialsPage: FC<
  { rows: readonly Row[]; total: number; filter: TrialFilter; options: Record<string, string[]> }
> = (
  { rows, total, filter, options },
) => (
  <Layout title="Trials" active="Trials">
    <h1>Trials</h1>
    <form
      id="filters"
      action="/trials"
      method="get"
      hx-get="/trials"
      hx-trigger="change"
      hx-target="#trials-rows"
      hx-swap="outerHTML"
      hx-push-url="true"
    >
      <Select name="arm" values={options.arm} value={filter.arm} />
      <Select name="domain" values={options.domain} value={filter.domain} />
      <Select name="outcome" values={options.outcome} value={filter.outcome} />
      <Select name="rule" values={options.rule} value={filter.rule} />
      <noscript>
        <button type="submit">Filter</button>
      </noscript>
    </form>
    <table id="trials">
      <thead>
        <tr>
          <th>trial</th>
          <th>arm</th>
          <th>domain</th>
          <th>outcome</th>
          <th>cost</th>
          <th>tool calls</th>
          <th>blocks</th>
          <th>rules</th>
        </tr>
      </thead>
      <TrialRows rows={rows} total={total} />
    </table>
  </Layout>
);

// ---------- Trial ----------

/** What the Trial page knows about rules and checks. */
export interface RuleBook {
  rules: readonly RuleMeta[];
  checks: readonly CheckInfo[];
}

const Hits: FC<{ record: LedgerRecord }> = ({ record }) => (
  <>
    {(record.rules ?? []).map((h) => (
      <div class="hit">
        <strong>{h.id}</strong>
        {h.checks?.length ? <span class="checks">{` → ${h.checks.join(", ")}`}</span> : null}
        <div class="msg">{h.message}</div>
      </div>
    ))}
  </>
);

const Votes: FC<{ record: LedgerRecord }> = ({ record }) =>
  record.votes?.length
    ? (
      <table class="votes">
        <tbody>
          {record.votes.map((v) => (
            <tr>
              <td>{v.judge}</td>
              <td>{v.object ? "objects" : "accepts"}</td>
              <td>{v.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )
    : null;

function Pre(props: { record: LedgerRecord; post?: LedgerRecord }): Child {
  const { record, post } = props;
  return (
    <li class={`ev call d-${record.decision}`}>
      <div class="head">
        <span class="time">{record.t?.slice(11, 19)}</span> <code class="tool">{record.tool}</code>{" "}
        <Decision value={record.decision} />
        {record.case ? <span class="muted">{` case ${record.case}`}</span> : null}
        {record.latency_ms !== undefined ? <span class="muted">{` · ${record.latency_ms} ms`}</span> : null}
        {record.first_block ? <span class="badge first">first block</span> : null}
      </div>
      <Hits record={record} />
      <Votes record={record} />
      {record.note ? <div class="note">{record.note}</div> : null}
      <details>
        <summary>arguments</summary>
        <pre>{json(record.input)}</pre>
      </details>
      {post
        ? (
          <details>
            <summary>{post.event === "post-fail" ? "error" : "result"}</summary>
            <pre>{json(post.event === "post-fail" ? post.error : post.result)}</pre>
          </details>
        )
        : null}
    </li>
  );
}

function ledgerItems(records: readonly LedgerRecord[]): Child[] {
  const posts = new Map<string, LedgerRecord>();
  const pres = new Set<string>();
  for (const r of records) {
    if ((r.event === "post" || r.event === "post-fail") && r.tool_use_id) posts.set(r.tool_use_id, r);
    if (r.event === "pre" && r.tool_use_id) pres.add(r.tool_use_id);
  }
  const items: Child[] = [];
  for (const r of records) {
    if (r.event === "pre") {
      items.push(<Pre record={r} post={r.tool_use_id ? posts.get(r.tool_use_id) : undefined} />);
    } else if (r.event === "post" || r.event === "post-fail") {
      if (r.tool_use_id && pres.has(r.tool_use_id)) continue;
      items.push(
        <li class="ev result">
          <div class="head">
            <span class="time">{r.t?.slice(11, 19)}</span> <code class="tool">{r.tool}</code> {r.event}
          </div>
          <details>
            <summary>{r.event === "post-fail" ? "error" : "result"}</summary>
            <pre>{json(r.event === "post-fail" ? r.error : r.result)}</pre>
          </details>
        </li>,
      );
    } else if (r.event === "prompt") {
      items.push(
        <li class="ev prompt">
          <div class="head">
            <span class="time">{r.t?.slice(11, 19)}</span> prompt · seat {r.seat ?? "?"} · phase{" "}
            {r.phase ?? "?"}
          </div>
          {r.prompt
            ? (
              <details>
                <summary>task prompt</summary>
                <pre>{json(r.prompt)}</pre>
              </details>
            )
            : null}
          {r.decision === "context" && r.reason
            ? (
              <details class="plan" open>
                <summary>plan given to the agent</summary>
                <pre>{r.reason}</pre>
              </details>
            )
            : null}
        </li>,
      );
    } else if (r.event === "session-start") {
      items.push(
        <li class="ev start">
          <div class="head">
            <span class="time">{r.t?.slice(11, 19)}</span> session start {r.note ? `(${r.note})` : ""}
          </div>
          {r.decision === "context" && r.reason
            ? (
              <details class="plan">
                <summary>plan given to the agent</summary>
                <pre>{r.reason}</pre>
              </details>
            )
            : null}
        </li>,
      );
    } else if (r.event === "stop") {
      items.push(
        <li class={`ev stop d-${r.decision}`}>
          <div class="head">
            <span class="time">{r.t?.slice(11, 19)}</span> stop gate <Decision value={r.decision} />
          </div>
          {r.obligations?.length
            ? <ul class="obligations">{r.obligations.map((o) => <li key={o}>{o}</li>)}</ul>
            : null}
          {r.reason ? <pre class="reason">{r.reason}</pre> : null}
          {r.note ? <div class="note">{r.note}</div> : null}
        </li>,
      );
    } else {
      items.push(
        <li class={`ev d-${r.decision}`}>
          <div class="head">
            <span class="time">{r.t?.slice(11, 19)}</span> {r.event} <Decision value={r.decision} />
          </div>
          {r.error ? <pre>{r.error}</pre> : null}
          {r.note ? <div class="note">{r.note}</div> : null}
        </li>,
      );
    }
  }
  return items;
}

function trajectoryItems(prompt: string, calls: ToolEvent[]): Child[] {
  const items: Child[] = [];
  if (prompt) {
    items.push(
      <li class="ev prompt">
        <div class="head">prompt</div>
        <details>
          <summary>task prompt</summary>
          <pre>{json(prompt)}</pre>
        </details>
      </li>,
    );
  }
  for (const c of calls) {
    items.push(
      <li class={`ev call ${c.isError ? "d-error" : ""}`}>
        <div class="head">
          <code class="tool">{c.tool ?? c.raw}</code>{" "}
          {c.isError ? <span class="badge d-error">error</span> : null}
          {c.sidechain ? <span class="muted">(subagent)</span> : null}
        </div>
        <details>
          <summary>arguments</summary>
          <pre>{json(c.input)}</pre>
        </details>
        <details>
          <summary>result</summary>
          <pre>{json(c.text, 4000)}</pre>
        </details>
      </li>,
    );
  }
  return items;
}

/** The trial timeline: `<ol id="timeline">`, polling itself while the trial's ledger is live. */
export const Timeline: FC<{
  row: Row;
  records: readonly LedgerRecord[];
  prompt?: string;
  calls?: ToolEvent[];
  live: boolean;
}> = ({ row, records, prompt, calls, live }) => (
  <ol
    id="timeline"
    data-count={String(records.length)}
    {...(live ? { "hx-get": `/trials/${row.id}`, "hx-trigger": "every 1s", "hx-swap": "outerHTML" } : {})}
  >
    {records.length ? ledgerItems(records) : trajectoryItems(prompt ?? "", calls ?? [])}
    {!records.length && !calls?.length
      ? <li class="muted">No ledger or trajectory for this trial.</li>
      : null}
  </ol>
);

/** The scorecard column: each failed check with the rules that protect it (and whether they fired here). */
export const Scorecard: FC<{ row: Row; book: RuleBook }> = ({ row, book }) => (
  <aside id="scorecard">
    <h2>Scorecard</h2>
    <p>
      <Outcome value={row.outcome} /> reward {row.reward ?? "—"} · cost {usd(row.cost)} · tool calls{" "}
      {row.toolCalls ?? "—"}
    </p>
    {row.failedChecks.length
      ? (
        <ul class="failed">
          {row.failedChecks.map((id) => {
            const protectors = book.rules.filter((r) => r.protects.includes(id));
            const info = book.checks.find((c) => c.id === id);
            return (
              <li>
                <code>{id}</code>{" "}
                {info ? <span class="muted">({info.kind}, preventable: {info.preventable})</span> : null}
                <div>
                  {protectors.length
                    ? protectors.map((r) => (
                      <span class={`rule ${row.rules.includes(r.id) ? "fired" : ""}`}>
                        {r.id} {row.rules.includes(r.id) ? "fired" : "did not fire"}
                      </span>
                    ))
                    : <span class="muted">no rule protects it</span>}
                </div>
              </li>
            );
          })}
        </ul>
      )
      : <p class="muted">{row.scorecard ? "No failed checks." : "No scorecard."}</p>}
  </aside>
);

const SOURCE_LABEL: Record<Row["source"], string> = {
  trial: "trial dir, no ledger",
  live: "guard ledger",
  replay: "replay ledger",
  ingest: "ingested live",
};

/** The Trial page: timeline beside the scorecard. */
export const TrialPage: FC<{ row: Row; book: RuleBook; timeline: Child }> = ({ row, book, timeline }) => (
  <Layout title={row.name} active="Trials">
    <h1>{row.name}</h1>
    <p class="muted">
      {row.arm} · {row.domain} · {SOURCE_LABEL[row.source]}
      {row.seat ? ` · seat ${row.seat}` : ""} · {row.blocks} blocks · {row.shadows} shadow · {row.releases}
      {" "}
      releases
      {row.errors ? ` · ${row.errors} fail-open errors` : ""}
    </p>
    <div class="trial">
      <section>
        <h2>Timeline</h2>
        {timeline}
      </section>
      <Scorecard row={row} book={book} />
    </div>
  </Layout>
);

// ---------- Rules ----------

/** Fires of one rule across rows. */
export interface RuleFires {
  id: string;
  name: string;
  seat: string;
  protects: string[];
  failed: number;
  passed: number;
  other: number;
}

/** The Rules page: fires per rule in failed and passed trials, then the check coverage map. */
export const RulesPage: FC<
  {
    fires: RuleFires[];
    checks: readonly CheckInfo[];
    rules: readonly RuleMeta[];
    failures: Map<string, number>;
  }
> = (
  { fires, checks, rules, failures },
) => (
  <Layout title="Rules" active="Rules">
    <h1>Rules</h1>
    <table id="rule-fires">
      <thead>
        <tr>
          <th>rule</th>
          <th>seat</th>
          <th>fires in failed trials</th>
          <th>fires in passed trials</th>
          <th>unscored</th>
          <th>protects</th>
        </tr>
      </thead>
      <tbody>
        {fires.map((f) => (
          <tr>
            <td>
              <a href={`/trials?rule=${encodeURIComponent(f.id)}`}>{f.id}</a>{" "}
              <span class="muted">{f.name}</span>
            </td>
            <td>{f.seat}</td>
            <td>{f.failed}</td>
            <td>{f.passed}</td>
            <td>{f.other}</td>
            <td class="checks">{f.protects.join(", ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
    <h2>Coverage of verifier checks</h2>
    <table id="coverage">
      <thead>
        <tr>
          <th>check</th>
          <th>stage</th>
          <th>kind</th>
          <th>preventable</th>
          <th>failed in</th>
          <th>protected by</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c) => {
          const by = rules.filter((r) => r.protects.includes(c.id)).map((r) => r.id);
          return (
            <tr class={by.length ? "covered" : c.preventable === "yes" ? "gap" : ""}>
              <td>
                <code>{c.id}</code>
              </td>
              <td>{c.stage}</td>
              <td>{c.kind}</td>
              <td>{c.preventable}</td>
              <td>{failures.get(c.id) ?? 0}</td>
              <td>{by.join(" ") || "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  </Layout>
);

// ---------- Live ----------

/** Live rows: `<tbody id="live-rows">`, polling every second and swapping itself in place. */
export const LiveRows: FC<{ rows: readonly Row[]; now: number }> = ({ rows, now }) => (
  <tbody id="live-rows" hx-get="/live" hx-trigger="every 1s" hx-swap="outerHTML">
    {rows.map((r) => (
      <tr>
        <td>
          <a href={`/trials/${r.id}`}>{r.name}</a>
        </td>
        <td>{r.arm}</td>
        <td>{r.seat ?? r.domain}</td>
        <td>{r.toolCalls ?? 0}</td>
        <td>{r.blocks}</td>
        <td>{r.rules.join(" ")}</td>
        <td>{Math.max(0, Math.round((now - r.updated) / 1000))} s ago</td>
      </tr>
    ))}
    {!rows.length
      ? (
        <tr>
          <td colspan={7} class="muted">No ledger is being written right now.</td>
        </tr>
      )
      : null}
  </tbody>
);

/** The Live page. */
export const LivePage: FC<{ rows: readonly Row[]; now: number }> = ({ rows, now }) => (
  <Layout title="Live" active="Live">
    <h1>Live</h1>
    <p class="muted">
      Trials whose ledgers are being written (files that grow, and records posted to /ingest).
    </p>
    <table id="live">
      <thead>
        <tr>
          <th>trial</th>
          <th>arm</th>
          <th>seat</th>
          <th>tool calls</th>
          <th>blocks</th>
          <th>rules</th>
          <th>last write</th>
        </tr>
      </thead>
      <LiveRows rows={rows} now={now} />
    </table>
  </Layout>
);

/** A plain message page (404, 401…). */
export const MessagePage: FC<{ title: string; message: string }> = ({ title, message }) => (
  <Layout title={title}>
    <h1>{title}</h1>
    <p>{message}</p>
  </Layout>
);

/** The stylesheet, served as /static/app.css. */
export const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;background:#1f2937;color:#fff;position:relative}
header a{color:#cbd5e1;margin-right:.8rem;text-decoration:none}header a.active{color:#fff;font-weight:600}
.brand{font-size:1.1rem}.search{margin-left:auto;position:relative}.search input{width:22rem;padding:.3rem}
.results{display:none;position:absolute;right:0;background:#fff;color:#222;list-style:none;margin:0;padding:.3rem;width:30rem;box-shadow:0 2px 8px #0004;z-index:5}
.results.open{display:block}.results a{color:#1d4ed8}
main{padding:1rem 1.5rem}table{border-collapse:collapse;background:#fff;width:100%}
th,td{border-bottom:1px solid #e5e7eb;padding:.25rem .5rem;text-align:left;vertical-align:top}
.muted{color:#6b7280}.badge{display:inline-block;padding:0 .4rem;border-radius:.6rem;font-size:12px;background:#e5e7eb}
.passed,.d-allow{background:#d1fae5}.failed,.d-deny,.d-block,.d-error{background:#fee2e2}.running{background:#dbeafe}
.d-shadow{background:#fef3c7}.d-release{background:#ede9fe}.d-context{background:#e0f2fe}
.charts{display:flex;gap:2rem;flex-wrap:wrap}.trial{display:grid;grid-template-columns:minmax(0,3fr) minmax(16rem,1fr);gap:1.5rem}
#timeline{list-style:none;padding:0}.ev{background:#fff;border-left:4px solid #d1d5db;margin:.3rem 0;padding:.3rem .6rem}
.ev.d-deny,.ev.d-block{border-color:#dc2626}.ev.d-shadow{border-color:#d97706}.ev.d-release{border-color:#7c3aed}
.ev.prompt,.ev.start{border-color:#0284c7}.time{color:#6b7280;font-family:monospace}
.hit{margin:.2rem 0}.hit .msg{white-space:pre-wrap}.checks{color:#4b5563;font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:.4rem;max-height:24rem;overflow:auto;margin:.2rem 0}
.rule{display:inline-block;margin:.1rem .3rem .1rem 0;padding:0 .3rem;border:1px solid #d1d5db;border-radius:.3rem}
.rule.fired{background:#fee2e2}tr.gap td:first-child{border-left:3px solid #f59e0b}tr.covered td:first-child{border-left:3px solid #10b981}
form#filters{margin:.5rem 0}form#filters label{margin-right:1rem}
`;

/** Handbook hits: `<ol id="handbook-results">`, or why there are none. */
export const HandbookResults: FC<{ hits: readonly HandbookHit[]; query: string; note?: string }> = (
  { hits, query, note },
) => (
  <ol id="handbook-results" class="hits">
    {note ? <li class="muted">{note}</li> : null}
    {!note && query && !hits.length ? <li class="muted">No handbook page matches “{query}”.</li> : null}
    {hits.map((h) => (
      <li>
        <strong>{h.title}</strong> <code>{h.path}</code>{" "}
        <span class="muted">· {h.why} · score {h.score}</span>
      </li>
    ))}
  </ol>
);

/** The Handbook page: the same MiniSearch index the plan arm uses, searched as you type. */
export const HandbookPage: FC<{ hits: readonly HandbookHit[]; query: string; note?: string; dir?: string }> =
  (
    { hits, query, note, dir },
  ) => (
    <Layout title="Handbook" active="Handbook">
      <h1>Handbook</h1>
      <p class="muted">
        {dir
          ? (
            <>
              Managed-Care Operations Handbook at <code>{dir}</code>, ranked by the plan arm's index.
            </>
          )
          : "No handbook configured: start the dashboard with --handbook DIR."}
      </p>
      <form action="/handbook" method="get" role="search">
        <input
          type="search"
          name="q"
          value={query}
          placeholder="Search handbook pages…"
          aria-label="Search the handbook"
          hx-get="/handbook"
          hx-trigger="input changed delay:300ms, search"
          hx-target="#handbook-results"
          hx-swap="outerHTML"
          autocomplete="off"
        />
      </form>
      <HandbookResults hits={hits} query={query} note={note} />
    </Layout>
  );
