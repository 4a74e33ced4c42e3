/**
 * Dashboard pages and their fragments (locality of behaviour): each fragment is a component rendering one
 * element with a stable id, which the page embeds and the route returns alone for htmx. Every value from a
 * trajectory or ledger goes through JSX escaping; nothing here uses raw HTML.
 */
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import type { LedgerRecord } from "../lib/guard/engine/record.ts";
import type { CheckInfo } from "../rules/catalog/checks.ts";
import type { RuleMeta } from "../lib/guard/engine/rule.ts";
import type { AggregateResult } from "../lib/results/aggregate.ts";
import type { AggregateFile, ReplayMark, Row, ScanProgress } from "./store.ts";
import type { FireCounts } from "../lib/trajectories/verdict.ts";
import type { Hit, RuleMatch } from "./search.ts";
import type { HandbookHit } from "../lib/guard/handbook.ts";
import type { BlockEvent, NumberedRecord } from "./ledgers.ts";
import {
  type ArmRow,
  comparisonOf,
  type FiguresState,
  type Matrix,
  overallRows,
  type Progress,
  RECIPE_TEXT,
  type ReplayFigure,
} from "./figures.ts";
import type { CallItem, CheckLink, Item } from "./transcript.ts";
import { COLUMNS, queryString, type TablePage, type TrialQuery } from "./table.ts";
import { CostChart, PassChart } from "./charts.tsx";

/** Formats a 0–1 rate as a percentage. */
export function pct(v: number | null | undefined): string {
  return v === null || v === undefined || Number.isNaN(v) ? "—" : `${(v * 100).toFixed(1)}%`;
}

function usd(v: number | null | undefined, digits = 2): string {
  return v === null || v === undefined ? "—" : `$${v.toFixed(digits)}`;
}

function num(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined ? "—" : v.toFixed(digits);
}

function kilo(v: number | null): string {
  return v === null ? "—" : v >= 1000 ? `${(v / 1000).toFixed(1)}k` : String(v);
}

function json(v: unknown, max = 8000): string {
  let s: string;
  try {
    s = typeof v === "string" ? v : JSON.stringify(v, null, 2) ?? "";
  } catch {
    s = String(v);
  }
  return s.length > max ? s.slice(0, max) + `… (${s.length - max} more characters)` : s;
}

function firstLines(text: string, lines = 3, chars = 280): string {
  const cut = text.split("\n").slice(0, lines).join("\n");
  return cut.length > chars ? cut.slice(0, chars) + "…" : cut;
}

function cls(v: unknown): string {
  return String(v ?? "").replace(/[^A-Za-z0-9-]/g, "").slice(0, 24);
}

function time(t: unknown): string {
  return typeof t === "string" ? t.slice(11, 19) : "";
}

function duration(seconds: number | null): string {
  if (seconds === null) return "—";
  const h = Math.floor(seconds / 3600), m = Math.round((seconds % 3600) / 60);
  return h ? `${h} h ${m} min` : `${m} min`;
}

const NAV = [
  ["/", "Arms"],
  ["/matrix", "Matrix"],
  ["/trials", "Trials"],
  ["/rules", "Rules"],
  ["/live", "Live"],
  ["/handbook", "Handbook"],
] as const;

/** The caveat every page carries when the trials are the demo's synthetic samples. */
export const SYNTHETIC_NOTICE =
  "These are the demo's synthetic sample trials: scripted agents, some of whose " +
  "runs were generated through the guard itself, so the pass rates and differences here only illustrate the " +
  "dashboard. They say nothing about how the guard does on χ-Bench.";

/** The full page around a body: nav, search box, htmx from /static, and any notice. */
export const Layout: FC<PropsWithChildren<{ title: string; active?: string; notice?: Child }>> = (
  { title, active, notice, children },
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
            placeholder="Search trials, tasks, rules, checks…"
            aria-label="Search"
            hx-get="/search"
            hx-trigger="input changed delay:300ms, search"
            hx-target="#search-results"
            hx-swap="outerHTML"
            autocomplete="off"
          />
          <SearchResults hits={[]} query="" rules={[]} checks={[]} />
        </form>
      </header>
      {notice ? <p id="notice" class="notice" role="note">{notice}</p> : null}
      <main>{children}</main>
    </body>
  </html>
);

/**
 * While the dashboard is still reading its sources: how far it got, polled every second; once done, a link to
 * reload the page with everything read.
 */
export const ScanStatus: FC<{ progress: ScanProgress | null; rows: number }> = ({ progress, rows }) =>
  progress
    ? (
      <span id="scan-progress" role="status" hx-get="/scan" hx-trigger="every 1s" hx-swap="outerHTML">
        Still reading the sources ({progress.phase}: {progress.trials.toLocaleString("en")} trial folders
        {progress.ledgers ? `, ${progress.ledgers.toLocaleString("en")} ledgers` : ""}, {Math.round(
          (Date.now() - progress.started) / 1000,
        )} s so far): this page shows the {rows.toLocaleString("en")} trials read so far.
      </span>
    )
    : (
      <span id="scan-progress" role="status" data-done="true">
        All sources read: {rows.toLocaleString("en")} trials. <a href="">Reload this page</a> to see them all.
      </span>
    );

const Outcome: FC<{ value: string }> = ({ value }) => <span class={`badge ${cls(value)}`}>{value}</span>;

const Decision: FC<{ value: unknown }> = ({ value }) => (
  <span class={`badge d-${cls(value)}`}>{String(value ?? "")}</span>
);

// ---------- Search ----------

/** Search hits: `<ul id="search-results">`, with rules and checks the query names first. */
export const SearchResults: FC<
  { hits: Hit[]; query: string; rules: RuleMatch[]; checks: string[]; id?: string }
> = ({ hits, query, rules, checks, id }) => (
  <ul id={id ?? "search-results"} class={query ? "results open" : "results"}>
    {rules.map((r) => (
      <li class="rule-hit">
        rule <a href={`/trials?rule=${encodeURIComponent(r.id)}`}>{r.id}</a>{" "}
        <span class="muted">{r.name}</span>
      </li>
    ))}
    {checks.map((c) => (
      <li class="check-hit">
        check <a href={`/trials?check=${encodeURIComponent(c)}`}>{c}</a>
      </li>
    ))}
    {query && !hits.length ? <li class="muted">No trial matches “{query}”.</li> : null}
    {hits.map(({ row }) => (
      <li class="trial-hit">
        <a href={`/trials/${row.id}`}>{row.name}</a> <span class="muted">{row.arm} · {row.task}</span>{" "}
        <Outcome value={row.outcome} />
      </li>
    ))}
  </ul>
);

