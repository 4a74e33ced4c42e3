/**
 * The progress line of a long command (replay, aggregate): done of total, rate and time left, redrawn in
 * place with a carriage return on stderr, and only when stderr is a terminal, so a pipe or a log file gets
 * nothing. `progressLine` is pure; `terminalProgress` is the thin writer around it.
 */
import process from "node:process";

/** What the line is drawn from: counts and the time since the work started. */
export interface Progress {
  done: number;
  total: number;
  elapsedMs: number;
  /** The unit counted, plural: `trials`, `trajectories`. */
  what: string;
}

/** A duration for a person: `9 s`, `2 min 05 s`, `1 h 03 min`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, "0")} min`;
}

function rate(perSecond: number, what: string): string {
  if (perSecond >= 1) return `${perSecond.toFixed(perSecond < 10 ? 1 : 0)} ${what}/s`;
  const perMinute = perSecond * 60;
  return `${perMinute.toFixed(perMinute < 10 ? 1 : 0)} ${what}/min`;
}

/**
 * One progress line: `120/700 trials · 41 trials/s · ETA 14 s`; `… · done in 17 s` at the end. Before the
 * first item is done (or within the first tenth of a second) there is no rate to show, so neither is shown.
 */
export function progressLine(p: Progress): string {
  const head = `${p.done}/${p.total} ${p.what}`;
  const seconds = p.elapsedMs / 1000;
  if (p.done >= p.total) return `${head} · done in ${duration(p.elapsedMs)}`;
  if (p.done <= 0 || seconds < 0.1) return `${head} · ETA …`;
  const perSecond = p.done / seconds;
  return `${head} · ${rate(perSecond, p.what)} · ETA ${duration((p.total - p.done) / perSecond * 1000)}`;
}

/** Where and how the writer draws; tests pass their own. */
export interface ProgressIo {
  isTerminal?: boolean;
  write?: (text: string) => void;
  now?: () => number;
  /** Least time between two redraws, ms (default 100); the last count is always drawn. */
  every?: number;
}

/**
 * A `(done, total)` callback that redraws the progress line of `label` in place on stderr, or undefined when
 * stderr is not a terminal (then the caller reports nothing).
 */
export function terminalProgress(
  label: string,
  what: string,
  io: ProgressIo = {},
): ((done: number, total: number) => void) | undefined {
  if (!(io.isTerminal ?? process.stderr.isTTY === true)) return undefined;
  const write = io.write ?? ((text: string) => void process.stderr.write(text));
  const now = io.now ?? (() => performance.now());
  const every = io.every ?? 100;
  const start = now();
  let drawn = -Infinity;
  return (done, total) => {
    const t = now();
    const last = done >= total;
    if (!last && t - drawn < every) return;
    drawn = t;
    // \x1b[K clears what a longer earlier line left to the right.
    write(
      `\r${label}: ${progressLine({ done, total, elapsedMs: t - start, what })}\x1b[K${last ? "\n" : ""}`,
    );
  };
}
