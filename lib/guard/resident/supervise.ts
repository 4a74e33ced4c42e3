/**
 * The resident guard's supervisor: `guard serve` runs the server as a child (`serve --child`) and, when the
 * child dies for any reason (a crash, the OOM killer, `kill -9`), starts it again on the same port within
 * about a second, telling it since when it was down so it records the restart and the gap in the ledger.
 * A child that never listened (the port is taken) is not retried: the caller falls back to command hooks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { guardArgv } from "./resident.ts";

/** Respawn delay after a death; doubled for each further child that dies young, up to `MAX_RESPAWN_MS`. */
export const RESPAWN_MS = 200;
const MAX_RESPAWN_MS = 5000;
/** A child that lived shorter than this counts as dying young. */
const YOUNG_MS = 2000;

/** What the supervisor runs. */
export interface SuperviseOptions {
  /** The guard bundle (or guard.ts). */
  script: string;
  port: number;
  host: string;
  env: Record<string, string | undefined>;
  /** Extra arguments for the first child only (`--restart-note …`, `--session …` from the caller). */
  firstArgs?: string[];
}

/** Runs and re-runs the server child until the supervisor is told to stop; resolves with its exit code. */
export function supervise(options: SuperviseOptions): Promise<number> {
  return new Promise((resolve) => {
    let port = options.port;
    let child: ChildProcess | null = null;
    let ready = false;
    let stopping = false;
    let young = 0;
    let bornAt = 0;

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
        if (stopping) return resolve(0);
        if (!ready) {
          process.stderr.write(
            `fiable-guard: the server exited before listening (${signal ?? code}); ` +
              "not restarting it.\n",
          );
          return resolve(typeof code === "number" && code !== 0 ? code : 1);
        }
        const downSince = new Date().toISOString();
        young = Date.now() - bornAt < YOUNG_MS ? young + 1 : 1;
        const delay = Math.min(RESPAWN_MS * 2 ** Math.max(0, young - 1), MAX_RESPAWN_MS);
        const why = `supervisor restart: the resident guard (pid ${current.pid}) exited ` +
          `(${signal ? `signal ${signal}` : `code ${code}`}) at ${downSince}`;
        process.stderr.write(`fiable-guard: ${why}; starting it again on port ${port}.\n`);
        setTimeout(() => {
          if (!stopping) start(["--restart-note", why, "--down-since", downSince]);
        }, delay);
      });
    };

    const stop = () => {
      stopping = true;
      const current = child;
      if (!current) return resolve(0);
      current.kill("SIGTERM");
      setTimeout(() => current.kill("SIGKILL"), 2000).unref();
    };
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, stop);
    start(options.firstArgs ?? []);
  });
}
