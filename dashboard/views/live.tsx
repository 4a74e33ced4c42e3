/** The Live page: the running trials and the latest blocks (`#now`, polled). */
import type { Child, FC } from "hono/jsx";
import type { Row } from "../model.ts";
import type { BlockEvent } from "../ledgers.ts";
import type { Progress } from "../figures.ts";
import { Decision, duration, firstLines, pct, time, usd } from "./format.tsx";
import { Layout } from "./layout.tsx";

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
