/** Source: the aggregate.ts results (`aggregate.json`) below the results roots. */
import { resolve } from "node:path";
import { walkTree } from "../../../lib/walk.ts";
import { rowId } from "../model.ts";
import { readJsonFile } from "./trials.ts";

/** One aggregate.ts result found under a results root. */
export interface AggregateFile {
  id: string;
  path: string;
  data: Record<string, unknown>;
}

/** Every `aggregate.json` (aggregate.ts output) up to three levels below the results roots. */
export function findAggregates(roots: readonly string[]): AggregateFile[] {
  const found: AggregateFile[] = [];
  const files = walkTree(roots, {
    depth: 3,
    enter: (name) => !name.includes("."),
    file: (name) => name === "aggregate.json",
  });
  for (const path of files) {
    const data = readJsonFile(path) as Record<string, unknown> | null;
    if (data && Array.isArray(data.rows)) found.push({ id: rowId(`aggregate:${resolve(path)}`), path, data });
  }
  return found;
}
