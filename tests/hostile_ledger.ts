/**
 * The ledger under faults and hostile files, as Claude Code runs the guard (one process per event, and the
 * resident guard over http), under Deno and the Node bundle (issue 32): a write that fails or is cut short,
 * corrupt lines, parallel calls spending one block budget, session ids a raw-text scan misroutes, and
 * symbolic links in the ledger dir. Each case is a reproduction: it failed before its fix.
 */
import { chainKeyOf } from "../lib/guard/ledger/chain.ts";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  LEDGER_READ,
  ledgerFileName,
  lostFileName,
  parseLedger,
  readLedger,
} from "../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../lib/guard/engine/record.ts";
import { checkpointName } from "../lib/guard/ledger/checkpoint.ts";
import { decideOn, DEFAULT_BOUNDS } from "../lib/guard/engine/decide.ts";
import { foldLedger } from "../lib/guard/engine/evidence.ts";
import { recordsOf, toolCall } from "../lib/guard/engine/rule.ts";
import {
  type GuardRun,
  runGuard,
  type Runtime,
  runtimes,
  serveGuard,
  tempLedger,
  writeLedger,
} from "./support/guard_process.ts";
import { post, pre } from "./support/payloads.ts";

const QUEUE_CASE = "CASE-0A1B2C3D";

/** The queue result that returns a case id (the only place the session sees it). */
const queue = (session: string, id = "toolu_q") =>
  post(session, "payer_intake_hub_list_intake_queue", {}, { result: [{ case_id: QUEUE_CASE }] }, id);

/** The legitimate next call on that case: GLOBAL-02 denies it when the queue result is not in the evidence. */
const dispose = (session: string, id = "toolu_d") =>
  pre(session, "triage_set_disposition", { case_id: QUEUE_CASE }, id);

