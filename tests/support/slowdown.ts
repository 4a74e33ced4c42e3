/**
 * How loaded the machine is, measured in the same moment as what a test times: a test of a time budget (the
 * guard answers within its 1.5 s above the runtime's start) holds the work to the budget, not the machine's
 * other load, so it scales the budget by how much slower than its own CPU time this process runs now.
 */
import process from "node:process";

/**
 * Wall-clock ms per ms of CPU this process gets now, from a busy loop of `cpuMs` of CPU time: about 1 on an idle
 * machine, about N / cores while N busy processes of the same priority share the cores. Never below 1 (the
 * runtime's own threads can add CPU time beside the loop).
 */
export function slowdown(cpuMs = 25): number {
  const start = process.cpuUsage();
  const t0 = performance.now();
  let spent = 0;
  while (spent < cpuMs * 1000) {
    const used = process.cpuUsage(start);
    spent = used.user + used.system;
  }
  return Math.max(1, (performance.now() - t0) / (spent / 1000));
}

/**
 * `run`'s result and the CPU time this process spent on it, in ms: for a synchronous computation, a measure of
 * its work that the machine's other load does not stretch (a linear-time check stays a check of the algorithm).
 */
export function cpuTimed<T>(run: () => T): { value: T; cpuMs: number } {
  const start = process.cpuUsage();
  const value = run();
  const used = process.cpuUsage(start);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}
