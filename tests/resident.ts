/**
 * The resident guard's lifecycle with real processes (the Node bundle): the supervisor brings a killed
 * server back on its port and the new one records the restart and the gap; `FIABLE_SUPERVISE=0` runs it
 * alone; `guard up` starts, reuses (resume) or replaces a guard and writes settings.json and harness.json;
 * the SessionStart check starts a guard that is down. Plus the restart records' bookkeeping.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { appendRecord } from "../lib/guard/ledger/ledger.ts";
import { type LedgerRecord } from "../lib/guard/engine/record.ts";
import { settingsJson } from "../lib/guard/config/claude_settings.ts";
import { guardFileHash, snapshotName } from "../lib/guard/runtime/snapshot_blob.ts";
import {
  activeSessions,
  alive,
  ledgerDirRecords,
  PID_FILE,
  recordRestart,
  rememberTranscript,
  transcriptOf,
  TRANSCRIPTS_FILE,
} from "../lib/guard/resident/resident.ts";
import { GIVE_UP_AFTER, supervise } from "../lib/guard/resident/supervise.ts";
import {
  answerChallenge,
  hookToken,
  KEY_FILE,
  proofOf,
  proves,
  readKey,
  trialKey,
} from "../lib/guard/resident/key.ts";
import {
  freePort,
  guardUp,
  runGuard,
  runtimes,
  tempLedger,
  testBundle,
  until,
} from "./support/guard_process.ts";
import { slowdown } from "./support/slowdown.ts";

const bundle = await testBundle();
const started: number[] = [];

function rec(
  session: string,
  t: string,
  event: LedgerRecord["event"],
  decision: LedgerRecord["decision"],
  id?: string,
) {
  return {
    v: 1 as const,
    t,
    session,
    event,
    arm: "checklist" as const,
    decision,
    ...(id ? { tool_use_id: id } : {}),
  };
}

function guardRecords(dir: string): LedgerRecord[] {
  return ledgerDirRecords(dir).filter((r) => r.event === "guard");
}

async function health(port: number): Promise<Record<string, unknown> | null> {
  try {
    return await (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(500) }))
      .json();
  } catch {
    return null;
  }
}

/** The start-up snapshot `guard up` writes beside a guard file (lib/guard/runtime/snapshot_blob.ts). */
function guardSnapshot(guard: string): string {
  const node = new TextDecoder().decode(
    new Deno.Command("node", { args: ["--version"] }).outputSync().stdout,
  );
  return join(dirname(guard), snapshotName(guardFileHash(guard), node.trim()));
}

