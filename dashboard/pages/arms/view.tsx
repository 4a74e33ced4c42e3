/** The Arms page (the arms table, guard integrity, replay figures, charts) and a saved aggregate's page. */
import type { Child, FC } from "hono/jsx";
import type { AggregateResult } from "../../../lib/results/aggregate.ts";
import type { AggregateFile } from "../../read/sources/aggregates.ts";
import {
  type ArmRow,
  comparisonOf,
  type FiguresState,
  overallRows,
  RECIPE_TEXT,
  type ReplayFigure,
} from "../../read/figures.ts";
import { CostChart, PassChart } from "./charts.tsx";
import { fireCell, num, pct, usd } from "../../ui/format.tsx";
import { ON_CHANGE } from "../../ui/layout.tsx";
import type { ArmNames } from "../../read/arms.ts";
import { pointsInterval } from "../../../lib/results/points.ts";

function diffText(
  d: { diff: number | null; lo: number | null; hi: number | null; n_shared: number },
): string {
  return d.diff === null ? "—" : `${pointsInterval(d)} on ${d.n_shared} tasks`;
}

function guardText(r: ArmRow): string {
  const g = r.guard;
  if (!g) return "no ledger";
  return `${g.denies} denies · ${g.stop_blocks} stop blocks · ${g.releases} releases · ${g.errors} fail-open errors`;
}

function kText(r: ArmRow): string {
  return r.pass_hat_k.filter((p) => p.k >= 2).map((p) => `pass^${p.k} ${pct(p.value)}`).join(", ") || "—";
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
        <td class="num">{r.mean_agent_s === null ? "—" : `${num(r.mean_agent_s, 0)} s`}</td>
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
    "agent time / trial",
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
            <th>tampered · attempts</th>
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
                <td>
                  {i.tampered ?? 0} · {i.tamper_attempts ?? 0}
                  {i.tampered ? <span class="badge warn">⚠ ledger tampered with</span> : null}
                </td>
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

/** Folders whose trials ran as several arms: split, never pooled, and said first. */
const MixedArms: FC<{ mixed: ArmNames["mixed"] }> = ({ mixed }) =>
  mixed.length
    ? (
      <div id="mixed-arms" class="notice">
        {mixed.map(({ folder, ranAs }) => (
          <p key={folder}>
            Cannot pool the trials in <code>{folder}</code>: they ran as {Object.entries(ranAs)
              .map(([a, n]) => `${a} (${n})`).join(", ")}. Each is counted in the arm it ran as, never as one
            arm; give each arm its own trials_dir.
          </p>
        ))}
      </div>
    )
    : null;

/**
 * The figures part of the Arms page: `<section id="arms-figures">`, polling itself until computed, then fetched
 * again when the rows change.
 */
export const ArmsFigures: FC<{
  state: FiguresState | null;
  stale: boolean;
  replay: ReplayFigure[];
  orphans: number;
  mixed: ArmNames["mixed"];
}> = ({ state, stale, replay, orphans, mixed }) => {
  const poll = !state || stale;
  const result = state?.result ?? null;
  const recipe = state ? `recipe ${state.recipe}` : "";
  return (
    <section
      id="arms-figures"
      hx-get="/?part=figures"
      hx-trigger={poll ? "every 1s" : ON_CHANGE}
      hx-swap="outerHTML"
      data-ready={state && !stale ? "true" : "false"}
    >
      <MixedArms mixed={mixed} />
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
export const ArmsPage: FC<{ figures: Child; saved: readonly AggregateFile[] }> = (
  { figures, saved },
) => (
  <>
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
  </>
);

/** A saved aggregate.json, rendered with the same table as the live figures. */
export const AggregatePage: FC<{ file: AggregateFile }> = ({ file }) => {
  const result = file.data as unknown as AggregateResult;
  const ok = Array.isArray(result.rows) && Array.isArray(result.comparisons) &&
    result.rows.every((r) =>
      r && typeof r === "object" && r.pass_at_1_ci && Array.isArray(r.pass_hat_k) && Array.isArray(r.tasks)
    );
  return (
    <>
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
    </>
  );
};

// ---------- Matrix ----------
