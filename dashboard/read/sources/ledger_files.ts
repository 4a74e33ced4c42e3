/**
 * Source: the guard ledger files. A trial's own ledgers are found with the trial; every other JSONL below the
 * roots (live ledgers that grow, replay ledgers) is found by walking them. Each is tailed from the last byte
 * read (ledgers.ts), in budgets of bytes and milliseconds, so pages answer while a big backlog is read.
 */
import { sep } from "node:path";
import { type WalkCache, walkTree } from "../../../lib/walk.ts";
import { LedgerTail } from "../ledgers.ts";

/** Bytes read per step while pumping a backlog. */
const CHUNK = 256 << 10;

/** The `.jsonl` files below the roots: at most 8 levels down, none under a dot name or a folder in `skip`. */
function walkJsonl(roots: readonly string[], skip: Set<string>, cache?: WalkCache): Generator<string> {
  return walkTree(roots.filter((root) => !skip.has(root)), {
    depth: 8,
    skip: (name) => name.startsWith(".") || name === "node_modules" || name === "sessions",
    enter: (name, path) => !name.includes(".") && !skip.has(path),
    file: (name) => name.endsWith(".jsonl"),
  }, cache);
}

/** True when `path` is inside `dir`. */
function inside(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** The ledger files tailed, the trial that owns each of its own, and the versions last seen. */
export class LedgerFiles {
  /** Every tailed file by path. */
  readonly tails = new Map<string, LedgerTail>();
  /** A trial's own ledger and its trial folder. */
  readonly owner = new Map<string, string>();
  #versions = new Map<string, number>();

  /** Tails a trial's own ledger. */
  own(path: string, dir: string): void {
    if (!this.tails.has(path)) this.tails.set(path, new LedgerTail(path));
    this.owner.set(path, dir);
  }

  /** Tails every `.jsonl` below the roots outside `skip`; true when one was new. */
  find(roots: readonly string[], skip: Set<string>, cache?: WalkCache): boolean {
    let found = false;
    for (const path of walkJsonl(roots, skip, cache)) {
      if (this.tails.has(path)) continue;
      this.tails.set(path, new LedgerTail(path));
      found = true;
    }
    return found;
  }

  /** Stops tailing the files inside `dir` that no trial owns (a replay summary stands for them). */
  dropInside(dir: string): void {
    for (const path of [...this.tails.keys()]) {
      if (inside(path, dir) && !this.owner.has(path)) this.tails.delete(path);
    }
  }

  /** True while some file is still behind its end. */
  behind(): boolean {
    for (const tail of this.tails.values()) if (tail.behind) return true;
    return false;
  }

  /**
   * Reads more of the files still behind, in small chunks, until `budget` bytes or `ms` milliseconds are
   * spent; true while some remain.
   */
  pump(budget: number, ms: number): boolean {
    const t0 = performance.now();
    let left = budget;
    let more = false;
    for (const tail of this.tails.values()) {
      while (tail.behind && left > 0 && performance.now() - t0 < ms) {
        left -= tail.refresh(Math.min(left, CHUNK));
      }
      if (tail.behind) more = true;
      if (left <= 0 || performance.now() - t0 >= ms) break;
    }
    return more;
  }

  /**
   * Reads what the active files (behind, never read, or written within `windowMs`) grew by, about `budget`
   * bytes in all and until `timeMs` milliseconds are spent.
   */
  tail(budget: number, now: number, timeMs: number, windowMs: number): void {
    const t0 = performance.now();
    let left = budget;
    for (const tail of this.tails.values()) {
      const active = tail.behind || tail.mtime === 0 || now - tail.mtime <= windowMs;
      if (!active) continue;
      if (performance.now() - t0 > timeMs) break;
      // Every active ledger gets a little, so a small live append is never starved by a big backlog.
      left -= tail.refresh(Math.max(64 << 10, left));
    }
  }

  /** True when any file's records changed since the last call. */
  changed(): boolean {
    let changed = false;
    for (const [path, tail] of this.tails) {
      if (this.#versions.get(path) !== tail.version) {
        this.#versions.set(path, tail.version);
        changed = true;
      }
    }
    return changed;
  }
}
