/**
 * One walk through folder trees for every finder (trials, packets, ledgers, replay summaries, saved
 * aggregates): each says what it skips, enters and finds, and how deep it goes. Names are read in sorted order;
 * links are followed; an unreadable or vanished entry is passed over, never an error. A walk done again and
 * again over the same trees (the dashboard's rescans) keeps a `WalkCache`: a folder whose modification time
 * has not changed costs one stat, not a listing and a stat per entry.
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

/** What one walk saw of a folder: its names, which of them are folders, and whether it was found itself. */
interface Seen {
  mtime: number;
  names: string[];
  folders: Map<string, boolean>;
  found: boolean;
}

/**
 * What a walk saw of each folder, by path, for the next walk with the same options: a folder whose
 * modification time is unchanged has the same names (adding, removing or renaming an entry changes it), so its
 * listing and what was found in it are reused. A folder changed within the last `racyMs` before it was seen
 * (a time too close to tell apart from a change in the same tick) is read again next time.
 */
export class WalkCache {
  #seen = new Map<string, Seen>();
  constructor(readonly racyMs = 2000) {}

  /** The folder as last seen when it has not changed since, else null; the modification time is in `mtime`. */
  look(dir: string): { seen: Seen | null; mtime: number } {
    let mtime = -1;
    try {
      mtime = statSync(dir).mtimeMs;
    } catch {
      // vanished: read (and find nothing) below
    }
    const seen = this.#seen.get(dir);
    return { seen: seen && seen.mtime === mtime && mtime >= 0 ? seen : null, mtime };
  }

  /** Keeps what was seen of a folder, unless it changed too recently to be trusted. */
  keep(dir: string, seen: Seen, now = Date.now()): void {
    if (seen.mtime < 0 || now - seen.mtime < this.racyMs) this.#seen.delete(dir);
    else this.#seen.set(dir, seen);
  }

  /** Folders remembered. */
  get size(): number {
    return this.#seen.size;
  }
}

function* walkFolder(dir: string, level: number, options: WalkOptions, cache?: WalkCache): Generator<string> {
  const look = cache?.look(dir);
  const seen: Seen = look?.seen ?? {
    mtime: look?.mtime ?? -1,
    names: namesIn(dir),
    folders: new Map(),
    found: false,
  };
  if (!look?.seen) seen.found = options.folder?.(dir, seen.names) ?? false;
  cache?.keep(dir, seen);
  if (seen.found) {
    yield dir;
    return;
  }
  for (const name of seen.names) {
    if (options.skip?.(name)) continue;
    const path = join(dir, name);
    let enter = level < options.depth && (options.enter?.(name, path) ?? true);
    if (enter) {
      let folder = seen.folders.get(name);
      if (folder === undefined) seen.folders.set(name, folder = isFolder(path));
      enter = folder;
    }
    if (enter) yield* walkFolder(path, level + 1, options, cache);
    else if (options.file?.(name)) yield path;
  }
}

/**
 * The found files and folders below the roots (each root included), depth first, one at a time; with a
 * `cache`, folders unchanged since the walk that filled it are not read again.
 */
export function* walkTree(
  roots: readonly string[],
  options: WalkOptions,
  cache?: WalkCache,
): Generator<string> {
  for (const root of roots) yield* walkFolder(root, 0, options, cache);
}