/** `guard serve --port P` in the background under a runtime (the Node bundle unless told); its pid and stderr. */
function serve(
  port: number,
  env: Record<string, string>,
  argv: (word: string) => string[] = (word) => ["node", bundle, word],
): { pid: number; stderr: () => string; status: Promise<Deno.CommandStatus> } {
  let text = "";
  const [cmd, ...args] = argv("serve");
  const child = new Deno.Command(cmd, {
    args: [...args, "--port", String(port)],
    env: { PATH: Deno.env.get("PATH") ?? "", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  started.push(child.pid);
  return { pid: child.pid, stderr: () => text, status: child.status };
}

/** `guard up …` under a runtime (the Node bundle unless told), awaited; its guard is stopped after the suite. */
async function up(
  port: number,
  dir: string,
  extra: string[] = [],
  env: Record<string, string> = {},
  argv: (word: string) => string[] = (word) => ["node", bundle, word],
) {
  const run = await guardUp({ argv, guard: bundle, port, dir, extra, env });
  if (run.pid) started.push(run.pid);
  return run;
}

/**
 * A listener that answers `/health` as a guard would: for `arm`, naming `ledger` when given, with a made-up
 * proof when `forge`. Counts the hook requests it gets.
 */
async function impostor(
  port: number,
  body: Record<string, unknown>,
): Promise<{ hooks: () => number; close: () => Promise<void> }> {
  let hooks = 0;
  const server = createHttpServer((req, res) => {
    if (req.url?.startsWith("/hook/")) hooks++;
    const proof = body.proof === "forge" ? "ab".repeat(32) : body.proof;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...body, proof, pid: 4242 }));
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { hooks: () => hooks, close: () => new Promise((r) => server.close(() => r())) };
}

/** Stops every guard a test started: SIGTERM to each supervisor (it stops its server), then SIGKILL. */
async function stopAll(): Promise<void> {
  const pids = started.splice(0);
  const signal = (name: Deno.Signal) => {
    for (const pid of pids) {
      for (const target of [-pid, pid]) {
        try {
          Deno.kill(target, name);
        } catch { /* gone, or not a group leader */ }
      }
    }
  };
  signal("SIGTERM");
  const end = Date.now() + 3000;
  while (Date.now() < end && pids.some(alive)) await new Promise((r) => setTimeout(r, 25));
  signal("SIGKILL");
}

/** A transcript with one χ-World call written at `t`, registered for the session in the ledger dir. */
function transcript(dir: string, session: string, t: string, id: string): void {
  const path = join(dir, `${session}.transcript`);
  const use = { type: "tool_use", id, name: "mcp__healthverse__determination_get_summary", input: {} };
  writeFileSync(
    path,
    JSON.stringify({ type: "assistant", timestamp: t, message: { content: [use] } }) + "\n",
  );
  rememberTranscript(dir, session, path);
}

// ---------------------------------------------------------------------------------------------------------
const s = suite("resident: restart bookkeeping");

s("activeSessions: sessions not cleanly stopped, else the latest; a named one is added", () => {
  const sessions = new Map<string, LedgerRecord[]>([
    ["done", [rec("done", "2026-01-01T00:00:01Z", "stop", "allow")]],
    ["open", [rec("open", "2026-01-01T00:00:00Z", "pre", "allow")]],
  ]);
  assert.equal(activeSessions(sessions), ["open"]);
  assert.equal(activeSessions(new Map([...sessions].slice(0, 1))), ["done"]);
  assert.equal(activeSessions(new Map(), "new"), ["new"]);
  assert.equal(activeSessions(sessions, "open"), ["open"]);
});

s("recordRestart writes restart and gap, counting the missed calls from the remembered transcript", () => {
  const dir = tempLedger();
  appendRecord(dir, rec("s1", "2026-12-01T10:00:01.000Z", "pre", "allow", "toolu_seen"));
  transcript(dir, "s1", "2026-12-01T10:00:03.000Z", "toolu_missed");
  const written = recordRestart(dir, "checklist", {
    note: "supervisor restart",
    downSince: "2026-12-01T10:00:02.000Z",
  }, new Date("2026-12-01T10:00:04.000Z"));
  assert.equal(written.map((r) => [r.session, r.event, r.decision]), [["s1", "guard", "restart"], [
    "s1",
    "guard",
    "gap",
  ]]);
  assert.equal(written[1].gap, {
    since: "2026-12-01T10:00:02.000Z",
    until: "2026-12-01T10:00:04.000Z",
    missed: 1,
    tools: ["determination.get_summary"],
  });
  assert.equal(guardRecords(dir).length, 2, "written to the ledger");
});

s(
  "without a down time only the restart is recorded; without a transcript the gap says it is not countable",
  () => {
    const dir = tempLedger();
    appendRecord(dir, rec("s2", "2026-12-01T10:00:01.000Z", "prompt", "context"));
    assert.equal(recordRestart(dir, "checklist", { note: "resume" }).map((r) => r.decision), ["restart"]);
    const [, gap] = recordRestart(dir, "checklist", { note: "x", downSince: "2026-12-01T10:00:02.000Z" });
    assert.match(gap.note ?? "", "not countable");
    assert.is(gap.gap?.missed, undefined);
  },
);

s("transcript paths are found in raw hook text and remembered once per session", () => {
  assert.is(
    transcriptOf('{"session_id":"a","transcript_path":"/logs/agent/sessions/projects/-w/a.jsonl"}'),
    "/logs/agent/sessions/projects/-w/a.jsonl",
  );
  assert.is(transcriptOf('{"session_id":"a"}'), null);
  const dir = join(tempLedger(), "not-yet");
  rememberTranscript(dir, "a", "/t/a.jsonl");
  rememberTranscript(dir, "b", "/t/b.jsonl");
  assert.equal(JSON.parse(readFileSync(join(dir, TRANSCRIPTS_FILE), "utf8")), {
    a: "/t/a.jsonl",
    b: "/t/b.jsonl",
  });
});

s("the guard key: made once per ledger dir; a link, a FIFO or garbage in its place is never trusted", () => {
  const dir = join(tempLedger(), "fresh");
  const key = trialKey(dir);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.is(trialKey(dir), key, "made once");
  assert.equal(readdirSync(dir), [KEY_FILE], "no temp file left");
  const challenge = "00ff".repeat(8);
  const expected = { key, challenge, arm: "checklist", ledgerDir: dir };
  assert.ok(proves(proofOf(key, challenge, "checklist", dir), expected));
  assert.not.ok(proves(proofOf(key, challenge, "plan", dir), expected), "another arm");
  assert.not.ok(proves(proofOf(key, challenge, "checklist", "/elsewhere"), expected), "another dir");
  assert.not.ok(proves(proofOf("1".repeat(64), challenge, "checklist", dir), expected), "another key");
  assert.is(answerChallenge("/health?challenge=zz", key, "checklist", dir), undefined, "malformed challenge");
  const linked = tempLedger();
  writeFileSync(join(linked, "target"), "a".repeat(64));
  symlinkSync(join(linked, "target"), join(linked, KEY_FILE));
  assert.is(readKey(linked), null, "a link is not followed");
  const piped = tempLedger();
  new Deno.Command("mkfifo", { args: [join(piped, KEY_FILE)] }).outputSync();
  assert.is(readKey(piped), null, "a FIFO is not read (nor waited on)");
  const garbage = tempLedger();
  writeFileSync(join(garbage, KEY_FILE), "not a key");
  const replaced = trialKey(garbage);
  assert.is(readKey(garbage), replaced, "garbage is replaced by a key");
});

s.run();

// ---------------------------------------------------------------------------------------------------------
const p = suite("resident: supervisor, up, SessionStart check (node bundle)");

p(
  "a killed server comes back on its port; the new one records the restart and the gap it missed",
  async () => {
    const dir = tempLedger();
    const port = await freePort();
    appendRecord(dir, rec("s3", new Date().toISOString(), "prompt", "context"));
    const guard = serve(port, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist" });
    const first = await until("the guard", 10_000, () => health(port));
    assert.is(first.supervisor, guard.pid);
    await new Promise((r) => setTimeout(r, 20));
    transcript(dir, "s3", new Date(Date.now() + 5).toISOString(), "toolu_while_down");
    const before = slowdown();
    Deno.kill(Number(first.pid), "SIGKILL");
    const killedAt = performance.now();
    const back = await until("the restarted guard", 10_000, async () => {
      const h = await health(port);
      return h && h.pid !== first.pid ? h : null;
    });
    const ms = Math.round(performance.now() - killedAt);
    assert.is(back.supervisor, guard.pid, "same supervisor, same port");
    // Within 5 s of an idle machine: the wait over how much slower than its CPU time this process ran.
    const load = Math.max(before, slowdown());
    assert.ok(ms / load < 5000, `back after ${ms} ms at ${load.toFixed(1)}x slowdown`);
    const [restart, gap] = guardRecords(dir);
    assert.match(
      restart.note ?? "",
      `supervisor restart: the resident guard (pid ${first.pid}) exited (signal SIGKILL)`,
    );
    assert.is(gap.decision, "gap");
    assert.equal([gap.gap?.missed, gap.gap?.tools], [1, ["determination.get_summary"]]);
    assert.match(guard.stderr(), "starting it again on port");
    Deno.kill(guard.pid, "SIGTERM");
    await until(
      "the supervisor and its server to stop",
      5000,
      () => Promise.resolve(!alive(guard.pid) && !alive(Number(back.pid))),
    );
  },
);

p(
  "a process's first health probe that runs out of time asks once more (its HTTP client may have taken the time); " +
    "later ones do not",
  async () => {
    let asked = 0;
    // Answers its first request too late for the probe's timer, as when a cold client took the time; the rest at once.
    const slowFirst = createHttpServer((_, res) => {
      const answer = () => res.end(JSON.stringify({ ok: true, arm: "checklist" }));
      if (++asked === 1) setTimeout(answer, 3000);
      else answer();
    });
    const silent: Server = createServer(() => {/* accepts, never answers */});
    const port = (server: { address(): unknown }) => (server.address() as { port: number }).port;
    await new Promise<void>((r) => slowFirst.listen(0, "127.0.0.1", r));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const resident = new URL("../lib/guard/resident/resident.ts", import.meta.url).href;
      const script = `import { healthOf } from ${JSON.stringify(resident)};
const first = await healthOf(${port(slowFirst)}, 1000);
const later = await healthOf(${port(silent)}, 300);
console.log(JSON.stringify({ first, later }));`;
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["eval", "--ext=ts", script],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.is(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.equal(JSON.parse(new TextDecoder().decode(out.stdout)), {
        first: { ok: true, arm: "checklist" },
        later: null,
      });
      assert.is(asked, 2, "the first probe asked twice");
    } finally {
      slowFirst.closeAllConnections();
      slowFirst.close();
      silent.close();
    }
  },
);

p("FIABLE_SUPERVISE=0: no supervisor, so a killed server stays down", async () => {
  const dir = tempLedger();
  const port = await freePort();
  serve(port, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist", FIABLE_SUPERVISE: "0" });
  const first = await until("the guard", 10_000, () => health(port));
  assert.is(first.supervisor, null);
  Deno.kill(Number(first.pid), "SIGKILL");
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(await health(port), null);
});

p("a server that cannot listen (port taken) is not retried: the supervisor exits non-zero", async () => {
  const port = await freePort();
  const squatter: Server = createServer(() => {});
  await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
  try {
    const out = await new Deno.Command("node", {
      args: [bundle, "serve", "--port", String(port)],
      env: { PATH: Deno.env.get("PATH") ?? "", FIABLE_LEDGER_DIR: tempLedger() },
      stdout: "null",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.is.not(out.code, 0);
    assert.match(stderr, `Cannot serve on 127.0.0.1:${port}: listen EADDRINUSE`);
    assert.match(stderr, "the server exited before listening");
  } finally {
    squatter.close();
  }
});

p("up: starts a supervised guard, writes http settings and harness.json; a second up reuses it", async () => {
  const dir = tempLedger();
  const port = await freePort();
  const servers = ["chi-bench-provider", "chi-bench-payer"];
  const flags = ["--server", servers[0], "--server", servers[1], "--claude-version", "2.1.219"];
  const first = await up(port, dir, flags);
  assert.is(first.code, 0);
  assert.is(first.stdout, "fiable-cc: arm=checklist hooks=http\n");
  assert.is(
    first.settings,
    settingsJson({
      mode: "http",
      arm: "checklist",
      ledgerDir: dir,
      guard: bundle,
      snapshot: guardSnapshot(bundle),
      port,
      servers,
      token: hookToken(readKey(dir)!),
    }),
  );
  const pid = Number(readFileSync(join(dir, PID_FILE), "utf8"));
  const h = await health(port);
  assert.equal(first.harness, {
    arm: "checklist",
    hooks: "http",
    hooks_reason: "answered",
    ledger_format: 2,
    port,
    servers,
    claude_version: "2.1.219",
    supervisor: true,
    reused: false,
    guard_pid: h!.pid,
  });
  assert.is(h!.supervisor, pid, "guard.pid names the supervisor");
  assert.equal(guardRecords(dir), [], "the trial's first guard is no restart");

  const again = await up(port, dir, flags);
  assert.match(again.stdout, `reused the resident guard (pid ${h!.pid})`);
  assert.equal([again.harness.reused, again.harness.guard_pid], [true, h!.pid]);
  assert.is(
    Number(readFileSync(join(dir, PID_FILE), "utf8")),
    pid,
    "guard.pid still names the live supervisor",
  );
  assert.ok(alive(pid));
  await stopAll();
});

p(
  "up after the guard died (resume on a container whose guard is gone): a new guard, the restart recorded",
  async () => {
    const dir = tempLedger();
    const port = await freePort();
    await up(port, dir);
    const old = Number(readFileSync(join(dir, PID_FILE), "utf8"));
    appendRecord(dir, rec("s4", new Date().toISOString(), "stop", "allow"));
    await stopAll();
    await until("the old guard to be gone", 5000, async () => !alive(old) && !(await health(port)));
    const next = await up(port, dir);
    assert.equal([next.harness.hooks, next.harness.reused], ["http", false]);
    const pid = Number(readFileSync(join(dir, PID_FILE), "utf8"));
    assert.is.not(pid, old);
    assert.ok(alive(pid));
    const [restart] = guardRecords(dir);
    assert.is(restart?.session, "s4");
    assert.is(restart?.note, `resume: the guard recorded in guard.pid (pid ${old}) was gone; started again`);
    await stopAll();
  },
);

p("up with the port answering for another arm or taken: command hooks, no pid file left behind", async () => {
  const dir = tempLedger();
  const port = await freePort();
  serve(port, { FIABLE_LEDGER_DIR: tempLedger(), FIABLE_CC_ARM: "plan" });
  await until("the plan guard", 10_000, () => health(port));
  const foreign = await up(port, dir);
  assert.match(
    foreign.stdout,
    `hooks=command (port ${port} answers, but not as this trial's guard (arm plan); command hooks)`,
  );
  assert.is(
    foreign.settings,
    settingsJson({
      mode: "command",
      arm: "checklist",
      ledgerDir: dir,
      guard: bundle,
      snapshot: guardSnapshot(bundle),
      port,
    }),
  );
  assert.not.ok(existsSync(join(dir, PID_FILE)));
  await stopAll();

  const taken = await freePort();
  const squatter: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => squatter.listen(taken, "127.0.0.1", resolve));
  try {
    const other = tempLedger();
    const out = await up(taken, other);
    assert.equal([out.harness.hooks, out.harness.supervisor], ["command", false]);
    assert.not.ok(existsSync(join(other, PID_FILE)), "the guard that never came up leaves no pid file");
  } finally {
    squatter.close();
  }
});

p(
  "supervisor and server killed together: the http hooks' own check starts the guard again; while it is up " +
    "the check starts nothing",
  async () => {
    const dir = tempLedger();
    const port = await freePort();
    const out = await up(port, dir);
    assert.is(out.harness.hooks, "http", out.stderr);
    const settings = JSON.parse(out.settings);
    const check = settings.hooks.PreToolUse[0].hooks.find((h: { async?: boolean }) => h.async);
    assert.ok(check, "the χ-World PreToolUse group has the asynchronous check");
    assert.ok(
      settings.hooks.PreToolUse[1].hooks.some((h: { async?: boolean }) => h.async) &&
        settings.hooks.UserPromptSubmit[0].hooks.some((h: { async?: boolean }) => h.async),
      "the own-tools and prompt groups have it too",
    );
    assert.not.ok(settings.hooks.SessionStart[0].hooks.some((h: { async?: boolean }) => h.async));
    const sh = (command: string) =>
      new Deno.Command("sh", {
        args: ["-c", command],
        env: { PATH: Deno.env.get("PATH") ?? "" },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
    const before = await health(port);
    assert.ok(before);
    await sh(check.command);
    assert.is((await health(port))?.pid, before!.pid, "a live guard is left alone");
    assert.equal(guardRecords(dir), []);
    appendRecord(dir, rec("s6", new Date().toISOString(), "pre", "allow"));
    // Both at once, as `kill -9` of the process group does: no one is left to restart the other.
    for (const pid of [before!.pid as number, before!.supervisor as number]) Deno.kill(pid, "SIGKILL");
    await until("the guard to be gone", 5000, async () => !(await health(port)));
    const ran = await sh(check.command);
    assert.match(new TextDecoder().decode(ran.stderr), "hook check: the resident guard on port");
    const after = await health(port);
    assert.ok(after && after.pid !== before!.pid, "the guard answers again, a new process");
    assert.ok(after!.supervisor, "under a supervisor of its own");
    started.push(Number(readFileSync(join(dir, PID_FILE), "utf8")));
    const [restart] = guardRecords(dir);
    assert.is(restart?.session, "s6");
    assert.match(restart?.note ?? "", `hook check: the resident guard on port ${port} did not answer`);
    await stopAll();
  },
);

p(
  "the SessionStart check (http mode) starts a guard that is down and records why; a live one is left alone",
  async () => {
    const dir = tempLedger();
    const port = await freePort();
    const node = (await runtimes()).find((r) => r.name === "node")!;
    const payload = JSON.stringify({ session_id: "s5", hook_event_name: "SessionStart", source: "startup" });
    const env = { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist", FIABLE_GUARD_PORT: String(port) };
    const run = await runGuard(node, "session-start", payload, env);
    assert.is(run.code, 0, run.stderr);
    const h = await health(port);
    assert.ok(h, "the guard answers after the SessionStart hook");
    started.push(Number(readFileSync(join(dir, PID_FILE), "utf8")));
    const records = ledgerDirRecords(dir);
    assert.equal(records.map((r) => `${r.event}:${r.decision}`), ["guard:restart", "session-start:record"]);
    assert.match(
      records[0].note ?? "",
      `SessionStart check: the resident guard on port ${port} did not answer`,
    );
    assert.match(records[1].note ?? "", /started it again \(pid \d+\)/);

    await runGuard(node, "session-start", payload.replace("startup", "resume"), env);
    assert.is(guardRecords(dir).length, 1, "a live guard is not started again");
    assert.is((await health(port))?.pid, h!.pid);
    await stopAll();
  },
);

p.after(() => stopAll());

p.run();

// ---------------------------------------------------------------------------------------------------------
for (const runtime of await runtimes()) {
  const r = suite(`resident: only this trial's guard is reused (${runtime.name})`);

  const IMPOSTORS: [string, (dir: string) => Record<string, unknown>][] = [
    ["a guard's health answer without a ledger", () => ({ ok: true, arm: "checklist" })],
    ["this trial's ledger dir copied", (dir) => ({ ok: true, arm: "checklist", ledger: dir })],
    ["a made-up proof", (dir) => ({ ok: true, arm: "checklist", ledger: dir, proof: "forge" })],
  ];
  for (const [name, body] of IMPOSTORS) {
    r(`an impostor (${name}) is not reused by up nor by the SessionStart check`, async () => {
      const dir = tempLedger();
      const port = await freePort();
      const fake = await impostor(port, body(dir));
      try {
        const out = await up(port, dir, [], {}, runtime.argv);
        assert.is(out.code, 0, out.stderr);
        assert.match(out.stdout, `hooks=command (port ${port} answers, but not as this trial's guard (`);
        assert.equal([out.harness.hooks, out.harness.reused, out.harness.guard_pid], [
          "command",
          false,
          undefined,
        ]);
        assert.is(
          out.settings,
          settingsJson({
            mode: "command",
            arm: "checklist",
            ledgerDir: dir,
            guard: bundle,
            snapshot: guardSnapshot(bundle),
            port,
          }),
        );
        const payload = JSON.stringify({
          session_id: "s6",
          hook_event_name: "SessionStart",
          source: "resume",
        });
        const env = { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist", FIABLE_GUARD_PORT: String(port) };
        const run = await runGuard(runtime, "session-start", payload, env);
        assert.is(run.code, 0, run.stderr);
        const [record] = ledgerDirRecords(dir).filter((x) => x.event === "session-start");
        assert.match(
          record?.note ?? "",
          `SessionStart check: port ${port} answers, but not as this trial's guard`,
        );
        assert.is(fake.hooks(), 0);
      } finally {
        await fake.close();
      }
    });
  }

  r(
    "up's guard proves itself: a second up and the SessionStart check reuse it; its key is rw-------",
    async () => {
      const dir = tempLedger();
      const port = await freePort();
      const first = await up(port, dir, [], {}, runtime.argv);
      assert.is(first.harness.hooks, "http", first.stderr);
      assert.is(statSync(join(dir, KEY_FILE)).mode & 0o777, 0o600);
      const again = await up(port, dir, [], {}, runtime.argv);
      assert.equal([again.harness.hooks, again.harness.reused], ["http", true], again.stdout);
      const payload = JSON.stringify({ session_id: "s7", hook_event_name: "SessionStart", source: "resume" });
      const env = { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist", FIABLE_GUARD_PORT: String(port) };
      await runGuard(runtime, "session-start", payload, env);
      assert.equal(guardRecords(dir), [], "no restart: the live guard was recognised");
      // The same guard does not prove another ledger dir's key: a trial beside it starts its own hooks.
      const other = tempLedger();
      const beside = await up(port, other, [], {}, runtime.argv);
      assert.match(beside.stdout, `(ledger ${dir})`);
      assert.is(beside.harness.hooks, "command");
      await stopAll();
    },
  );

  r(
    "server names: an empty one is refused by up and settings in one Cannot line; odd ones are spelled as Claude Code does",
    async () => {
      const dir = tempLedger();
      const port = await freePort();
      const run = async (args: string[]) => {
        const [cmd, ...rest] = runtime.argv(args[0]);
        const out = await new Deno.Command(cmd, {
          args: [...rest, ...args.slice(1)],
          env: { PATH: Deno.env.get("PATH") ?? "" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        return {
          code: out.code,
          stdout: new TextDecoder().decode(out.stdout),
          stderr: new TextDecoder().decode(out.stderr),
        };
      };
      const upArgs = ["up", "--port", String(port), "--arm", "checklist", "--ledger", dir, "--guard", bundle];
      const files = ["--settings", join(dir, "settings.json"), "--harness", join(dir, "harness.json")];
      for (
        const args of [[...upArgs, ...files, "--server=healthverse", "--server="], ["settings", "--server="]]
      ) {
        const out = await run(args);
        assert.is(out.code, 2, out.stderr);
        assert.is(
          out.stderr,
          `Cannot run guard ${
            args[0]
          }: --server "" is unusable: it is empty. Pass the MCP server names the trial ` +
            "declares (--server=NAME for a name that starts with -).\n",
        );
        assert.is(out.stdout, "");
      }
      assert.equal(readdirSync(dir), [], "nothing started, nothing written");
      const odd = await run(["settings", "--server=-x", "--server", " ", "--server", "chi bench!"]);
      assert.is(odd.code, 0, odd.stderr);
      assert.match(odd.stdout, '"matcher": "^mcp__(?:-x|_|chi_bench_)__"');
      const dash = await run(["settings", "--server", "-x"]);
      assert.match(dash.stderr, /^Cannot run guard settings: --server needs a value\./);
    },
  );

  r(
    "the supervisor killed first: the server adopts a new one, which restarts the server when it dies",
    async () => {
      const dir = tempLedger();
      const port = await freePort();
      appendRecord(dir, rec("s8", new Date().toISOString(), "prompt", "context"));
      const guard = serve(port, { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist" }, runtime.argv);
      const first = await until("the guard", 20_000, () => health(port));
      assert.is(first.supervisor, guard.pid);
      Deno.kill(guard.pid, "SIGKILL");
      const adopted = await until("a supervisor adopting the server", 10_000, async () => {
        const h = await health(port);
        return h?.supervisor && h.supervisor !== guard.pid ? h : null;
      });
      const supervisor = Number(adopted.supervisor);
      started.push(supervisor);
      assert.is(adopted.pid, first.pid, "the same server, adopted");
      assert.is(
        Number(readFileSync(join(dir, PID_FILE), "utf8")),
        supervisor,
        "guard.pid names the new supervisor",
      );
      Deno.kill(Number(first.pid), "SIGKILL");
      const back = await until("the restarted guard", 20_000, async () => {
        const h = await health(port);
        return h && h.pid !== first.pid ? h : null;
      });
      assert.is(back.supervisor, supervisor);
      const [restart, gap] = guardRecords(dir);
      assert.match(
        restart?.note ?? "",
        `the resident guard (pid ${first.pid}) exited (its supervisor had died`,
      );
      assert.is(gap?.decision, "gap");
      Deno.kill(supervisor, "SIGTERM");
      await until(
        "the supervisor and its server to stop",
        10_000,
        () => Promise.resolve(!alive(supervisor) && !alive(Number(back.pid))),
      );
    },
  );

  r.after(() => stopAll());
  r.run();
}

// ---------------------------------------------------------------------------------------------------------
const g = suite("resident: a supervisor whose children keep dying young gives up");

g(
  "node bundle: the guard file replaced mid-trial by one that cannot start: 5 tries, then exit 1",
  async () => {
    const dir = tempLedger();
    const port = await freePort();
    const copy = join(tempLedger(), "fiable-guard.cjs");
    copyFileSync(bundle, copy);
    const guard = serve(
      port,
      { FIABLE_LEDGER_DIR: dir, FIABLE_CC_ARM: "checklist" },
      (w) => ["node", copy, w],
    );
    const first = await until("the guard", 10_000, () => health(port));
    writeFileSync(copy, "process.exit(3);\n");
    Deno.kill(Number(first.pid), "SIGKILL");
    const status = await Promise.race([
      guard.status,
      new Promise<null>((r) => setTimeout(() => r(null), 30_000)),
    ]);
    assert.ok(status, `the supervisor still respawns after 30 s:\n${guard.stderr()}`);
    assert.is(status.code, 1);
    assert.match(guard.stderr(), `of each of its last ${GIVE_UP_AFTER - 1} restarts (last: code 3)`);
    assert.is(
      guard.stderr().match(/; starting it again on port/g)?.length,
      GIVE_UP_AFTER - 1,
      guard.stderr(),
    );
  },
);

g("deno: the supervisor itself, with a child script replaced after its first start", async () => {
  const dir = tempLedger();
  const script = join(dir, "child.js");
  const runs = join(dir, "runs");
  writeFileSync(
    script,
    `import { appendFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
appendFileSync(${JSON.stringify(runs)}, "1");
const server = createServer((_, res) => res.end("{}")).listen(0, "127.0.0.1", () => {
  console.error(\`fiable-guard serving on http://127.0.0.1:\${server.address().port} (arm checklist)\`);
  writeFileSync(${
      JSON.stringify(script)
    }, \`import { appendFileSync } from "node:fs"; appendFileSync(\${JSON.stringify(${
      JSON.stringify(runs)
    })}, "1"); Deno.exit(3);\`);
  setTimeout(() => Deno.exit(0), 2500);
});
`,
  );
  const code = await supervise({ script, port: 0, host: "127.0.0.1", env: { PATH: Deno.env.get("PATH") } });
  assert.is(code, 1);
  assert.is(readFileSync(runs, "utf8").length, GIVE_UP_AFTER, "the first child, then 4 that died young");
});

g.after(() => stopAll());
g.run();
