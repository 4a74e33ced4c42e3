/**
 * The guard's hook entry. `guard.ts <event>` reads one hook JSON object on stdin and prints exactly one
 * JSON object; `guard.ts serve --port N` answers Claude Code `"type":"http"` hooks at `POST /hook/<event>`
 * (under a supervisor that restarts it); `guard.ts up …` brings the resident guard up in a trial and writes
 * the hook settings. Events: pre, post, post-fail, stop, prompt, session-start. Fail-open: any internal
 * error, bad input, time overrun or termination signal answers allow (exit 0) and is recorded in the
 * ledger, or on stderr when that is unwritable.
 *
 * The hook path (an event word, lib/guard/command.ts) loads no `node:` module and no npm package under Deno,
 * and nothing it does not use: I/O goes through lib/guard/runtime/host.ts, and the other commands, the live
 * post, the profile parser and the resident check are loaded when used (lib/guard/runtime/lazy.ts;
 * tests/startup.ts keeps all this so; issue 20).
 */
import { isEventWord, neutralReply } from "./lib/guard/engine/hook.ts";
import { host } from "./lib/guard/runtime/host.ts";
import { lazy } from "./lib/guard/runtime/lazy.ts";

/** Entry: `guard.ts <event>`, `guard.ts serve --port N`, `guard.ts up …` or `guard.ts settings …`. */
export async function main(args: string[]): Promise<number> {
  const [word] = args;
  if (word !== undefined && isEventWord(word)) {
    let command: typeof import("./lib/guard/command.ts");
    try {
      command = await lazy<typeof command>("command");
    } catch (err) {
      // Command mode itself did not load (a broken install): still the one neutral answer, never a failed hook.
      host.writeOut(JSON.stringify(neutralReply(word)) + "\n");
      host.writeErr(`fiable-guard: cannot load command mode (${(err as Error).message}); allowed\n`);
      return 0;
    }
    await command.runCommand(word, host.env);
    return 0;
  }
  // Subcommands, --help, flags and unknown words: the parser and the servers load only here, off the hook path.
  const { guardCommand } = await lazy<typeof import("./lib/guard/commands.ts")>("commands");
  return await guardCommand(args);
}

if (import.meta.main) main(host.args).then(host.setExitCode);
