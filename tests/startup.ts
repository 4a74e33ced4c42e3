/**
 * The Node guard file's start-up: a loader that compiles the bundle with a V8 code cache, and stdin read
 * synchronously. The cache's every fallback and the ways stdin arrives are checked here with real processes.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import {
  copyFileSync,
  existsSync,
  lstatSync,
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
import { guardHash } from "../bundle.ts";
import { runGuard, runtimes, testBundle } from "./support/guard_process.ts";
import { post as postPayload, pre } from "./support/payloads.ts";
import { slowdown } from "./support/slowdown.ts";

const s = suite("startup");
const SUBMIT = pre("s1", "auth_submit_authorization", { case_id: "CASE-ACT-001" });

// The Node loader's code cache: where it goes, when it is reused, and that no cache problem reaches the hook.

/** A copy of the guard bundle alone in a fresh folder, with a temp folder beside it. */
async function freshGuard(): Promise<{ dir: string; guard: string; temp: string }> {
  const dir = mkdtempSync(join(tmpdir(), "fiable-loader-"));
  const guard = join(dir, "fiable-guard.cjs");
  copyFileSync(await testBundle(), guard);
  mkdirSync(join(dir, "tmp"));
  return { dir, guard, temp: join(dir, "tmp") };
}

/** Runs `node <guard> pre` with the submission on stdin and a fresh ledger; its decision, exit code, stderr. */
async function nodePre(
  guard: { guard: string; temp: string },
  extra: Record<string, string> = {},
): Promise<{ decision: string; code: number; stderr: string }> {
  const run = await runGuard({ name: "node", argv: (word) => ["node", guard.guard, word] }, "pre", SUBMIT, {
    TMPDIR: guard.temp,
    FIABLE_LEDGER_DIR: mkdtempSync(join(tmpdir(), "fiable-ledger-")),
    FIABLE_CC_ARM: "checklist",
    ...extra,
  });
  const reply = run.reply() as { hookSpecificOutput?: { permissionDecision?: string } };
  return {
    decision: reply.hookSpecificOutput?.permissionDecision ?? "",
    code: run.code ?? -1,
    stderr: run.stderr,
  };
}

/** The cache files in a folder. */
const cachesIn = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".v8cache")) : [];
const uid = Deno.uid() ?? -1;

s("the Node guard writes its code cache beside itself on the first run and reuses it after", async () => {
  const guard = await freshGuard();
  assert.equal(cachesIn(guard.dir), []);
  const first = await nodePre(guard);
  assert.is(first.decision, "deny");
  const [cache] = cachesIn(guard.dir);
  assert.match(cache, new RegExp(`^fiable-guard-[0-9a-f]{16}-${nodeVersion().replaceAll(".", "\\.")}-`));
  const bytes = readFileSync(join(guard.dir, cache));
  const written = statSync(join(guard.dir, cache)).mtimeMs;
  assert.ok(bytes.length > 10_000, `cache is ${bytes.length} bytes`);
  // A cache V8 accepts is not written again: same bytes, same mtime, same answer.
  const second = await nodePre(guard);
  assert.is(second.decision, "deny");
  assert.equal(readFileSync(join(guard.dir, cache)), bytes);
  assert.is(statSync(join(guard.dir, cache)).mtimeMs, written);
  assert.equal(cachesIn(guard.dir), [cache]);
});

s("the cache is written again, once, by the first process to take a path it does not hold", async () => {
  const guard = await freshGuard();
  const [cache, stamp] = [
    () => cachesIn(guard.dir)[0],
    () => statSync(join(guard.dir, cachesIn(guard.dir)[0])),
  ];
  const paths = () => readFileSync(join(guard.dir, `${cache()}.paths`), "utf8").split("\n").filter(Boolean);
  await nodePre(guard);
  assert.equal(paths(), ["pre"]);
  const first = stamp().mtimeMs;
  const post = await runGuard(
    { name: "node", argv: (word) => ["node", guard.guard, word] },
    "post",
    postPayload("s1", "cases_create_from_order", {}, { case: { id: "CASE-ACT-001" } }),
    {
      TMPDIR: guard.temp,
      FIABLE_LEDGER_DIR: mkdtempSync(join(tmpdir(), "fiable-ledger-")),
      FIABLE_CC_ARM: "checklist",
    },
  );
  assert.is(post.code, 0);
  assert.equal(paths(), ["pre", "post"]);
  const second = stamp().mtimeMs;
  assert.ok(second > first, "a post did not write the cache again");
  await nodePre(guard);
  assert.is(stamp().mtimeMs, second, "a path the cache holds wrote it again");
});

s("a corrupt cache is rejected and replaced; the hook answers as without it", async () => {
  const guard = await freshGuard();
  await nodePre(guard);
  const [cache] = cachesIn(guard.dir);
  writeFileSync(join(guard.dir, cache), "not a V8 code cache".repeat(1000));
  const run = await nodePre(guard);
  assert.is(run.decision, "deny");
  assert.is(run.code, 0);
  assert.is.not(readFileSync(join(guard.dir, cache), "utf8").slice(0, 19), "not a V8 code cache");
});

