/** The Checks page: each failed verifier check, its failures per arm, what protects it, and replay's timing. */
import type { FC } from "hono/jsx";
import { Refreshed } from "../../ui/layout.tsx";
import { Name } from "../../ui/format.tsx";
import type { CheckRow } from "./model.ts";

function trials(params: Record<string, string>): string {
  return `/trials?${new URLSearchParams(params)}`;
}

/** A count linking to the Trials list it counts (a plain 0 when there is none). */
const Count: FC<{ n: number; params: Record<string, string>; class?: string }> = (p) =>
  p.n
    ? <a href={trials(p.params)} {...(p.class ? { class: p.class } : {})}>{p.n}</a>
    : <span class="muted">0</span>;

/** One replay arm's cell: of the check's replayed failures, blocks in time, only too late, none. */
const ReplayCell: FC<{ row: CheckRow; arm: string }> = ({ row, arm }) => {
  const c = row.replay[arm];
  if (!c) return <span class="muted">not replayed</span>;
  const link = (timing: string) => ({ check: row.id, via: arm, timing });
  return (
    <>
      <div>
        <Count n={c.in_time} params={link("in-time")} class="in-time" /> in time
      </div>
      <div>
        <Count n={c.too_late} params={link("too-late")} /> too late
      </div>
      <div>
        <Count n={c.failed - c.in_time - c.too_late} params={link("none")} /> none{" "}
        <span class="muted">of {c.failed}</span>
      </div>
    </>
  );
};

/** The failed checks table: `<table id="checks">`. */
export const ChecksTable: FC<{ checks: CheckRow[]; arms: string[]; replayArms: string[] }> = (
  { checks, arms, replayArms },
) => (
  <table id="checks">
    <thead>
      <tr>
        <th rowspan={2}>check</th>
        {arms.length ? <th colspan={arms.length}>failed in</th> : null}
        <th rowspan={2}>all arms</th>
        <th rowspan={2}>protected by</th>
        <th rowspan={2}>doomed by</th>
        {replayArms.length ? <th colspan={replayArms.length}>a protecting block, replayed as</th> : null}
      </tr>
      <tr>
        {arms.map((a) => (
          <th key={a} class="arm" title={a}>
            <Name text={a} />
          </th>
        ))}
        {replayArms.map((a) => <th key={a} class="arm">{a}</th>)}
      </tr>
    </thead>
    <tbody>
      {checks.map((row) => (
        <tr id={`check-${row.id}`} class={row.protectors.length ? "covered" : ""}>
          <td>
            <a href={trials({ check: row.id })}>
              <code>
                <Name text={row.id} />
              </code>
            </a>
            {row.info ? <div class="muted">{row.info.kind} · preventable {row.info.preventable}</div> : null}
          </td>
          {arms.map((a) => (
            <td key={a} class="num">
              <Count n={row.failures[a] ?? 0} params={{ check: row.id, arm: a }} />
            </td>
          ))}
          <td class="num">
            <Count n={row.total} params={{ check: row.id }} />
          </td>
          <td class="checks">
            {row.protectors.length
              ? row.protectors.map((p) => (
                <div>
                  <a href={trials({ rule: p.id })}>{p.id}</a> <span class="muted">{p.name}</span>
                </div>
              ))
              : <span class="muted">nothing protects it</span>}
          </td>
          <td class="doom">
            {row.doomedBy.length > 2
              ? (
                <details>
                  <summary>{row.doomedBy.length} calls</summary>
                  {row.doomedBy.join(" or ")}
                </details>
              )
              : row.doomedBy.length
              ? row.doomedBy.join(" or ")
              : "the stop only"}
            {row.doomWith.length
              ? <div class="muted">only when {row.doomWith.join(" or ")} failed too</div>
              : null}
          </td>
          {replayArms.map((a) => (
            <td key={a} class="timing">
              <ReplayCell row={row} arm={a} />
            </td>
          ))}
        </tr>
      ))}
      {!checks.length
        ? (
          <tr>
            <td colspan={4 + arms.length + replayArms.length} class="muted">No trial failed a check.</td>
          </tr>
        )
        : null}
    </tbody>
  </table>
);

/**
 * Why trials failed, at a glance, and whether a block could have come in time: `<section id="checks-view">`,
 * fetched again when the rows change.
 */
export const ChecksView: FC<
  { checks: CheckRow[]; arms: string[]; replayArms: string[] }
> = ({ checks, arms, replayArms }) => (
  <Refreshed id="checks-view" url="/checks">
    <p class="muted">
      Each verifier check that failed in a trial, most failed first; each count opens the trials it counts. A
      check is protected by the rules, decisive judges and closure-gate obligations that name it. A block
      helps only if it comes at or before the check's doom, the first executed call that makes it impossible
      to pass (the stop, for a check no call dooms). {replayArms.length
        ? "The replay columns count, of the check's failures in replayed trials the guard could observe, " +
          "those where a block protecting it would have come in time, only too late, or not at all (replay's own " +
          "verdicts). A replay is a shadow: it shows when a block would have come, not what the agent would " +
          "have done after it."
        : "No replay verdicts were found: run `deno task replay --out DIR` and pass DIR to --results to see " +
          "whether blocks would have come in time."}
    </p>
    <div class="scroll">
      <ChecksTable checks={checks} arms={arms} replayArms={replayArms} />
    </div>
  </Refreshed>
);

/** The Checks page. */
export const ChecksPage: FC<
  { checks: CheckRow[]; arms: string[]; replayArms: string[] }
> = (props) => (
  <>
    <h1>Failed checks</h1>
    <ChecksView {...props} />
  </>
);
