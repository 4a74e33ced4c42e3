/** The Matrix page's model: passes/attempts per task and arm, and the tasks that flipped against the control. */
import type { AggregateResult } from "../../../lib/results/aggregate.ts";

/** One cell of the task × arm matrix. */
export interface MatrixCell {
  arm: string;
  n: number;
  c: number;
  /** Against the control (majority of attempts, as aggregate's gained/lost lists). */
  flip: "gained" | "lost" | null;
}

/** One task's row. */
export interface MatrixRow {
  task: string;
  domain: string;
  cells: (MatrixCell | null)[];
}

/** The task × arm matrix: passes/attempts per cell, flips from aggregate's comparisons. */
export interface Matrix {
  arms: string[];
  control: string | null;
  rows: MatrixRow[];
}

/** Builds the matrix from the aggregate's per-domain task outcomes and its overall comparisons. */
export function taskMatrix(result: AggregateResult): Matrix {
  const arms = [...new Set(result.rows.map((r) => r.arm))];
  const domainOf = new Map<string, string>();
  const outcome = new Map<string, { n: number; c: number }>();
  for (const r of result.rows) {
    for (const t of r.tasks) {
      if (r.domain !== "overall") domainOf.set(t.task, r.domain);
      else outcome.set(`${r.arm}\u0000${t.task}`, { n: t.n, c: t.c });
    }
  }
  const flips = new Map<string, "gained" | "lost">();
  for (const c of result.comparisons) {
    if (c.domain !== "overall") continue;
    for (const t of c.gained) flips.set(`${c.arm}\u0000${t}`, "gained");
    for (const t of c.lost) flips.set(`${c.arm}\u0000${t}`, "lost");
  }
  const order = ["pa_provider", "pa_um", "cm"];
  const tasks = [...new Set([...outcome.keys()].map((k) => k.split("\u0000")[1]))].sort((a, b) => {
    const da = order.indexOf(domainOf.get(a) ?? ""), db = order.indexOf(domainOf.get(b) ?? "");
    return (da < 0 ? 9 : da) - (db < 0 ? 9 : db) || a.localeCompare(b);
  });
  return {
    arms,
    control: result.control,
    rows: tasks.map((task) => ({
      task,
      domain: domainOf.get(task) ?? "unknown",
      cells: arms.map((arm) => {
        const o = outcome.get(`${arm}\u0000${task}`);
        return o ? { arm, ...o, flip: flips.get(`${arm}\u0000${task}`) ?? null } : null;
      }),
    })),
  };
}