s("no writable folder beside the guard: the cache goes to a per-user temp folder", async () => {
  const guard = await freshGuard();
  await nodePre(guard, { FIABLE_CODE_CACHE: "0" });
  // Root writes anywhere, so block the file itself: a folder where the cache file would go.
  const name = `fiable-guard-${guardHash(readFileSync(guard.guard, "utf8"))}`;
  const blocked = `${name}-${nodeVersion()}-${Deno.build.arch === "x86_64" ? "x64" : "arm64"}.v8cache`;
  mkdirSync(join(guard.dir, blocked));
  assert.is((await nodePre(guard)).decision, "deny");
  const perUser = join(guard.temp, `fiable-guard-cache-${uid}`);
  assert.equal(cachesIn(perUser), [blocked]);
  assert.is((await nodePre(guard)).decision, "deny");
  // Nowhere to write at all: still the same answer, exit 0, nothing on stderr about the cache.
  const nowhere = await freshGuard();
  mkdirSync(join(nowhere.dir, blocked));
  mkdirSync(join(nowhere.temp, `fiable-guard-cache-${uid}`, blocked), { recursive: true });
  const run = await nodePre(nowhere);
  assert.is(run.decision, "deny");
  assert.is(run.code, 0);
  assert.is(run.stderr, "");
});

/** The cache file name of a guard copy (its bundle hash, this node's version and architecture). */
function cacheFile(guard: { guard: string }): string {
  const hash = guardHash(readFileSync(guard.guard, "utf8"));
  return `fiable-guard-${hash}-${nodeVersion()}-${Deno.build.arch === "x86_64" ? "x64" : "arm64"}.v8cache`;
}

/** Hostile things at a code-cache path (issue 32): each must leave the hook answering as without a cache. */
const HOSTILE_CACHES: [string, (path: string) => void][] = [
  ["a FIFO", (path) => void new Deno.Command("mkfifo", { args: [path] }).outputSync()],
  ["a link to /dev/zero", (path) => symlinkSync("/dev/zero", path)],
  ["a 1 GB sparse file", (path) => {
    writeFileSync(path, "");
    truncateSync(path, 2 ** 30);
  }],
  ["a real cache whose list of paths is a FIFO", (path) => {
    rmSync(`${path}.paths`, { force: true });
    new Deno.Command("mkfifo", { args: [`${path}.paths`] }).outputSync();
  }],
];

for (const runtime of await runtimes()) {
  for (const [what, plant] of HOSTILE_CACHES) {
    s(
      `${runtime.name}: a code-cache path that is ${what} is never read; the hook answers as without it`,
      async () => {
        const guard = await freshGuard();
        const name = cacheFile(guard);
        const listOnly = what.endsWith("FIFO") && what.startsWith("a real cache");
        if (listOnly) await nodePre(guard);
        // Beside the guard file, and in the per-user temp folder the loader tries next.
        const perUser = join(guard.temp, `fiable-guard-cache-${uid}`);
        mkdirSync(perUser, { mode: 0o700 });
        for (const dir of listOnly ? [guard.dir] : [guard.dir, perUser]) plant(join(dir, name));
        const argv = runtime.name === "node" ? (word: string) => ["node", guard.guard, word] : runtime.argv;
        const ledger = mkdtempSync(join(tmpdir(), "fiable-ledger-"));
        const before = slowdown();
        const started = performance.now();
        const run = await new Deno.Command(argv("pre")[0], {
          args: argv("pre").slice(1),
          env: {
            PATH: Deno.env.get("PATH") ?? "",
            TMPDIR: guard.temp,
            FIABLE_LEDGER_DIR: ledger,
            FIABLE_CC_ARM: "checklist",
          },
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(15_000 * before),
        }).spawn();
        const writer = run.stdin.getWriter();
        await writer.write(new TextEncoder().encode(SUBMIT));
        await writer.close();
        const out = await run.output();
        const ms = performance.now() - started;
        assert.is(out.code, 0, `killed after ${Math.round(ms)} ms: ${new TextDecoder().decode(out.stderr)}`);
        const reply = JSON.parse(new TextDecoder().decode(out.stdout));
        assert.is(reply.hookSpecificOutput?.permissionDecision, "deny", JSON.stringify(reply));
        // Never waiting on the cache: within 5 s of an idle machine (the time over the slowdown around it).
        const load = Math.max(before, slowdown());
        assert.ok(ms / load < 5000, `answered in ${Math.round(ms)} ms at ${load.toFixed(1)}x slowdown`);
        assert.is(readdirSync(ledger).length, 1, "recorded");
        if (runtime.name === "node") {
          // The hostile file is replaced by a real cache (a link is replaced, its target untouched).
          assert.ok(lstatSync(join(guard.dir, name)).isFile(), "a regular cache in its place");
          assert.ok(lstatSync(join(guard.dir, name)).size < 16 * 2 ** 20);
        }
      },
    );
  }
}

s("a link planted at the cache's names is replaced, never written through", async () => {
  const guard = await freshGuard();
  const name = cacheFile(guard);
  const target = join(guard.temp, "victim");
  writeFileSync(target, "keep me");
  symlinkSync(target, join(guard.dir, name));
  symlinkSync(target, join(guard.dir, `${name}.paths`));
  assert.is((await nodePre(guard)).decision, "deny");
  assert.is(readFileSync(target, "utf8"), "keep me");
  assert.ok(
    lstatSync(join(guard.dir, name)).isFile() && lstatSync(join(guard.dir, `${name}.paths`)).isFile(),
  );
  assert.equal(readdirSync(guard.dir).filter((f) => f.endsWith(".tmp")), [], "no temp file left");
});

s("FIABLE_CODE_CACHE=0 compiles without a cache and writes none", async () => {
  const guard = await freshGuard();
  assert.is((await nodePre(guard, { FIABLE_CODE_CACHE: "0" })).decision, "deny");
  assert.equal(cachesIn(guard.dir), []);
  assert.equal(cachesIn(join(guard.temp, `fiable-guard-cache-${uid}`)), []);
});

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