function permission(run: GuardRun): string | undefined {
  return (run.reply().hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision;
}

/** The session's last record: an allowed call whose GLOBAL-02 hit (if any) was recorded, not enforced. */
function notDenied(run: GuardRun, dir: string, session: string): LedgerRecord {
  assert.is(run.code, 0, run.stderr);
  assert.is(permission(run), "allow", JSON.stringify(run.reply()));
  const last = readLedger(dir, session).records.filter((r) => r.event === "pre").at(-1)!;
  assert.ok(last, `no pre record for ${session}`);
  assert.is.not(last.decision, "deny", JSON.stringify(last));
  return last;
}

/** A finalize on a case other than the one the session locked (GLOBAL-01 denies it while budget remains). */
const OTHER_CASE = (session: string) =>
  pre(session, "determination_finalize", { case_id: "CASE-11AA22BB", decision: "approved" }, "toolu_other");

/**
 * A payer session's ledger of about 9 MB with no checkpoint: the case lock set at its start, 600 reads of
 * 15 KB results, and in its middle (past the 1 MB head a partial read keeps, before the 7 MB tail) the two
 * GLOBAL-01 denies of a finalize on another case, as the guard recorded them.
 */
function bigLedger(session: string): LedgerRecord[] {
  const config = { arm: "checklist" as const, bounds: DEFAULT_BOUNDS };
  const records = recordsOf({
    prompt:
      "# MD Review\n- Use only payer namespaces: `review`, `determination`, `triage`\nCase CASE-3903B8ED",
    calls: [toolCall("triage.set_disposition", { case_id: "CASE-3903B8ED", disposition: "md_review" })],
  }, session);
  const read = (i: number) =>
    recordsOf({
      calls: [toolCall("review.get_md_review_data", { case_id: "CASE-3903B8ED" }, {
        result: { case: { id: "CASE-3903B8ED" }, notes: `${i} `.padEnd(15_000, "n") },
      })],
    }, session);
  for (let i = 0; i < 80; i++) records.push(...read(i));
  const event = {
    word: "pre" as const,
    session,
    tool: "mcp__healthverse__determination_finalize",
    input: { case_id: "CASE-11AA22BB", decision: "approved" },
    toolUseId: "toolu_d1",
  };
  for (const id of ["toolu_d1", "toolu_d2"]) {
    const { record } = decideOn(
      { ...event, toolUseId: id },
      foldLedger(records),
      config,
      "2026-12-03T00:00:00.000Z",
    );
    assert.is(record?.decision, "deny", JSON.stringify(record));
    records.push(record!);
  }
  for (let i = 80; i < 600; i++) records.push(...read(i));
  return records;
}

/** The runtime under a shell that caps the size of any file it writes (`ulimit -f`, 512-byte blocks). */
function capped(runtime: Runtime, blocks: number): Runtime {
  return {
    name: runtime.name,
    argv: (word) => ["sh", "-c", `trap "" XFSZ; ulimit -f ${blocks}; exec "$@"`, "sh", ...runtime.argv(word)],
  };
}

for (const runtime of await runtimes()) {
  const s = suite(`hostile ledger (${runtime.name})`);
  const env = (dir: string, extra: Record<string, string> = {}) => ({
    FIABLE_LEDGER_DIR: dir,
    FIABLE_CC_ARM: "checklist",
    ...extra,
  });

  s(
    "the next call is allowed when the deny would come only from a missing post (control: it is denied)",
    async () => {
      const dir = tempLedger();
      const run = await runGuard(runtime, "pre", dispose("control"), env(dir));
      assert.is(
        permission(run),
        "deny",
        "GLOBAL-02 no longer denies an unseen case: the cases below prove nothing",
      );
    },
  );

  s(
    "a post whose append fails (a directory at the ledger path) marks the session; its id is not denied later",
    async () => {
      const dir = tempLedger();
      const ledger = join(dir, ledgerFileName("failed-write"));
      mkdirSync(ledger);
      const posted = await runGuard(runtime, "post", queue("failed-write"), env(dir));
      assert.is(posted.code, 0, posted.stderr);
      assert.match(posted.stderr, "cannot write the ledger");
      assert.ok(
        existsSync(join(dir, lostFileName("failed-write", chainKeyOf(dir)))),
        readdirSync(dir).join(", "),
      );
      // The ledger can be written again (the directory is gone): the post is not in it, the mark is.
      rmdirSync(ledger);
      const last = notDenied(
        await runGuard(runtime, "pre", dispose("failed-write"), env(dir)),
        dir,
        "failed-write",
      );
      assert.ok(last.rules?.some((h) => h.id === "GLOBAL-02"), JSON.stringify(last));
    },
  );

  s(
    "http mode: a post whose append fails is not denied on later, after the session's release either",
    async () => {
      const dir = tempLedger();
      const session = "failed-http";
      const ledger = join(dir, ledgerFileName(session));
      mkdirSync(ledger);
      const server = await serveGuard(runtime, { ...env(dir), FIABLE_SUPERVISE: "0" });
      try {
        const hook = async (word: string, body: string) =>
          await (await fetch(`${server.url}/hook/${word}`, { method: "POST", body })).json();
        await hook("post", queue(session));
        rmdirSync(ledger);
        const end = JSON.stringify({ session_id: session, hook_event_name: "SessionEnd", reason: "other" });
        await fetch(`${server.url}/hook/session-end`, { method: "POST", body: end }).then((r) => r.text());
        const reply = await hook("pre", dispose(session));
        assert.is(reply.hookSpecificOutput?.permissionDecision, "allow", JSON.stringify(reply));
        assert.is.not(readLedger(dir, session).records.at(-1)?.decision, "deny");
      } finally {
        server.stop();
      }
    },
  );

  s(
    "a write cut short by a full disk: the next record starts its own line, and the session reads degraded",
    async () => {
      const dir = tempLedger();
      const session = "cut-write";
      // The ledger ends 100 bytes before a 512-byte block: the post's line is cut there (the file-size limit
      // stands in for a full disk), and so is the marker the guard then tries to append.
      const first = JSON.stringify({
        v: 1,
        t: "2026-12-03T00:00:00.000Z",
        session,
        event: "prompt",
        arm: "checklist",
        decision: "record",
        prompt: "",
      });
      const pad = 4 * 512 - 100 - first.length - 1;
      writeFileSync(
        join(dir, ledgerFileName(session)),
        first.replace('"prompt":""', `"prompt":"${"p".repeat(pad)}"`) + "\n",
      );
      assert.is(statSync(join(dir, ledgerFileName(session))).size, 4 * 512 - 100);
      const posted = await runGuard(capped(runtime, 4), "post", queue(session), env(dir));
      assert.is(posted.code, 0, posted.stderr);
      assert.is(statSync(join(dir, ledgerFileName(session))).size, 4 * 512, "the write was not cut short");
      // Space again: the next call is not denied on the lost post, and its record is a whole line of its own.
      notDenied(await runGuard(runtime, "pre", dispose(session), env(dir)), dir, session);
      const text = readFileSync(join(dir, ledgerFileName(session)), "utf8");
      const lines = text.split("\n").filter(Boolean);
      assert.is(lines.length, 3, text.slice(-400));
      assert.is(parseLedger(text).corrupt, 1);
      assert.is(JSON.parse(lines[2]).event, "pre");
    },
  );

  s(
    "a line that is no record in a chained ledger (junk, or a write cut short) degrades nothing: the absence " +
      "rules still enforce, on a full read and after a checkpoint",
    async () => {
      for (const checkpointed of [false, true]) {
        const dir = tempLedger();
        const session = `corrupt-${checkpointed}`;
        const file = join(dir, ledgerFileName(session));
        // 40 earlier calls; with checkpoints on, the next hook folds them and writes the session's checkpoint.
        const earlier = Array.from({ length: 40 }, (_, i) => ({
          v: 1,
          t: "2026-12-03T00:00:00.000Z",
          session,
          event: "post",
          arm: "checklist",
          decision: "record",
          tool: "payer_intake_hub.list_intake_queue",
          tool_use_id: `toolu_e${i}`,
          input: {},
          result: { result: [] },
        }));
        writeLedger(dir, session, earlier as LedgerRecord[]);
        const settings = env(dir, { FIABLE_CHECKPOINT: checkpointed ? "1" : "0" });
        await runGuard(
          runtime,
          "pre",
          pre(session, "payer_intake_hub_list_intake_queue", {}, "toolu_s"),
          settings,
        );
        assert.is(existsSync(join(dir, checkpointName(session))), checkpointed);
        // What is left of the queue post after a crash mid-line, or junk an agent appends (issue 40: it made
        // the session record instead of block). The guard's own lost writes leave a marker instead.
        writeFileSync(file, readFileSync(file, "utf8") + queue(session).slice(0, 90) + "\n");
        const run = await runGuard(runtime, "pre", dispose(session), settings);
        assert.is(permission(run), "deny", JSON.stringify(run.reply()));
        const last = readLedger(dir, session).records.at(-1)!;
        assert.ok(last.rules?.some((h) => h.id === "GLOBAL-02"), JSON.stringify(last));
        assert.not.match(last.note ?? "", "degraded");
      }
    },
  );

  s("4 parallel calls with one signature get at most the 2 denies of the block budget", async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempLedger();
      const session = `parallel-${round}`;
      const runs = await Promise.all(
        [0, 1, 2, 3].map((k) => runGuard(runtime, "pre", dispose(session, `toolu_p${k}`), env(dir))),
      );
      const denied = runs.filter((r) => permission(r) === "deny").length;
      const records = readLedger(dir, session).records;
      assert.is(records.filter((r) => r.decision === "deny").length, denied);
      assert.ok(denied <= 2, `round ${round}: ${denied} denies`);
      assert.ok(denied >= 1, `round ${round}: no deny at all`);
      assert.is(records.length, 4);
      assert.not.ok(readdirSync(dir).some((f) => f.endsWith(".lock")), "a lock was left behind");
    }
  });

  for (const session of ['quoted"id', "q".repeat(250), 'both"' + "z".repeat(240)]) {
    s(
      `session id ${
        JSON.stringify(session.slice(0, 9))
      }… (${session.length}): an unparsed post's mark reaches its ledger`,
      async () => {
        const dir = tempLedger();
        // Over the 1 MB parse limit: recorded from the raw text, under the session read from it.
        const big = post(session, "payer_intake_hub_list_intake_queue", {}, {
          result: [{ case_id: QUEUE_CASE }],
          extra: "y".repeat(1_100_000),
        }, "toolu_big");
        assert.is((await runGuard(runtime, "post", big, env(dir))).code, 0);
        const records = readLedger(dir, session).records;
        assert.is(records.length, 1, readdirSync(dir).join(", "));
        assert.equal([records[0].degraded, records[0].session], [true, session]);
        assert.equal(readdirSync(dir).filter((f) => f.endsWith(".jsonl")), [ledgerFileName(session)]);
        notDenied(await runGuard(runtime, "pre", dispose(session), env(dir)), dir, session);
      },
    );
  }

  s("http mode: session-end releases the session it names, a long or quoted id included", async () => {
    const dir = tempLedger();
    const server = await serveGuard(runtime, { ...env(dir), FIABLE_SUPERVISE: "0" });
    try {
      const held = async () => (await (await fetch(`${server.url}/health`)).json()).held.sessions;
      const ids = ['end"one', "e".repeat(300), "end-plain"];
      for (const id of ids) {
        await (await fetch(`${server.url}/hook/post`, { method: "POST", body: queue(id) })).text();
      }
      assert.is(await held(), 3);
      for (const [k, id] of ids.entries()) {
        const body = JSON.stringify({ session_id: id, hook_event_name: "SessionEnd", reason: "other" });
        await (await fetch(`${server.url}/hook/session-end`, { method: "POST", body })).text();
        assert.is(await held(), 2 - k, id.slice(0, 10));
      }
    } finally {
      server.stop();
    }
  });

  s(
    "a restarted resident guard resumes a session whose ledger passed 8 MB before any checkpoint, budget kept",
    async () => {
      const dir = tempLedger();
      const session = "resumed-big";
      writeLedger(dir, session, bigLedger(session));
      // The denies lie where a partial read skips: past its 1 MB head, before its 7 MB tail.
      const text = readFileSync(join(dir, ledgerFileName(session)));
      const at = text.indexOf(new TextEncoder().encode('"decision":"deny"'));
      assert.ok(at > LEDGER_READ.head && at < text.length - LEDGER_READ.tail, `${at} of ${text.length}`);
      const server = await serveGuard(runtime, { ...env(dir), FIABLE_SUPERVISE: "0" }, [
        "--child",
        "--restart-note",
        "test",
      ]);
      try {
        const res = await fetch(`${server.url}/hook/pre`, { method: "POST", body: OTHER_CASE(session) });
        // The two denies of this signature are in the ledger's middle: the budget is spent, the call goes through.
        assert.is((await res.json()).hookSpecificOutput?.permissionDecision, "allow");
        const last = readLedger(dir, session, { max: Infinity }).records.at(-1)!;
        assert.is(last.decision, "release", JSON.stringify(last).slice(0, 300));
        assert.not.match(last.note ?? "", "degraded");
      } finally {
        server.stop();
      }
      // It was checkpointed as it was resumed: the next load starts there.
      assert.ok(existsSync(join(dir, checkpointName(session))));
    },
  );

  s("a ledger that is a symbolic link is never written through: its target is untouched", async () => {
    const dir = tempLedger();
    const target = join(tempLedger(), "target.txt");
    writeFileSync(target, "not a ledger\n");
    symlinkSync(target, join(dir, ledgerFileName("linked")));
    const run = await runGuard(runtime, "pre", pre("linked", "chart_search_patients", {}), env(dir));
    assert.is(permission(run), "allow");
    assert.is(readFileSync(target, "utf8"), "not a ledger\n");
    const dangling = join(tempLedger(), "nothing-here");
    symlinkSync(dangling, join(dir, ledgerFileName("dangling")));
    await runGuard(runtime, "post", queue("dangling"), env(dir));
    assert.not.ok(existsSync(dangling), "the guard created the link's target");
  });

  s.run();
}
