/**
 * The guard's hook entry. `guard.ts <event>` reads one hook JSON object on stdin and prints exactly one
 * JSON object; `guard.ts serve --port N` answers Claude Code `"type":"http"` hooks at `POST /hook/<event>`
 * (under a supervisor that restarts it); `guard.ts up …` brings the resident guard up in a trial and writes
 * the hook settings. Events: pre, post, post-fail, stop, prompt, session-start. Fail-open: any internal
 * error, bad input, time overrun or termination signal answers allow (exit 0) and is recorded in the
 * ledger, or on stderr when that is unwritable.
 *
 * Written once against `node:` APIs (lib/guard/io.ts), which Deno and the Node bundle both run; the commands
 * and the http server load only for a subcommand, through a literal `import()` (the Node bundle evaluates
 * them only then).
 */
import { isEventWord, neutralReply } from "./lib/guard/engine/events.ts";
import * as io from "./lib/guard/io.ts";

/** Entry: `guard.ts <event>`, `guard.ts serve --port N`, `guard.ts up …` or `guard.ts settings …`. */
export async function main(args: string[]): Promise<number> {
  const [word] = args;
  if (word !== undefined && isEventWord(word)) {
    let command: typeof import("./lib/guard/command.ts");
    try {
      command = await import("./lib/guard/command.ts");
    } catch (err) {
      // A fresh clone under Deno: its npm packages (zod) are not installed yet. Install them and answer from a
      // second run, which reads the same stdin (lib/packages.ts); the Node bundle carries them and never comes here.
      const packages = await import("./lib/packages.ts");
      if (packages.missingNpm(err) && !packages.rerun()) {
        const done = await packages.rerunInstalled(import.meta.url);
        if ("code" in done) return done.code;
        io.writeErr(`${done.refused}\n`);
      }
      // Command mode itself did not load (a broken install): still the one neutral answer, never a failed hook.
      io.writeOut(JSON.stringify(neutralReply(word)) + "\n");
      io.writeErr(`fiable-guard: cannot load command mode (${(err as Error).message}); allowed\n`);
      return 0;
    }
    await command.runCommand(word, io.env);
    return 0;
  }
  // Subcommands, --help, flags and unknown words: the parser and the servers load only here, off the hook path.
  const { guardCommand } = await import("./lib/guard/commands.ts");
  return await guardCommand(args);
}

if (import.meta.main) main(io.args).then(io.setExitCode);
