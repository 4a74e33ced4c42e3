/** Runs code with console output captured instead of printed: a test of a command's failure path stays quiet. */

/** What the code printed, by stream, and what it returned. */
export interface Quiet<T> {
  value: T;
  out: string[];
  err: string[];
}

/** Runs `run` with console.log/info going to `out` and console.error/warn to `err`, then restores them. */
export async function quietly<T>(run: () => T | Promise<T>): Promise<Quiet<T>> {
  const saved = { log: console.log, info: console.info, error: console.error, warn: console.warn };
  const out: string[] = [];
  const err: string[] = [];
  console.log = console.info = (...a: unknown[]) => void out.push(a.join(" "));
  console.error = console.warn = (...a: unknown[]) => void err.push(a.join(" "));
  try {
    return { value: await run(), out, err };
  } finally {
    Object.assign(console, saved);
  }
}
