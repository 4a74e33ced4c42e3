/**
 * The resident guard's supervisor: `guard serve` runs the server as a child (`serve --child`) and, when the
 * child dies for any reason (a crash, the OOM killer, `kill -9`), starts it again on the same port within
 * about a second, telling it since when it was down so it records the restart and the gap in the ledger.
 * A child that never listened (the port is taken) is not retried: the caller falls back to command hooks.
 * Children that keep dying young (a bundle replaced by one that cannot start) are retried `GIVE_UP_AFTER`
 * times, not forever. The server watches its supervisor in turn (`watchSupervisor`): when the supervisor dies
 * first, the server starts another one that adopts it (`serve --adopt <pid>`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import type { Arm } from "../engine/record.ts";
import { alive, guardArgv, startResident } from "./resident.ts";

/** Respawn delay after a death; doubled for each further child that dies young, up to `MAX_RESPAWN_MS`. */
export const RESPAWN_MS = 200;
const MAX_RESPAWN_MS = 5000;
/** A child that lived shorter than this counts as dying young. */
const YOUNG_MS = 2000;
/** A death, then this many less one restarts that each died young: the supervisor stops and exits 1. */
export const GIVE_UP_AFTER = 5;
/** How often an adopted server, or a server's supervisor, is checked for life. */
export const WATCH_MS = 200;

/** What the supervisor runs. */
export interface SuperviseOptions {
  /** The guard bundle (or guard.ts). */
  script: string;
  port: number;
  host: string;
  env: Record<string, string | undefined>;
  /** Extra arguments for the first child only (`--restart-note …`, `--session …` from the caller). */
  firstArgs?: string[];
  /** A live server (pid) to watch instead of starting a first child: its supervisor died (`--adopt`). */
  adopt?: number;
}

/** Runs and re-runs the server child until the supervisor is told to stop; resolves with its exit code. */
export function supervise(options: SuperviseOptions): Promise<number> {
  return new Promise((resolve) => {
    let port = options.port;
    let child: ChildProcess | null = null;
    let adopted = options.adopt ?? 0;
    let ready = Boolean(adopted);
    let stopping = false;
    let young = 0;
    let bornAt = 0;
    const signals = ["SIGTERM", "SIGINT", "SIGHUP"] as const;
    const finish = (code: number) => {
      for (const signal of signals) process.off(signal, stop);
      resolve(code);
    };

    /** After a server died: start the next one, or give up when they keep dying young. */
    const died = (pid: number | undefined, how: string) => {
      const downSince = new Date().toISOString();
      young = Date.now() - bornAt < YOUNG_MS ? young + 1 : 1;
      if (young >= GIVE_UP_AFTER) {
        process.stderr.write(
          `fiable-guard: the resident guard died within ${YOUNG_MS} ms of each of its last ${young - 1} ` +
            `restarts (last: ${how}); not starting it again. Hooks go unanswered (Claude Code goes on without ` +
            "them) until the next SessionStart starts a guard; check the guard file.\n",
        );
        return finish(1);
      }
      const delay = Math.min(RESPAWN_MS * 2 ** Math.max(0, young - 1), MAX_RESPAWN_MS);
      const why = `supervisor restart: the resident guard (pid ${pid}) exited (${how}) at ${downSince}`;
      process.stderr.write(`fiable-guard: ${why}; starting it again on port ${port}.\n`);
      setTimeout(() => {
        if (!stopping) start(["--restart-note", why, "--down-since", downSince]);
      }, delay);
    };

    const start = (extra: string[]) => {
      const args = ["serve", "--child", "--port", String(port), "--host", options.host, ...extra];
      const [cmd, ...rest] = guardArgv(options.script, args);
      bornAt = Date.now();
      const current = spawn(cmd, rest, {
        stdio: ["ignore", "inherit", "pipe"],
        env: { ...options.env, FIABLE_SUPERVISOR_PID: String(process.pid) },
      });
      child = current;
      let seen = "";
      current.stderr?.on("data", (chunk: Buffer) => {
        process.stderr.write(chunk);
        if (ready && port) return;
        seen = (seen + chunk.toString("utf8")).slice(-4096);
        const m = /serving on http:\/\/[^\s:]+:(\d+)/.exec(seen);
        if (m) {
          ready = true;
          port = Number(m[1]);
        }
      });
      current.on("exit", (code, signal) => {
        if (child === current) child = null;
        if (stopping) return finish(0);
        if (!ready) {
          process.stderr.write(
            `fiable-guard: the server exited before listening (${signal ?? code}); ` +
              "not restarting it.\n",
          );
          return finish(typeof code === "number" && code !== 0 ? code : 1);
        }
        died(current.pid, signal ? `signal ${signal}` : `code ${code}`);
      });
    };

    /** An adopted server is no child of ours: its death is seen by polling. */
    const watchAdopted = () => {
      const timer = setInterval(() => {
        if (stopping || alive(adopted)) return;
        clearInterval(timer);
        const pid = adopted;
        adopted = 0;
        died(pid, "its supervisor had died; exit status unknown");
      }, WATCH_MS);
    };

    const stop = () => {
      stopping = true;
      if (adopted) {
        try {
          process.kill(adopted, "SIGTERM");
        } catch { /* gone */ }
        return finish(0);
      }
      const current = child;
      if (!current) return finish(0);
      current.kill("SIGTERM");
      setTimeout(() => current.kill("SIGKILL"), 2000).unref();
    };
    for (const signal of signals) process.on(signal, stop);
    if (adopted) {
      process.stderr.write(`fiable-guard: adopted the resident guard (pid ${adopted}) on port ${port}.\n`);
      watchAdopted();
    } else start(options.firstArgs ?? []);
  });
}

/** What a supervised server needs to replace its supervisor. */
export interface WatchOptions {
  script: string;
  port: number;
  host: string;
  arm: Arm;
  ledgerDir: string;
  /** The server's environment; `FIABLE_SUPERVISOR_PID` is updated when a new supervisor adopts it. */
  env: Record<string, string | undefined>;
}

/**
 * For a supervised server: when its supervisor dies first (killed, the OOM killer), start another one that
 * adopts this server, so a later death of the server is still restarted. The new supervisor is written to
 * guard.pid; the watch goes on with it. Never throws; a supervisor that cannot be started is said on stderr.
 */
export function watchSupervisor(options: WatchOptions): void {
  const timer = setInterval(() => {
    const pid = Number(options.env.FIABLE_SUPERVISOR_PID);
    if (!pid || alive(pid)) return;
    try {
      const next = startResident({
        script: options.script,
        port: options.port,
        host: options.host,
        arm: options.arm,
        ledgerDir: options.ledgerDir,
        env: { ...options.env, FIABLE_SUPERVISOR_PID: undefined },
        adopt: process.pid,
      });
      options.env.FIABLE_SUPERVISOR_PID = String(next.pid);
    } catch (err) {
      clearInterval(timer);
      options.env.FIABLE_SUPERVISOR_PID = undefined;
      process.stderr.write(
        `fiable-guard: the supervisor (pid ${pid}) died and no other could be started: ` +
          `${(err as Error).message}; serving unsupervised.\n`,
      );
    }
  }, WATCH_MS);
  timer.unref?.();
}
