/** The Trial page's "Compare with" line: links to the Compare page for the other trials of the task. */
import type { FC } from "hono/jsx";
import type { Row } from "../read/model.ts";
import { Outcome } from "./format.tsx";

/** The other trials of a row's task, for the Trial page's "Compare with" line. */
export const CompareWith: FC<{ row: Row; peers: readonly Row[] }> = ({ row, peers }) =>
  peers.length
    ? (
      <p id="compare-with">
        Compare with: {peers.slice(0, 12).map((p, i) => (
          <>
            {i ? " · " : ""}
            <a href={`/compare?${new URLSearchParams({ a: row.id, b: p.id })}`}>
              {p.arm} {p.name.split("__").pop()}
            </a>{" "}
            <Outcome value={p.outcome} />
          </>
        ))}
        {peers.length > 12
          ? (
            <>
              {` +${peers.length - 12} more on `}
              <a href={`/trials?${new URLSearchParams({ task: row.task })}`}>the Trials page</a>
            </>
          )
          : null}
      </p>
    )
    : null;
