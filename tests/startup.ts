/**
 * The Node guard file's start-up: the start-up snapshot `guard up` builds for command hooks (with the guard file
 * itself as the fallback), and stdin read synchronously. The snapshot's every fallback and the ways stdin arrives
 * are checked here with real processes.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLedger } from "../lib/guard/ledger/ledger.ts";
import { createHash } from "node:crypto";
import { ensureSnapshot } from "../lib/guard/runtime/snapshot_blob.ts";
import { SNAPSHOT_FLAG } from "../lib/guard/runtime/snapshot.ts";
import { hookSettings } from "../lib/guard/config/claude_settings.ts";
import { runGuard, runtimes, testBundle } from "./support/guard_process.ts";
import { post as postPayload, pre } from "./support/payloads.ts";
import { slowdown } from "./support/slowdown.ts";

const s = suite("startup");
const SUBMIT = pre("s1", "auth_submit_authorization", { case_id: "CASE-ACT-001" });

/** The folders `freshGuard` made: removed after the suite (each snapshot is ≈ 6 MB). */
const made: string[] = [];
s.after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A copy of the guard bundle alone in a fresh folder, with a temp folder beside it. */
async function freshGuard(): Promise<{ dir: string; guard: string; temp: string }> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-loader-"));
  made.push(dir);
  const guard = join(dir, "fiable-guard.cjs");
  copyFileSync(await testBundle(), guard);
  mkdirSync(join(dir, "tmp"));
  return { dir, guard, temp: join(dir, "tmp") };
}

s("the guard file is Latin-1 text: V8 holds its source one byte a character", async () => {
  const text = readFileSync(await testBundle(), "utf8");
  const wide = /[\u0100-\uffff]/.exec(text);
  // A character past U+00FF makes V8 keep the whole source as two-byte text: 0.55 MB more in every snapshot
  // (lib/guard/runtime/snapshot.ts). Write it as a \u escape in the source (regular expressions keep it raw).
  assert.is(wide && JSON.stringify(text.slice(Math.max(0, wide.index - 60), wide.index + 10)), null);
});

// The start-up snapshot command hooks start from (lib/guard/runtime/snapshot.ts): the same answers and records as
// the guard file, and the guard file itself whenever node cannot load the snapshot.

/** Every record of a ledger dir's session without its time, latency and chain links, which differ between runs. */
function records(dir: string, session: string): unknown[] {
  return parseLedger(readFileSync(join(dir, `${session}.jsonl`), "utf8")).records.map((r) => {
    const { t: _t, latency_ms: _ms, p: _p, c: _c, ...rest } = r as unknown as Record<string, unknown>;
    return rest;
  });
}

s(
  "a snapshot written beside the guard answers each hook as the guard file does, with the run's own env",
  async () => {
    const guard = await freshGuard();
    const blob = ensureSnapshot(guard.guard);
    const hash = createHash("sha256").update(readFileSync(guard.guard)).digest("hex").slice(0, 16);
    assert.is(
      blob,
      join(
        guard.dir,
        `fiable-guard-${hash}-${nodeVersion()}-${Deno.build.arch === "x86_64" ? "x64" : "arm64"}.blob`,
      ),
    );
    // Built with no FIABLE_ variable set: the arm and ledger below are read when each hook runs.
    const ways = {
      snapshot: {
        name: "snapshot",
        argv: (word: string) => ["node", SNAPSHOT_FLAG, "--snapshot-blob", blob!, guard.guard, word],
      },
      file: { name: "file", argv: (word: string) => ["node", guard.guard, word] },
    };
    const events: [string, string][] = [
      [
        "prompt",
        JSON.stringify({
          session_id: "s1",
          hook_event_name: "UserPromptSubmit",
          prompt: "Review CASE-ACT-001",
        }),
      ],
      ["post", postPayload("s1", "cases_create_from_order", {}, { case: { id: "CASE-ACT-001" } })],
      ["pre", SUBMIT],
      ["pre", SUBMIT],
      ["stop", JSON.stringify({ session_id: "s1", hook_event_name: "Stop", stop_hook_active: false })],
    ];
    const replies: Record<string, unknown[]> = { snapshot: [], file: [] };
    const dirs: Record<string, string> = {};
    for (const [way, runtime] of Object.entries(ways)) {
      dirs[way] = mkdtempSync(join(tmpdir(), "fiable-ledger-"));
      for (const [word, payload] of events) {
        const run = await runGuard(runtime, word, payload, {
          TMPDIR: guard.temp,
          FIABLE_LEDGER_DIR: dirs[way],
          FIABLE_CC_ARM: "critic",
        });
        assert.is(run.code, 0, `${way} ${word}: ${run.stderr}`);
        replies[way].push(run.reply());
      }
    }
    assert.equal(replies.snapshot, replies.file);
    assert.is(
      (replies.snapshot[2] as { hookSpecificOutput: { permissionDecision: string } })
        .hookSpecificOutput.permissionDecision,
      "deny",
    );
    assert.equal(records(dirs.snapshot, "s1"), records(dirs.file, "s1"));
    // Another arm at run time, same snapshot: the stock arm answers as the guard file does and records nothing.
    const stock = mkdtempSync(join(tmpdir(), "fiable-ledger-"));
    const stockReplies = [];
    for (const runtime of [ways.snapshot, ways.file]) {
      const run = await runGuard(runtime, "pre", SUBMIT, {
        FIABLE_LEDGER_DIR: stock,
        FIABLE_CC_ARM: "stock",
      });
      stockReplies.push(run.reply());
    }
    assert.equal(stockReplies[0], stockReplies[1]);
    assert.equal(readdirSync(stock), []);
  },
);