/** The search page for a plain (non-htmx) request: the query and its hits. */
export const SearchPage: FC<
  { hits: Hit[]; query: string; rules: RuleMatch[]; checks: string[]; notice?: Child }
> = ({ hits, query, rules, checks, notice }) => (
  <Layout title="Search" notice={notice}>
    <h1>Search: {query}</h1>
    <div class="hits">
      <SearchResults hits={hits} query={query} rules={rules} checks={checks} id="search-hits" />
    </div>
  </Layout>
);

// ---------- Arms ----------

function diffText(
  d: { diff: number | null; lo: number | null; hi: number | null; n_shared: number },
): string {
  if (d.diff === null) return "—";
  const pts = (v: number | null) => (v === null ? "—" : `${v >= 0 ? "+" : ""}${(v * 100).toFixed(1)}`);
  return `${pts(d.diff)} pts [${pts(d.lo)}, ${pts(d.hi)}] on ${d.n_shared} tasks`;
}

function guardText(r: ArmRow): string {
  const g = r.guard;
  if (!g) return "no ledger";
  return `${g.denies} denies · ${g.stop_blocks} stop blocks · ${g.releases} releases · ${g.errors} fail-open errors`;
}

function kText(r: ArmRow): string {
  return r.pass_hat_k.filter((p) => p.k >= 2).map((p) => `^${p.k} ${pct(p.value)}`).join(", ") || "—";
}

