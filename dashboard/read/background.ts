/**
 * What a served dashboard does between requests: it scans the sources in slices (the first scan shows its
 * progress; later rescans are incremental and quiet), recomputes the figures when the trials changed, keeps the
 * search index in step, and reads the big ledgers still behind, so no request waits for any of it.
 */
import type { Figures } from "./figures.ts";
import { SLICE_BYTES } from "./ledgers.ts";
import type { RowSearch } from "./search.ts";
import type { Store } from "./store.ts";

/** How the background works. */
export interface BackgroundOptions {
  /** Milliseconds of work between two turns of the event loop. */
  sliceMs: number;
  /** Milliseconds between two scans (at least twice as long as the last one took). */
  scanMs: number;
  /** Called once the figures for new trials are computed (the server renders the Arms page then). */
  figuresReady?: () => Promise<unknown>;
}

/** Starts reading; `scanned` resolves when the first scan is done, `stop()` ends it. */
export function readInBackground(
  parts: { store: Store; figures: Figures; search: RowSearch },
  opts: BackgroundOptions,
): { scanned: Promise<void>; stop: () => void } {
  const { store, figures, search } = parts;
  let stopped = false;
  const pause = (ms: number) => new Promise<void>((r) => Deno.unrefTimer(setTimeout(r, ms)));
  let firstScan: () => void = () => {};
  const scanned = new Promise<void>((r) => firstScan = r);
  const loop = async () => {
    let version = -1;
    while (!stopped) {
      const started = Date.now();
      await store.scanInBackground(opts.sliceMs);
      firstScan();
      if (stopped) break;
      if (store.trialsVersion !== version) {
        version = store.trialsVersion;
        figures.get().then(opts.figuresReady).catch(() => {});
      }
      const textOf = (r: Parameters<Store["searchText"]>[0]) => store.searchText(r);
      while (!stopped && !search.syncSlice(store.version, store.rows(), textOf, opts.sliceMs)) await pause(0);
      // Rescans at most every scanMs, and leave the event loop at least twice the time the last one took.
      await pause(Math.max(opts.scanMs, 2 * (Date.now() - started)));
    }
  };
  loop().catch((err) => {
    console.error(`fiable dashboard: the background scan stopped: ${(err as Error).message}`);
  }).finally(firstScan);
  const pump = () => {
    if (stopped) return;
    const more = store.pump(SLICE_BYTES);
    Deno.unrefTimer(setTimeout(pump, more ? 0 : 200));
  };
  pump();
  return {
    scanned,
    stop: () => {
      stopped = true;
    },
  };
}
