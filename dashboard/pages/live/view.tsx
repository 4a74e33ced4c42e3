/** The Live page: the running trials and the latest blocks (`#now`, polled). */
import type { Child, FC } from "hono/jsx";
import type { Row } from "../../read/model.ts";
import type { BlockEvent } from "../../read/ledgers.ts";
import type { Progress } from "./progress.ts";
import { Decision, firstLines, pct, time, usd } from "../../ui/format.tsx";
import { duration } from "../../../lib/progress.ts";

/** "10 min": the live window in words. */
function windowText(ms: number): string {
  return ms % 60_000 ? `${Math.round(ms / 1000)} s` : `${ms / 60_000} min`;
}

/** "1 trial", "2 trials". */
function trials(n: number): string {
  return `${n} ${n === 1 ? "trial" : "trials"}`;
}

/** What is live: trials being written now, and the rate over the live window only. */
function liveText(p: Progress): string {
  const w = windowText(p.windowMs);
  const writing = p.live
    ? `${trials(p.live)} being written (no result.json yet, written in the last ${w})`
    : `no trial being written (none without a result.json was written in the last ${w})`;
  const eta = p.eta !== null ? ` · ETA ${duration(p.eta * 1000)} at that rate` : "";
  const rate = p.rate !== null
    ? `${p.recent} finished in the last ${w}: ${p.rate.toFixed(1)} trials/hour over that window${eta}`
    : `none finished in the last ${w}, so no rate${p.expected !== null ? " or ETA" : ""}`;
  return `${writing} · ${rate}.`;
}

/** What is not live: the trials done (most read from disk), those that stopped without a result, those outside. */
function doneText(p: Progress): string {
  const w = windowText(p.windowMs);
  const earlier = p.done - p.recent;
  const parts = [
    (p.expected !== null
      ? `${p.done} of the ${p.expected} expected trials have a result`
      : `${trials(p.done)} ${p.done === 1 ? "has" : "have"} a result`) +
    (earlier
      ? `; ${earlier === p.done ? "all" : earlier} finished before the last ${w} (read from disk, not live).`
      : "."),
  ];
  if (p.stalled) {
    parts.push(
      p.stalled === 1
        ? `1 trial folder has no result.json and was last written over ${w} ago: stopped or crashed, ` +
          "counted as neither."
        : `${p.stalled} trial folders have no result.json and were last written over ${w} ago: stopped or ` +
          "crashed, counted as neither.",
    );
  }
  if (p.outside) {
    parts.push(
      `${trials(p.outside)} under --logs ${p.outside === 1 ? "lies" : "lie"} outside the configs' trials ` +
        "dirs: counted nowhere on this page.",
    );
  }
  return parts.join(" ");
}

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
      <strong>Live now:</strong> {liveText(progress)}
    </p>
    <p id="from-disk">
      <strong>Done:</strong> {doneText(progress)}
      {!configured
        ? " Start the dashboard with --experiments <chi-bench>/configs/experiments/fiable for expected totals and an ETA."
        : ""}
    </p>
    {progress.notes.map((n) => <p key={n} class="muted">{n}</p>)}
    {problems.map((p) => <p key={p} class="error">{p}</p>)}
    <table id="progress">
      <thead>
        <tr>
          <th>arm</th>
          <th>done / expected</th>
          <th>being written now</th>
          <th>pass@1 of those done</th>
          <th>cost of those done ({recipe})</th>
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
            <td>
              {a.live}
              {a.stalled ? <span class="muted">{` (${a.stalled} stalled)`}</span> : null}
            </td>
            <td>{a.passAt1 === null ? "—" : `${pct(a.passAt1)} (${a.passed} of ${a.scored} scored)`}</td>
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
export const LivePage: FC<{ now: Child }> = ({ now }) => (
  <>
    <h1>Live</h1>
    <p class="muted">
      A running ablation: what is being written now and how fast trials finish over the live window, the
      trials done against the experiment configs (most of them read from disk), their pass@1 and cost, and the
      guard's blocks as they happen (ledger files that grow, and records posted to /ingest).
    </p>
    {now}
  </>
);