s("a snapshot that answers is reused; one that does not is written again", async () => {
  const guard = await freshGuard();
  const blob = ensureSnapshot(guard.guard)!;
  const written = statSync(blob).mtimeMs;
  assert.is(ensureSnapshot(guard.guard), blob);
  assert.is(statSync(blob).mtimeMs, written);
  writeFileSync(blob, "not a snapshot");
  assert.is(ensureSnapshot(guard.guard), blob);
  assert.ok(statSync(blob).size > 1_000_000, "the snapshot was not written again");
});

/** What may be at a snapshot's path instead of a snapshot (issue 32's hostile files among them). */
const NOT_SNAPSHOTS: [string, (path: string) => void][] = [
  ["nothing", () => {}],
  ["not a snapshot", (path) => writeFileSync(path, "not a snapshot")],
  ["a FIFO", (path) => void new Deno.Command("mkfifo", { args: [path] }).outputSync()],
  ["a link to /dev/zero", (path) => symlinkSync("/dev/zero", path)],
  ["a 1 GB sparse file", (path) => {
    writeFileSync(path, "");
    truncateSync(path, 2 ** 30);
  }],
];

for (const [what, plant] of NOT_SNAPSHOTS) {
  s(`a command hook whose snapshot path holds ${what} runs the guard file instead, within 5 s`, async () => {
    const guard = await freshGuard();
    const blob = join(guard.dir, "fiable-guard.blob");
    plant(blob);
    const ledger = mkdtempSync(join(tmpdir(), "fiable-ledger-"));
    const { hooks } = hookSettings({
      mode: "command",
      arm: "checklist",
      ledgerDir: ledger,
      guard: guard.guard,
      snapshot: blob,
    });
    const command = (hooks!.PreToolUse[0] as { hooks: { command: string }[] }).hooks[0].command;
    assert.match(command, ` ${SNAPSHOT_FLAG} --snapshot-blob ${blob} `);
    const before = slowdown();
    const started = performance.now();
    const out = new Deno.Command("sh", {
      args: ["-c", command],
      cwd: guard.dir,
      env: { PATH: Deno.env.get("PATH") ?? "", TMPDIR: guard.temp },
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(15_000 * before),
    }).spawn();
    const writer = out.stdin.getWriter();
    await writer.write(new TextEncoder().encode(SUBMIT));
    await writer.close();
    const done = await out.output();
    const ms = performance.now() - started;
    assert.is(done.code, 0, `ended after ${Math.round(ms)} ms`);
    const reply = JSON.parse(new TextDecoder().decode(done.stdout));
    assert.is(reply.hookSpecificOutput.permissionDecision, "deny");
    // Within 5 s of an idle machine: the time over the slowdown around it.
    const load = Math.max(before, slowdown());
    assert.ok(ms / load < 5000, `answered in ${Math.round(ms)} ms at ${load.toFixed(1)}x slowdown`);
    assert.is(readdirSync(ledger).filter((f) => f.endsWith(".jsonl")).length, 1, "recorded");
  });
}

/** The running node's version, as the cache file names it (`v20.20.2`). */
function nodeVersion(): string {
  return new TextDecoder().decode(new Deno.Command("node", { args: ["--version"] }).outputSync().stdout)
    .trim();
}

// stdin as Claude Code and odd callers give it: the hook reads all of it, or answers on what it has.
const PYTHON_NONBLOCKING = `
import os, subprocess, sys, time
r, w = os.pipe()
os.set_blocking(r, False)
child = subprocess.Popen(sys.argv[1:], stdin=r, stdout=subprocess.PIPE)
os.close(r)
payload = os.environ["PAYLOAD"].encode()
time.sleep(0.2)
os.write(w, payload[:40])
time.sleep(0.1)
os.write(w, payload[40:])
os.close(w)
sys.stdout.write(child.communicate(timeout=30)[0].decode())
`;

for (const runtime of await runtimes()) {
  const argv = runtime.argv("pre");
  const run = (cmd: string, args: string[], env: Record<string, string>) => {
    const out = new Deno.Command(cmd, {
      args,
      env: { PATH: Deno.env.get("PATH") ?? "", FIABLE_CC_ARM: "checklist", ...env },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
    return { code: out.code, reply: JSON.parse(new TextDecoder().decode(out.stdout)) };
  };
  const ledgerNote = (dir: string) =>
    parseLedger(readFileSync(join(dir, "unknown-session.jsonl"), "utf8")).records[0]?.note;

  s(`${runtime.name}: stdin closed or /dev/null reads as empty: allow, exit 0, recorded`, () => {
    for (const redirect of ["<&-", "</dev/null"]) {
      const dir = mkdtempSync(join(tmpdir(), "fiable-stdin-"));
      const quoted = argv.map((a) => `'${a}'`).join(" ");
      const out = run("sh", ["-c", `exec ${quoted} ${redirect}`], { FIABLE_LEDGER_DIR: dir });
      assert.is(out.code, 0, redirect);
      assert.is(out.reply.hookSpecificOutput.permissionDecision, "allow", redirect);
      assert.match(ledgerNote(dir) ?? "", "stdin was empty", redirect);
    }
  });

  s(`${runtime.name}: a non-blocking stdin pipe written in parts is read whole`, () => {
    const dir = mkdtempSync(join(tmpdir(), "fiable-stdin-"));
    const out = run("python3", ["-c", PYTHON_NONBLOCKING, ...argv], {
      FIABLE_LEDGER_DIR: dir,
      PAYLOAD: SUBMIT,
    });
    assert.is(out.code, 0);
    assert.is(out.reply.hookSpecificOutput.permissionDecision, "deny");
  });
}

s.run();
