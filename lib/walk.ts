/**
 * One walk through folder trees for every finder (trials, packets, ledgers, replay summaries, saved
 * aggregates): each says what it skips, enters and finds, and how deep it goes. Names are read in sorted order;
 * links are followed; an unreadable or vanished entry is passed over, never an error.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** What one walk looks for; a root is level 0. */
export interface WalkOptions {
  /** The deepest level whose folders are read (`Infinity`: no limit). */
  depth: number;
  /** True for a name that is neither entered nor found. */
  skip?: (name: string) => boolean;
  /** True for a name the walk enters if it is a folder (default: every name); given its path too. */
  enter?: (name: string, path: string) => boolean;
  /** True for a name found as a file when it was not entered (no look at what it is). */
  file?: (name: string) => boolean;
  /** True for a folder that is itself found (given its names): yielded, not entered. */
  folder?: (dir: string, names: string[]) => boolean;
}

/** A folder's names, sorted; none when it cannot be read. */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** True when `path` is a folder now (a link to one counts). */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function* walkFolder(dir: string, level: number, options: WalkOptions): Generator<string> {
  const names = namesIn(dir);
  if (options.folder?.(dir, names)) {
    yield dir;
    return;
  }
  for (const name of names) {
    if (options.skip?.(name)) continue;
    const path = join(dir, name);
    const enter = level < options.depth && (options.enter?.(name, path) ?? true) && isFolder(path);
    if (enter) yield* walkFolder(path, level + 1, options);
    else if (options.file?.(name)) yield path;
  }
}

/** The found files and folders below the roots (each root included), depth first, one at a time. */
export function* walkTree(roots: readonly string[], options: WalkOptions): Generator<string> {
  for (const root of roots) yield* walkFolder(root, 0, options);
}