/** One set of figures per arm — aggregate.ts's — overall and (collapsed) per domain. */
export const ArmsTable: FC<{ result: AggregateResult; recipe: string }> = ({ result, recipe }) => {
  const overall = overallRows(result);
  const perDomain = result.rows.filter((r) => r.domain !== "overall") as ArmRow[];
  const cells = (r: ArmRow, domain: string) => {
    const c = comparisonOf(result, r.arm, domain);
    return (
      <>
        <td>{r.n_trials}</td>
        <td>{r.n_tasks}</td>
        <td class="num">{pct(r.pass_at_1_ci.value)} [{pct(r.pass_at_1_ci.lo)}, {pct(r.pass_at_1_ci.hi)}]</td>
        <td>{kText(r)}</td>
        <td class="diff">
          {r.arm === result.control ? "control" : c ? diffText(c) : "—"}
          {c ? <div class="muted">gained {c.gained.length} · lost {c.lost.length}</div> : null}
          {c?.marked?.length
            ? (
              <div class="badge warn" title="run integrity is marked for these arms">
                ⚠ not a result until {c.marked.join(", ")} is fully guarded
              </div>
            )
            : null}
        </td>
        <td>
          {r.mean_cost_usd === null
            ? <span title={r.unpriced_models.join(", ")}>unknown (unpriced)</span>
            : usd(r.mean_cost_usd)}
          {r.n_cost_known && r.n_cost_known < r.n_trials
            ? <div class="muted">from {r.n_cost_known}</div>
            : null}
        </td>
        <td>
          {r.mean_tool_calls === null ? "—" : `${num(r.mean_tool_calls)} (${num(r.mean_mcp_calls)} MCP)`}
        </td>
        <td>{num(r.mean_agent_s, 0)}</td>
        <td>{r.n_unscored}</td>
      </>
    );
  };
  const labels = [
    "scored trials",
    "tasks",
    "pass@1 [95% CI]",
    "pass^k",
    `Δ pass@1 vs ${result.control ?? "control"} [95% CI]`,
    `cost / trial (${recipe})`,
    "tool calls",
    "agent s",
    "unscored",
  ];
  const head = (first: string) => (
    <tr>
      <th>{first}</th>
      {labels.map((l) => <th key={l}>{l}</th>)}
    </tr>
  );
  return (
    <>
      <table id="arms">
        <thead>{head("arm")}</thead>
        <tbody>
          {overall.map((r) => (
            <tr class={r.integrity?.marked ? "marked" : ""}>
              <td>
                <a href={`/trials?arm=${encodeURIComponent(r.arm)}`}>{r.arm}</a>
                {r.arm === result.control ? <span class="muted">(control)</span> : null}
                {r.integrity?.marked
                  ? <span class="badge warn" title="see Run integrity below">⚠ not fully guarded</span>
                  : null}
                <div class="muted guard">{guardText(r)}</div>
              </td>
              {cells(r, "overall")}
            </tr>
          ))}
        </tbody>
      </table>
      <details class="per-domain">
        <summary>Per domain</summary>
        <table id="arms-domains">
          <thead>{head("arm · domain")}</thead>
          <tbody>
            {perDomain.map((r) => (
              <tr>
                <td>{r.arm} · {r.domain}</td>
                {cells(r, r.domain)}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
};

/** Issue 15's run integrity per arm, when the aggregate carries it. */
export const IntegrityTable: FC<{ rows: ArmRow[] }> = ({ rows }) => {
  const withIt = rows.filter((r) => r.integrity);
  if (!withIt.length) return null;
  return (
    <section id="integrity">
      <h2>Run integrity</h2>
      <table>
        <thead>
          <tr>
            <th>arm</th>
            <th>full guard coverage</th>
            <th>without a ledger</th>
            <th>hook modes</th>
            <th>fail-open errors / 100 calls</th>
            <th>gaps · restarts</th>
          </tr>
        </thead>
        <tbody>
          {withIt.map((r) => {
            const i = r.integrity!;
            return (
              <tr class={i.marked ? "marked" : ""}>
                <td>
                  {r.arm} {i.marked ? <span class="badge warn">⚠ not fully guarded</span> : null}
                </td>
                <td>
                  {!i.with_ledger && !i.marked ? <span class="muted">— (no guard in this arm)</span> : (
                    <>
                      {i.full_coverage} of {i.trials}
                      {i.coverage_min !== null && i.coverage_min < 1
                        ? <span class="muted">{` (lowest ${pct(i.coverage_min)})`}</span>
                        : null}
                    </>
                  )}
                </td>
                <td>{i.without_ledger}</td>
                <td>
                  {Object.entries(i.hook_modes ?? {}).map(([k, v]) => `${k} ${v}`).join(" · ") || "—"}
                </td>
                <td>
                  {num(i.errors_per_100_calls ?? null, 2)}
                  {i.errors_flag ? <span class="badge warn">⚠ above 1 per 100</span> : null}
                </td>
                <td>{i.gaps ?? 0} · {i.restarts ?? 0}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <IntegrityProblems
        problems={withIt.flatMap((r) => (r.integrity!.problems ?? []).map((p) => ({ arm: r.arm, p })))}
      />
    </section>
  );
};

/** The first 200 integrity problems, and how many more there are (60 arms can have thousands). */
const IntegrityProblems: FC<{ problems: { arm: string; p: string }[] }> = ({ problems }) =>
  problems.length
    ? (
      <ul class="problems">
        {problems.slice(0, 200).map(({ arm, p }) => <li key={p}>[{arm}] {p}</li>)}
        {problems.length > 200
          ? <li class="muted">… and {problems.length - 200} more: `deno task aggregate` lists them all.</li>
          : null}
      </ul>
    )
    : null;

/** A protector's replay cell: fires in failed (in time / too late) / in passed. */
function fireCell(r: FireCounts): string {
  return `${r.fires_failed} (${r.in_time} / ${r.too_late}) / ${r.fires_passed}`;
}

/** What replays would have blocked, per replay arm and real arm (a replay is never an arm). */
export const ReplayTable: FC<{ figures: ReplayFigure[]; orphans: number }> = ({ figures, orphans }) =>
  figures.length || orphans
    ? (
      <section id="replay-figures">
        <h2>Would have blocked (replay)</h2>
        <p class="muted">
          Replay runs the guard over recorded trials and records what it would have decided; the trials are
          the originals, so these are counts of trials, not an arm's results, and they are replay's own (its
          summary.json). A fire counts in time when it came at or before the call that dooms the check it
          protects, too late after it; the rescue estimate counts failed trials whose every failed
          deterministic check was blocked in time. A replay shows when a block would have come, not what the
          agent would have done after it. A rule that would have blocked a passing trial is a false positive
          to explain or fix; a trial whose agent reached the simulator outside MCP is not observable and
          counts in no fire.
        </p>
        {figures.length
          ? (
            <table>
              <thead>
                <tr>
                  <th>replayed as</th>
                  <th>on trials of</th>
                  <th>trials (failed / passed)</th>
                  <th>not observable</th>
                  <th>would have blocked: failed</th>
                  <th>would have blocked: passed</th>
                  <th>closure gate: failed (in time / too late) / passed</th>
                  <th>rescue in time (upper / strict)</th>
                  <th>rules: failed (in time / too late) / passed</th>
                </tr>
              </thead>
              <tbody>
                {figures.map((f) => {
                  const s = f.summary;
                  const rules = Object.entries(s.by_rule).sort(([a, x], [b, y]) =>
                    y.fires_passed - x.fires_passed || y.fires_failed - x.fires_failed || a.localeCompare(b)
                  );
                  return (
                    <tr>
                      <td>{f.replay}</td>
                      <td>
                        <a href={`/trials?arm=${encodeURIComponent(f.arm)}&replay=yes`}>{f.arm}</a>
                      </td>
                      <td>{s.trials} ({s.failed} / {s.passed})</td>
                      <td class="not-observable">{s.not_observable}</td>
                      <td>{s.trials_blocked.failed}</td>
                      <td class={s.trials_blocked.passed ? "fp" : ""}>{s.trials_blocked.passed}</td>
                      <td>{fireCell(s.closure_gate)}</td>
                      <td>{s.rescue_estimate.upper} / {s.rescue_estimate.strict}</td>
                      <td class="rules">
                        {rules.slice(0, 12).map(([id, r]) => (
                          <span class={`rule ${r.fires_passed ? "fp" : ""}`}>
                            {id} {fireCell(r)}
                          </span>
                        ))}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )
          : null}
        {figures.some((f) => f.withoutVerdict)
          ? (
            <p class="muted">
              {figures.reduce((a, f) => a + f.withoutVerdict, 0)}{" "}
              replayed trial(s) were found only as ledgers, with no replay summary.json beside them (an
              interrupted replay?), and are in no figure here; replay them again with --out.
            </p>
          )
          : null}
        {orphans
          ? (
            <p class="muted">
              {orphans}{" "}
              replay ledger session(s) name trials not found below --logs; add those trials' folders to --logs
              to see them.
            </p>
          )
          : null}
      </section>
    )
    : null;

/** The basis of the figures, in one sentence. */
const Basis: FC<{ result: AggregateResult }> = ({ result }) => (
  <p class="basis" id="basis">
    Figures by aggregate.ts over {result.arms.reduce((a, x) => a + x.n_found, 0)}{" "}
    trial folders below --logs: pass@1 is the mean over tasks of passes ÷ attempts; 95% intervals are
    task-level bootstraps ({result.iters} iterations, seed {result.seed}); cost per trial is{" "}
    {RECIPE_TEXT[result.recipe]}, at the prices in data/prices.yaml (or --prices).
    {result.control
      ? ` Differences are paired on shared tasks against the control, ${result.control}.`
      : " No control arm, so no differences."}
    {result.unpriced_models.length ? ` Unpriced (cost unknown): ${result.unpriced_models.join(", ")}.` : ""}
  </p>
);

/** The figures part of the Arms page: `<section id="arms-figures">`, polling itself until computed. */
export const ArmsFigures: FC<{
  state: FiguresState | null;
  stale: boolean;
  replay: ReplayFigure[];
  orphans: number;
}> = ({ state, stale, replay, orphans }) => {
  const poll = !state || stale
    ? { "hx-get": "/?part=figures", "hx-trigger": "every 1s", "hx-swap": "outerHTML" }
    : {};
  const result = state?.result ?? null;
  const recipe = state ? `recipe ${state.recipe}` : "";
  return (
    <section id="arms-figures" {...poll} data-ready={state && !stale ? "true" : "false"}>
      {!state ? <p class="muted">Computing the figures…</p> : null}
      {state?.error ? <p class="error">{state.error}</p> : null}
      {state?.controlNote ? <p class="notice">{state.controlNote}</p> : null}
      {state && stale ? <p class="muted">New trials arrived; updating the figures…</p> : null}
      {state && !result && !state.error
        ? <p class="muted">No trial folders below --logs yet. Point --logs at trial trees.</p>
        : null}
      {result
        ? (
          <>
            <Basis result={result} />
            <ArmsTable result={result} recipe={recipe} />
            <div class="charts">
              <figure>
                <PassChart rows={overallRows(result)} />
                <figcaption>pass@1 and pass^k per arm; whiskers: 95% task bootstrap interval</figcaption>
              </figure>
              <figure>
                <CostChart rows={overallRows(result)} recipe={recipe} />
                <figcaption>mean cost per trial ({recipe}) against pass@1; lines: 95% interval</figcaption>
              </figure>
            </div>
            <IntegrityTable rows={overallRows(result)} />
            {result.problems.length
              ? (
                <details class="problems">
                  <summary>{result.problems.length} input problem(s)</summary>
                  <ul>
                    {result.problems.slice(0, 200).map((p, i) => <li key={i}>[{p.arm}] {p.message}</li>)}
                  </ul>
                </details>
              )
              : null}
          </>
        )
        : null}
      <ReplayTable figures={replay} orphans={orphans} />
    </section>
  );
};

/** The Arms page: the real arms' figures, what replays would have blocked, saved aggregate results. */
export const ArmsPage: FC<{ figures: Child; saved: readonly AggregateFile[]; notice?: Child }> = (
  { figures, saved, notice },
) => (
  <Layout title="Arms" active="Arms" notice={notice}>
    <h1>Arms</h1>
    {figures}
    {saved.length
      ? (
        <section id="saved">
          <h2>Saved aggregate results (--results)</h2>
          <ul>
            {saved.map((f) => (
              <li>
                <a href={`/aggregate/${f.id}`}>{f.path}</a>{" "}
                <span class="muted">
                  recipe {String(f.data.recipe ?? "?")}, control {String(f.data.control ?? "none")}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )
      : null}
  </Layout>
);

/** A saved aggregate.json, rendered with the same table as the live figures. */
export const AggregatePage: FC<{ file: AggregateFile; notice?: Child }> = ({ file, notice }) => {
  const result = file.data as unknown as AggregateResult;
  const ok = Array.isArray(result.rows) && Array.isArray(result.comparisons) &&
    result.rows.every((r) =>
      r && typeof r === "object" && r.pass_at_1_ci && Array.isArray(r.pass_hat_k) && Array.isArray(r.tasks)
    );
  return (
    <Layout title="Saved aggregate" active="Arms" notice={notice}>
      <h1>Saved aggregate: {file.path}</h1>
      {ok
        ? (
          <>
            <Basis result={result} />
            <ArmsTable result={result} recipe={`recipe ${result.recipe}`} />
            <IntegrityTable rows={overallRows(result)} />
          </>
        )
        : (
          <p class="error">
            Cannot show{" "}
            {file.path}: it is not an aggregate.ts result this dashboard reads. Regenerate it with deno task
            aggregate.
          </p>
        )}
    </Layout>
  );
};

// ---------- Matrix ----------

/** The task × arm matrix: `<table id="matrix">`, cells passes/attempts linking to their trials. */
export const MatrixTable: FC<{ matrix: Matrix }> = ({ matrix }) => {
  let domain = "";
  return (
    <table id="matrix">
      <thead>
        <tr>
          <th>task</th>
          {matrix.arms.map((a) => <th key={a}>{a}{a === matrix.control ? " (control)" : ""}</th>)}
        </tr>
      </thead>
      <tbody>
        {matrix.rows.flatMap((row) => {
          const out: Child[] = [];
          if (row.domain !== domain) {
            domain = row.domain;
            out.push(
              <tr class="group">
                <th colspan={matrix.arms.length + 1}>{row.domain}</th>
              </tr>,
            );
          }
          out.push(
            <tr>
              <td class="task">{row.task}</td>
              {row.cells.map((c, i) =>
                c
                  ? (
                    <td
                      class={`cell ${c.c === c.n ? "all" : c.c === 0 ? "none" : "some"} ${c.flip ?? ""}`}
                      data-flip={c.flip ?? ""}
                    >
                      <a
                        href={`/trials?arm=${encodeURIComponent(matrix.arms[i])}&task=${
                          encodeURIComponent(row.task)
                        }`}
                        title={c.flip ? `${c.flip} against ${matrix.control}` : undefined}
                      >
                        {c.c}/{c.n}
                      </a>
                      {c.flip ? <span class="flip">{c.flip === "gained" ? " ▲" : " ▼"}</span> : null}
                    </td>
                  )
                  : <td key={i} class="cell empty">—</td>
              )}
            </tr>,
          );
          return out;
        })}
      </tbody>
    </table>
  );
};

/** The Matrix page. */
export const MatrixPage: FC<{ matrix: Matrix | null; pending: boolean; notice?: Child }> = (
  { matrix, pending, notice },
) => (
  <Layout title="Matrix" active="Matrix" notice={notice}>
    <h1>Task × arm</h1>
    {pending ? <p class="muted">Computing the figures… reload in a moment.</p> : null}
    {matrix
      ? (
        <>
          <p class="muted legend">
            Each cell: passes/attempts, linking to those trials. {matrix.control
              ? (
                <>
                  <span class="cell gained">▲ gained</span> and <span class="cell lost">▼ lost</span>{" "}
                  mark tasks that flipped against {matrix.control}{" "}
                  (at least half the attempts passing, as aggregate.ts counts them).
                </>
              )
              : "No control arm, so no flips (start with --control ARM)."}
          </p>
          <MatrixTable matrix={matrix} />
        </>
      )
      : !pending
      ? <p class="muted">No scored trials below --logs yet.</p>
      : null}
  </Layout>
);

// ---------- Trials ----------

/** A replay's blocks on one trial, each with whether it came in time for the checks it protects. */
function replayRulesText(m: ReplayMark): string {
  const v = m.verdict?.verdict;
  if (!v) return m.rules.join(", ") || "stop gate";
  const parts = Object.entries(v.rules).map(([id, f]) => (f.timing ? `${id}, ${f.timing}` : id));
  if (v.gate) parts.push(`stop gate${v.gate.timing ? `, ${v.gate.timing}` : ""}`);
  return parts.join("; ");
}

function replayCell(r: Row): Child {
  if (!r.replays.length) return "—";
  return (
    <>
      {r.replays.map((m) => (
        <div class={m.blocked ? "would" : "muted"}>
          {m.arm}: {m.verdict && !m.verdict.verdict
            ? "not observable"
            : m.blocked
            ? m.rules.join(" ") || "blocked"
            : "no block"}
        </div>
      ))}
    </>
  );
}

/** The table's rows: `<tbody id="trials-rows">`. */
export const TrialRows: FC<{ rows: readonly Row[] }> = ({ rows }) => (
  <tbody id="trials-rows" data-count={String(rows.length)}>
    {rows.map((r) => (
      <tr>
        <td>
          <a href={`/trials/${r.id}`} class="trial-link">{r.name}</a>
        </td>
        <td class="task">{r.task}</td>
        <td>{r.arm}</td>
        <td>{r.domain}</td>
        <td>
          <Outcome value={r.outcome} />
        </td>
        <td class="num">{usd(r.cost)}</td>
        <td class="num">{r.toolCalls ?? "—"}</td>
        <td class="num">
          {r.blocks}
          {r.shadows ? ` (+${r.shadows} shadow)` : ""}
          {r.indexing !== null ? <span class="muted">{` indexing ${pct(r.indexing)}`}</span> : null}
        </td>
        <td>{r.rules.join(" ")}</td>
        <td>{replayCell(r)}</td>
      </tr>
    ))}
    {!rows.length
      ? (
        <tr>
          <td colspan={COLUMNS.length} class="muted">No trial matches these filters.</td>
        </tr>
      )
      : null}
  </tbody>
);

const swap = { "hx-target": "#trials-view", "hx-swap": "outerHTML", "hx-push-url": "true" };

/** The sortable, paginated table: `<div id="trials-view">`. */
export const TrialsView: FC<{ page: TablePage; query: TrialQuery; recipe: string; oob?: boolean }> = (
  { page, query, recipe, oob },
) => {
  const link = (over: Partial<TrialQuery>) => `/trials${queryString(query, over)}`;
  const Pager = () => (
    <nav class="pager" aria-label="pages">
      <span>
        rows {page.total ? page.first + 1 : 0}–{page.first + page.rows.length} of {page.total}
      </span>{" "}
      {page.page > 1
        ? (
          <>
            <a href={link({ page: 1 })} hx-get={link({ page: 1 })} {...swap}>« first</a>{" "}
            <a
              href={link({ page: page.page - 1 })}
              hx-get={link({ page: page.page - 1 })}
              {...swap}
              rel="prev"
            >
              ‹ prev
            </a>
          </>
        )
        : null} <span class="page">page {page.page} of {page.pages}</span> {page.page < page.pages
        ? (
          <>
            <a
              href={link({ page: page.page + 1 })}
              hx-get={link({ page: page.page + 1 })}
              {...swap}
              rel="next"
            >
              next ›
            </a>{" "}
            <a href={link({ page: page.pages })} hx-get={link({ page: page.pages })} {...swap}>last »</a>
          </>
        )
        : null}
    </nav>
  );
  return (
    <div id="trials-view" data-total={String(page.total)} data-page={String(page.page)}>
      <Pager />
      <table id="trials">
        <thead>
          <tr>
            {COLUMNS.map(([key, label]) => {
              const active = query.sort === key;
              const dir = active && query.dir === "asc" ? "desc" : "asc";
              const href = link({ sort: key, dir, page: 1 });
              return (
                <th
                  data-sort={key}
                  aria-sort={active ? (query.dir === "asc" ? "ascending" : "descending") : "none"}
                >
                  <a href={href} hx-get={href} {...swap} class="sort">
                    {key === "cost" ? `cost (${recipe})` : label}
                    {active ? (query.dir === "asc" ? " ▲" : " ▼") : ""}
                  </a>
                </th>
              );
            })}
          </tr>
        </thead>
        <TrialRows rows={page.rows} />
      </table>
      <Pager />
      {oob
        ? (
          <>
            <input type="hidden" id="f-sort" name="sort" value={query.sort} hx-swap-oob="true" />
            <input type="hidden" id="f-dir" name="dir" value={query.dir} hx-swap-oob="true" />
          </>
        )
        : null}
    </div>
  );
};

const Select: FC<{ name: string; label?: string; values: string[]; value?: string }> = (
  { name, label, values, value },
) => (
  <label>
    {label ?? name}{" "}
    <select name={name}>
      <option value="">all</option>
      {values.map((v) => <option key={v} value={v} selected={v === value}>{v}</option>)}
    </select>
  </label>
);

/** The Trials page: filters, then the table. */
export const TrialsPage: FC<
  { view: Child; query: TrialQuery; options: Record<string, string[]>; notice?: Child }
> = ({ view, query, options, notice }) => (
  <Layout title="Trials" active="Trials" notice={notice}>
    <h1>Trials</h1>
    <form
      id="filters"
      action="/trials"
      method="get"
      hx-get="/trials"
      hx-trigger="change, input changed delay:300ms from:#f-q"
      hx-target="#trials-view"
      hx-swap="outerHTML"
      hx-push-url="true"
    >
      <label>
        name{" "}
        <input id="f-q" type="search" name="q" value={query.q ?? ""} placeholder="afib, a trial suffix…" />
      </label>
      <Select name="arm" values={options.arm} value={query.arm} />
      <Select name="domain" values={options.domain} value={query.domain} />
      <Select name="outcome" values={options.outcome} value={query.outcome} />
      <Select name="rule" values={options.rule} value={query.rule} />
      <label>
        replay{" "}
        <select name="replay">
          <option value="">all</option>
          <option value="yes" selected={query.replay === "yes"}>would have blocked</option>
          <option value="no" selected={query.replay === "no"}>would not have blocked</option>
        </select>
      </label>
      {query.task
        ? (
          <label class="chip">
            task <input type="text" name="task" value={query.task} readonly /> <a href="/trials">clear</a>
          </label>
        )
        : null}
      {query.check
        ? (
          <label class="chip">
            failed check <input type="text" name="check" value={query.check} readonly />{" "}
            <a href="/trials">clear</a>
          </label>
        )
        : null}
      <input type="hidden" id="f-sort" name="sort" value={query.sort} />
      <input type="hidden" id="f-dir" name="dir" value={query.dir} />
      <noscript>
        <button type="submit">Filter</button>
      </noscript>
    </form>
    {view}
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
    {(Array.isArray(record.rules) ? record.rules : []).map((h) => (
      <div class="hit">
        <strong>{String(h?.id ?? "")}</strong>
        {Array.isArray(h?.checks) && h.checks.length
          ? <span class="checks">{` → ${h.checks.join(", ")}`}</span>
          : null}
        <div class="msg">{String(h?.message ?? "")}</div>
      </div>
    ))}
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

function quietAllow(r: LedgerRecord): boolean {
  return String(r.decision) === "allow" && !r.rules?.length && !r.note;
}

/** The guard's decision on one call, as the ledger recorded it (and as the model read a deny). */
const GuardBox: FC<{ record: LedgerRecord; would?: string }> = ({ record, would }) => {
  const d = String(record.decision);
  const quiet = quietAllow(record);
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
          <Hits record={record} />
          <Votes record={record} />
          {d === "deny" && record.reason
            ? (
              <details class="reason">
                <summary>the block reason as the model read it</summary>
                <pre>{json(record.reason)}</pre>
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

const Metrics: FC<{ m: NonNullable<Extract<Item, { kind: "agent" }>["metrics"]> }> = ({ m }) => (
  <span class="metrics">
    {m.prompt !== null ? `in ${kilo(m.prompt)}` : ""}
    {m.cached !== null ? ` · cached ${kilo(m.cached)}` : ""}
    {m.completion !== null ? ` · out ${kilo(m.completion)}` : ""}
    {m.cost !== null ? ` · $${m.cost.toFixed(4)}` : ""}
  </span>
);

const CallView: FC<{ call: CallItem; overlay: string | null }> = ({ call, overlay }) => {
  const d = call.guard ? cls(call.guard.decision) : "";
  const w = call.would ? cls(call.would.decision) : "";
  return (
    <div class={`call ${d ? `call-${d}` : ""} ${w === "deny" ? "would-deny" : ""}`} data-call={call.id}>
      <div class="head">
        <code class="tool">{call.tool ?? call.raw}</code>
        {call.keyArgs.map(([k, v]) => (
          <span class="arg">
            <span class="k">{k}</span>=<span class="v">{v}</span>
          </span>
        ))}
        {call.isError ? <span class="badge d-error">error</span> : null}
        {!call.answered ? <span class="badge">no result</span> : null}
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
      {call.result
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

const GuardRecord: FC<{ record: LedgerRecord; would: boolean; overlay: string | null }> = (
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

/** Transcript entries per page. */
export const ITEMS_PER_PAGE = 250;

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
  overlay: string | null;
  recipe: string;
}> = ({ row, book, links, overlay, recipe }) => {
  const pageOf = (i: number) => Math.floor(i / ITEMS_PER_PAGE) + 1;
  const href = (i: number) => {
    const q = new URLSearchParams({ page: String(pageOf(i)) });
    if (overlay) q.set("replay", overlay);
    return `/trials/${row.id}?${q}#item-${i}`;
  };
  const replayRules = new Map(row.replays.map((m) => [m.arm, new Set(m.rules)]));
  return (
    <aside id="scorecard">
      <h2>Scorecard</h2>
      <p>
        <Outcome value={row.outcome} /> reward {row.reward ?? "—"}
      </p>
      <dl class="facts">
        <dt>cost ({recipe})</dt>
        <dd>{usd(row.cost, 4)}</dd>
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
                    ? `would have blocked (${replayRulesText(m)})`
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
                  <code>{id}</code>{" "}
                  {info ? <span class="muted">({info.kind}, preventable: {info.preventable})</span> : null}
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
  notice?: Child;
}> = ({ row, timeline, scorecard, total, page, overlay, overlays, banner, notice }) => (
  <Layout title={row.name} active="Trials" notice={notice}>
    <h1>{row.name}</h1>
    <p class="muted summary">
      {row.arm} · {row.task} · {row.domain} · {SOURCE_LABEL[row.source]}
      {row.guarded ? "" : " (no guard ledger)"}
      {row.seat ? ` · seat ${row.seat}` : ""} · {row.blocks} blocks · {row.shadows} shadow · {row.releases}
      {" "}
      releases
      {row.errors ? ` · ${row.errors} fail-open errors` : ""}
      {row.gaps ? ` · ${row.gaps} gaps` : ""}
      {row.restarts ? ` · ${row.restarts} guard restarts` : ""}
    </p>
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
  </Layout>
);

/** A big ledger, one page at a time: `<ol id="ledger">`. */
export const LedgerPage: FC<{
  row: Row;
  records: NumberedRecord[];
  page: number;
  lines: number;
  indexing: number | null;
  notice?: Child;
}> = ({ row, records, page, lines, indexing, notice }) => {
  const pages = Math.max(1, Math.ceil(lines / 500));
  const href = (p: number) => `/trials/${row.id}/ledger?page=${p}`;
  return (
    <Layout title={`${row.name} ledger`} active="Trials" notice={notice}>
      <h1>
        <a href={`/trials/${row.id}`}>{row.name}</a> · guard ledger
      </h1>
      <p class="muted">
        {lines}{" "}
        lines{indexing !== null ? ` read so far (${pct(indexing)} of the file indexed)` : ""}, 500 a page.
      </p>
      <nav class="pager">
        {page > 1 ? <a href={href(page - 1)} rel="prev">‹ prev</a> : null} page {page} of {pages}
        {indexing !== null ? "+" : ""} {page < pages ? <a href={href(page + 1)} rel="next">next ›</a> : null}
      </nav>
      <ol id="ledger" start={(page - 1) * 500 + 1}>
        {records.map((n) => (
          <li id={`line-${n.line}`} class="ev rec">
            <span class="time">{time(n.record.t)}</span>
            <GuardRecord record={n.record} would={false} overlay={null} />
          </li>
        ))}
        {!records.length ? <li class="muted">No records on this page.</li> : null}
      </ol>
    </Layout>
  );
};

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
  /** Replay arm → replay's own fire counts for the rule (in time / too late; replay's summary). */
  replay: Record<string, FireCounts>;
}

/** The Rules page: fires per rule in guarded trials and in replays, then the check coverage map. */
export const RulesPage: FC<{
  fires: RuleFires[];
  replayArms: string[];
  checks: readonly CheckInfo[];
  rules: readonly RuleMeta[];
  failures: Map<string, number>;
  notice?: Child;
}> = ({ fires, replayArms, checks, rules, failures, notice }) => (
  <Layout title="Rules" active="Rules" notice={notice}>
    <h1>Rules</h1>
    <table id="rule-fires">
      <thead>
        <tr>
          <th>rule</th>
          <th>seat</th>
          <th>guarded trials: fired in failed</th>
          <th>… in passed</th>
          <th>… unscored</th>
          {replayArms.map((a) => <th key={a}>replay {a}: fires in failed (in time / too late) / passed</th>)}
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
            {replayArms.map((a) => {
              const r = f.replay[a];
              return <td key={a} class={r?.fires_passed ? "fp" : ""}>{r ? fireCell(r) : "0 (0 / 0) / 0"}</td>;
            })}
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
          const by = rules.filter((r) =>
            r.protects.includes(c.id)
          ).map((r) =>
            r.id
          );
          return (
            <tr class={by.length ? "covered" : c.preventable === "yes" ? "gap" : ""}>
              <td>
                <code>{c.id}</code>
              </td>
              <td>{c.stage}</td>
              <td>{c.kind}</td>
              <td>{c.preventable}</td>
              <td>
                {failures.get(c.id)
                  ? <a href={`/trials?check=${encodeURIComponent(c.id)}`}>{failures.get(c.id)}</a>
                  : 0}
              </td>
              <td>{by.join(" ") || "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  </Layout>
);

// ---------- Live ----------

/** Everything on the Live page that changes: `<section id="live-now">`, polling every second. */
export const LiveNow: FC<{
  progress: Progress;
  configured: boolean;
  problems: string[];
  blocks: (BlockEvent & { row: Row | undefined })[];
  rows: readonly Row[];
  now: number;
  recipe: string;
}> = ({ progress, configured, problems, blocks, rows, now, recipe }) => (
  <section id="live-now" hx-get="/live" hx-trigger="every 1s" hx-swap="outerHTML">
    <h2>Ablation progress</h2>
    <p id="eta">
      {progress.done} trials done{progress.expected !== null ? ` of ${progress.expected} expected` : ""}
      {progress.rate !== null ? ` · ${progress.rate.toFixed(1)} trials/hour so far` : ""}
      {progress.eta !== null ? ` · ETA ${duration(progress.eta)}` : ""}
      {!configured
        ? " · start the dashboard with --experiments <chi-bench>/configs/experiments/fiable for expected totals and an ETA"
        : ""}
    </p>
    {progress.notes.map((n) => <p key={n} class="muted">{n}</p>)}
    {problems.map((p) => <p key={p} class="error">{p}</p>)}
    <table id="progress">
      <thead>
        <tr>
          <th>arm</th>
          <th>done / expected</th>
          <th>running</th>
          <th>pass@1 so far</th>
          <th>cost so far ({recipe})</th>
        </tr>
      </thead>
      <tbody>
        {progress.arms.map((a) => (
          <tr data-arm={a.arm}>
            <td>
              <a href={`/trials?arm=${encodeURIComponent(a.arm)}`}>{a.arm}</a>
            </td>
            <td>
              <span class="count">{a.done}{a.expected !== null ? ` / ${a.expected}` : ""}</span>
              {a.expected
                ? (
                  <span class="bar">
                    <span style={`width:${Math.min(100, Math.round((a.done / a.expected) * 100))}%`}></span>
                  </span>
                )
                : null}
            </td>
            <td>{a.running}</td>
            <td>{pct(a.passAt1)}</td>
            <td>{a.costSoFar === null ? "—" : `${usd(a.costSoFar)} over ${a.costKnown} trials`}</td>
          </tr>
        ))}
        {!progress.arms.length
          ? (
            <tr>
              <td colspan={5} class="muted">No trials yet.</td>
            </tr>
          )
          : null}
      </tbody>
    </table>
    <h2>Latest blocks</h2>
    <table id="latest-blocks">
      <tbody id="blocks">
        {blocks.map((b) => (
          <tr>
            <td class="time">{time(b.t)}</td>
            <td>{b.row ? <a href={`/trials/${b.row.id}`}>{b.row.name}</a> : b.session}</td>
            <td>{b.arm ?? ""}</td>
            <td>
              <Decision value={b.decision} /> {b.event === "stop" ? "stop" : <code>{b.tool ?? ""}</code>}
            </td>
            <td>{b.rules.join(" ")}</td>
            <td class="reason">{firstLines(b.reason, 2, 200)}</td>
          </tr>
        ))}
        {!blocks.length
          ? (
            <tr>
              <td colspan={6} class="muted">No block in the live window.</td>
            </tr>
          )
          : null}
      </tbody>
    </table>
    <h2>Ledgers being written</h2>
    <table id="live">
      <thead>
        <tr>
          <th>trial</th>
          <th>arm</th>
          <th>seat</th>
          <th>guarded calls</th>
          <th>blocks</th>
          <th>rules</th>
          <th>last write</th>
        </tr>
      </thead>
      <tbody id="live-rows">
        {rows.map((r) => (
          <tr>
            <td>
              <a href={`/trials/${r.id}`}>{r.name}</a>
            </td>
            <td>{r.arm}</td>
            <td>{r.seat ?? r.domain}</td>
            <td>{r.guardedCalls}</td>
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
    </table>
  </section>
);

/** The Live page. */
export const LivePage: FC<{ now: Child; notice?: Child }> = ({ now, notice }) => (
  <Layout title="Live" active="Live" notice={notice}>
    <h1>Live</h1>
    <p class="muted">
      A running ablation: trials done against the experiment configs, pass@1 and cost so far, and the guard's
      blocks as they happen (ledger files that grow, and records posted to /ingest).
    </p>
    {now}
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
.results{display:none;position:absolute;right:0;background:#fff;color:#222;list-style:none;margin:0;padding:.3rem;width:34rem;box-shadow:0 2px 8px #0004;z-index:5}
.results.open{display:block}.results a{color:#1d4ed8}.hits .results{display:block;position:static;box-shadow:none;width:auto}
.notice{background:#fef3c7;border:1px solid #f59e0b;padding:.4rem .8rem;margin:.5rem 1.5rem}
main{padding:1rem 1.5rem}table{border-collapse:collapse;background:#fff;width:100%}
th,td{border-bottom:1px solid #e5e7eb;padding:.25rem .5rem;text-align:left;vertical-align:top}
th a.sort{color:inherit;text-decoration:none}td.num{text-align:right;white-space:nowrap}
.muted{color:#6b7280}.error{color:#b91c1c}.badge{display:inline-block;padding:0 .4rem;border-radius:.6rem;font-size:12px;background:#e5e7eb;margin-left:.2rem}
.badge.warn{background:#fde68a}tr.marked td:first-child{border-left:3px solid #f59e0b}
.passed,.d-allow{background:#d1fae5}.failed,.d-deny,.d-block,.d-error{background:#fee2e2}.running{background:#dbeafe}
.d-shadow{background:#fef3c7}.d-release{background:#ede9fe}.d-context{background:#e0f2fe}.d-gap{background:#fde68a}.d-restart{background:#e0e7ff}
.basis{max-width:70rem}.guard.quiet{background:none;color:#6b7280;font-size:12px}
.charts{display:flex;gap:2rem;flex-wrap:wrap;margin-top:1rem}.chart text{fill:#222}
.trial{display:grid;grid-template-columns:minmax(0,3fr) minmax(18rem,1fr);gap:1.5rem}
#timeline,#ledger{list-style:none;padding:0}.ev{background:#fff;border-left:4px solid #d1d5db;margin:.35rem 0;padding:.35rem .6rem}
.ev.prompt{border-color:#0284c7}.ev.prompt .title{font-weight:600}.ev.user.feedback{border-color:#7c3aed}
.ev.system{border-color:#e5e7eb;color:#6b7280}.ev.rec{border-color:#0ea5e9}.ev.would{border-color:#d97706;background:#fffbeb}
.ev .text{white-space:pre-wrap;margin:.2rem 0}.call{border:1px solid #e5e7eb;border-radius:.3rem;padding:.25rem .4rem;margin:.3rem 0}
.call.call-deny{border:2px solid #dc2626}.call.call-release{border:2px solid #7c3aed}.call.call-shadow,.call.would-deny{border:2px dashed #d97706}
.guard.gd-deny{background:#fee2e2}.guard.gd-release{background:#ede9fe}.guard.gd-shadow{background:#fef3c7}.guard.gd-error{background:#fee2e2}
#scorecard code{word-break:break-all}.failed-checks{padding-left:1rem}.failed-checks li{margin:.4rem 0}.steps a{margin-right:.4rem}
.arg{margin-left:.5rem;font-size:12px;background:#f3f4f6;padding:0 .3rem;border-radius:.2rem}.arg .k{color:#6b7280}
.guard{margin:.2rem 0;padding:.2rem .4rem;border-radius:.2rem}.guard.would{background:#fffbeb;border:1px dashed #d97706}
.metrics{color:#6b7280;font-size:12px}.step{font-weight:600;font-size:12px}
.time{color:#6b7280;font-family:monospace}.pager{margin:.4rem 0}
.hit{margin:.2rem 0}.hit .msg{white-space:pre-wrap}.checks{color:#4b5563;font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:.4rem;max-height:24rem;overflow:auto;margin:.2rem 0}
pre.preview{max-height:6rem;font-size:12px}
.rule{display:inline-block;margin:.1rem .3rem .1rem 0;padding:0 .3rem;border:1px solid #d1d5db;border-radius:.3rem}
.rule.fired{background:#fee2e2}.rule.would{border-style:dashed;border-color:#d97706}.fp,.rule.fp{background:#fee2e2;font-weight:600}
tr.gap td:first-child{border-left:3px solid #f59e0b}tr.covered td:first-child{border-left:3px solid #10b981}
form#filters{margin:.5rem 0}form#filters label{margin-right:1rem}.would{color:#92400e}
#matrix td.cell{text-align:center}#matrix .all{background:#d1fae5}#matrix .none{background:#fee2e2}#matrix .some{background:#fef9c3}
#matrix .gained{outline:3px solid #059669;outline-offset:-3px;font-weight:700}#matrix .lost{outline:3px solid #dc2626;outline-offset:-3px;font-weight:700}
.legend .cell{padding:0 .3rem}.cell.gained{outline:2px solid #059669}.cell.lost{outline:2px solid #dc2626}
#matrix tr.group th{background:#f3f4f6}#matrix td.task{font-family:monospace;font-size:12px}
.bar{display:inline-block;width:8rem;height:.6rem;background:#e5e7eb;margin-left:.5rem;vertical-align:middle}.bar span{display:block;height:100%;background:#4c78a8}
#trials td{font-size:13px}#trials td:first-child{max-width:19rem;word-break:break-all}#trials td.task{max-width:13rem;word-break:break-all;font-size:12px;color:#4b5563}
#trials td:nth-child(9),#trials td:nth-child(10){max-width:12rem;font-size:12px}
.guard-ok{margin-left:.6rem;font-size:12px;color:#047857}
dl.facts{display:grid;grid-template-columns:auto 1fr;gap:.1rem .6rem}dl.facts dt{color:#6b7280}
.overlays a.active,.overlays a.active{font-weight:700}
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
export const HandbookPage: FC<
  { hits: readonly HandbookHit[]; query: string; note?: string; dir?: string; notice?: Child }
> = ({ hits, query, note, dir, notice }) => (
  <Layout title="Handbook" active="Handbook" notice={notice}>
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
