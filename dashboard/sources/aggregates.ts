/** Source: the aggregate.ts results (`aggregate.json`) below the results roots. */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
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
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (name === "aggregate.json") {
        const data = readJsonFile(path) as Record<string, unknown> | null;
        if (data && Array.isArray(data.rows)) {
          found.push({ id: rowId(`aggregate:${resolve(path)}`), path, data });
        }
      } else if (depth < 3 && !name.includes(".")) walk(path, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return found;
}
