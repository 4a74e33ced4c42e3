/** Source: the aggregate.ts results (`aggregate.json`) below the results roots. */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { WalkCache, walkTree } from "../../../lib/walk.ts";
import { rowId } from "../model.ts";
import { readJsonFile } from "./trials.ts";

/** One aggregate.ts result found under a results root. */
export interface AggregateFile {
  id: string;
  path: string;
  data: Record<string, unknown>;
}

/** The `aggregate.json` files (aggregate.ts output) up to three levels below the roots. */
function aggregatePaths(roots: readonly string[], cache?: WalkCache): Generator<string> {
  return walkTree(roots, {
    depth: 3,
    enter: (name) => !name.includes("."),
    file: (name) => name === "aggregate.json",
  }, cache);
}

/** An aggregate.json read, or null when it is not aggregate.ts output. */
function readAggregate(path: string): AggregateFile | null {
  const data = readJsonFile(path) as Record<string, unknown> | null;
  return data && Array.isArray(data.rows) ? { id: rowId(`aggregate:${resolve(path)}`), path, data } : null;
}

/** Every `aggregate.json` (aggregate.ts output) up to three levels below the results roots. */
export function findAggregates(roots: readonly string[]): AggregateFile[] {
  return [...aggregatePaths(roots)].map(readAggregate).filter((f): f is AggregateFile => !!f);
}

/** The saved aggregates as the scans find them: a file is read again only when it changed. */
export class SavedAggregates {
  #walked = new WalkCache();
  #read = new Map<string, { mtime: number; file: AggregateFile | null }>();
  #files: AggregateFile[] = [];

  /** Finds them below the roots again. */
  find(roots: readonly string[]): void {
    const next = new Map<string, { mtime: number; file: AggregateFile | null }>();
    for (const path of aggregatePaths(roots, this.#walked)) {
      let mtime = -1;
      try {
        mtime = statSync(path).mtimeMs;
      } catch {
        continue;
      }
      const known = this.#read.get(path);
      next.set(path, known?.mtime === mtime ? known : { mtime, file: readAggregate(path) });
    }
    this.#read = next;
    this.#files = [...next.values()].map((x) => x.file).filter((f): f is AggregateFile => !!f);
  }

  /** The aggregates found by the last `find`. */
  files(): readonly AggregateFile[] {
    return this.#files;
  }
}
