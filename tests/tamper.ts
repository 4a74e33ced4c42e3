/**
 * The guard's state in the agent's reach (issue 40): in a trial the agent is root in the container and the
 * ledger dir is writable to it, so each test here runs one tampering an agent's shell command can do, as
 * Claude Code runs the guard (one process per event under Deno and the Node bundle, and the resident guard
 * over http), and checks that no enforcement is lifted. Each case failed before its fix.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { readLedger } from "../lib/guard/ledger/ledger.ts";
import { lockFileName } from "../lib/guard/ledger/lock.ts";
import { type GuardRun, runGuard, runtimes } from "./support/guard_process.ts";
import { tempLedger } from "./support/guard_process.ts";
import { pre } from "./support/payloads.ts";

/** A call on a case the session never saw: GLOBAL-02 denies it. */
const unseen = (session: string, id = "toolu_u") =>
  pre(session, "triage_set_disposition", { case_id: "CASE-0A1B2C3D" }, id);

function permission(run: GuardRun): string | undefined {
  return (run.reply().hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision;
}

/** What an agent's shell can leave at a session's lock path. */
const PLANTED_LOCKS: [string, (path: string) => void][] = [
  ["an empty lock touched a year ahead (`touch -d '+1 year'`)", (path) => {
    writeFileSync(path, "");
    const later = new Date(Date.now() + 365 * 86_400_000);
    utimesSync(path, later, later);
  }],
  ["junk in the lock", (path) => writeFileSync(path, "locked by the agent\n")],
  ["a non-empty directory at the lock path", (path) => {
    mkdirSync(path);
    writeFileSync(join(path, "x"), "");
  }],
  ["a lock naming pid 1 (alive, but no hook)", (path) => writeFileSync(path, "1 1 0123456789abcdef\n")],
  [
    "a lock naming this long-lived test process with its real start time",
    (path) => {
      const stat = Deno.readTextFileSync(`/proc/${process.pid}/stat`);
      const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
      writeFileSync(path, `${process.pid} ${started} 0123456789abcdef\n`);
    },
  ],
];

for (const runtime of await runtimes()) {
  const s = suite(`tamper (${runtime.name})`);
  const env = (dir: string) => ({ FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist" });

  for (const [name, plant] of PLANTED_LOCKS) {
    s(`${name}: a deny stays a deny`, async () => {
      const dir = tempLedger();
      const session = "locked";
      plant(join(dir, lockFileName(session)));
      const run = await runGuard(runtime, "pre", unseen(session), env(dir));
      assert.is(run.code, 0, run.stderr);
      assert.is(permission(run), "deny", JSON.stringify(run.reply()));
      const last = readLedger(dir, session).records.at(-1)!;
      assert.is(last.decision, "deny", JSON.stringify(last));
    });
  }

  s.run();
}
