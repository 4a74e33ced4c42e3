/** The Matrix page: pass rate per task and arm. */
import type { Child, FC } from "hono/jsx";
import type { Matrix } from "./model.ts";
import { Refreshed } from "../../ui/layout.tsx";
import { Name } from "../../ui/format.tsx";

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
              <td class="task">
                <Name text={row.task} />
              </td>
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
                      {matrix.control && matrix.arms[i] !== matrix.control
                        ? (
                          <a
                            class="compare"
                            href={`/compare?${new URLSearchParams({
                              task: row.task,
                              arm: matrix.control,
                              with: matrix.arms[i],
                            })}`}
                            title={`compare a trial of ${
                              matrix.arms[i]
                            } with one of ${matrix.control} on this task`}
                          >
                            {" "}⇄
                          </a>
                        )
                        : null}
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

/** The matrix and its legend: `<section id="matrix-view">`, polling while the figures are computed. */
export const MatrixView: FC<{ matrix: Matrix | null; pending: boolean; controlNote?: string | null }> = (
  { matrix, pending, controlNote },
) => (
  <Refreshed id="matrix-view" url="/matrix" poll={pending}>
    {pending ? <p class="muted">Computing the figures…</p> : null}
    {matrix
      ? (
        <>
          <p class="muted legend">
            Each cell: passes/attempts, linking to those trials. {matrix.control
              ? (
                <>
                  <span class="cell gained">▲ gained</span> and <span class="cell lost">▼ lost</span>{" "}
                  mark tasks that flipped against {matrix.control}{" "}
                  (at least half the attempts passing, as aggregate.ts counts them); ⇄ compares a trial of the
                  arm with one of {matrix.control} side by side.
                </>
              )
              : controlNote ?? "No control arm, so no flips (start with --control ARM)."}
          </p>
          <MatrixTable matrix={matrix} />
        </>
      )
      : !pending
      ? <p class="muted">No scored trials below --logs yet.</p>
      : null}
  </Refreshed>
);

/** The Matrix page. */
export const MatrixPage: FC<{ matrix: Matrix | null; pending: boolean; controlNote?: string | null }> = (
  props,
) => (
  <>
    <h1>Task × arm</h1>
    <MatrixView {...props} />
  </>
);
