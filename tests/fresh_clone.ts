/**
 * The design card's commands as written, on a fresh clone: the repository's files without node_modules, an
 * empty DENO_DIR that reaches the npm registry, and `deno run -A <entry>` with no install step first. The first
 * (the guard's hook) installs the npm packages once, in one line, and answers; the rest run as they are; none
 * shows Deno's resolution error; a run without `-A` says the one command to run. Skips when the registry is out
 * of reach.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { writeSamples } from "../lib/samples/trials.ts";
import { moduleGraph } from "../bundle.ts";
import { chiBenchFixture } from "./support/chibench_fixture.ts";
import { pre } from "./support/payloads.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
/** The entries the card names with `deno run -A`. */
const ENTRIES = ["guard.ts", "install.ts", "aggregate.ts", "replay.ts", "verify.ts"];
const DENO_ERROR = /Could not find a matching package|Stack backtrace|node_modules directory/;
const s = suite("fresh clone");

/** The files a clone of the working tree would hold: tracked and new ones, nothing ignored (no node_modules). */
async function cloneInto(dir: string): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  for (const path of new TextDecoder().decode(out.stdout).split("\0").filter(Boolean)) {
    if (!existsSync(join(ROOT, path))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    copyFileSync(join(ROOT, path), join(dir, path));
  }
}

async function registryReachable(): Promise<string | null> {
  try {
    const res = await fetch("https://registry.npmjs.org/yaml", { signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return res.ok ? null : `the npm registry answered ${res.status}`;
  } catch (err) {
    return `the npm registry is out of reach (${(err as Error).message})`;
  }
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `deno <args>` in `cwd` with only `env` besides PATH and HOME. */
async function deno(args: string[], cwd: string, env: Record<string, string>, stdin = ""): Promise<Ran> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** Asserts a run succeeded without Deno's resolution error; `what` names it in failures. */
function ok(run: Ran, what: string): void {
  const all = `${what}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
  assert.is(run.code, 0, all);
  assert.not.match(run.stdout + run.stderr, DENO_ERROR, all);
}

s("no entry the card names imports an npm package before it can install them", async () => {
  for (const entry of ENTRIES) {
    const modules = new Map((await moduleGraph(entry)).map((m) => [m.specifier, m]));
    const root = [...modules.keys()].find((k) => k.endsWith(`/${entry}`))!;
    // Static edges only, from the entry: a literal `import()` is loaded, and may fail, after the check ran.
    const seen = new Set([root]);
    const queue = [root];
    const npm: string[] = [];
    while (queue.length) {
      const from = queue.shift()!;
      for (const d of modules.get(from)?.dependencies ?? []) {
        const to = d.code?.specifier;
        if (d.isDynamic || !to || seen.has(to)) continue;
        seen.add(to);
        // An npm package resolves to `npm:…`, or to a file in node_modules when nodeModulesDir is manual.
        if (/^npm:|\/node_modules\//.test(to)) {
          npm.push(`${from.replace(/^.*?\/(lib|rules|[a-z_]+\.ts)/, "$1")} → ${d.specifier}`);
        } else queue.push(to);
      }
    }
    assert.equal(npm, [], `${entry} loads npm packages statically; import them when used (lib/packages.ts)`);
  }
});

const unreachable = await registryReachable();
if (unreachable) {
  s("the card's commands on a fresh clone (skipped)", () => {
    console.log(`  (skipped: ${unreachable})`);
  });
} else {
  s("the card's commands run on a fresh clone with empty caches, no install step first", async () => {
    const base = mkdtempSync(join(tmpdir(), "fiable-fresh-clone-"));
    try {
      const repo = join(base, "repo");
      await cloneInto(repo);
      const env: Record<string, string> = { DENO_DIR: join(base, "deno") };
      const certs = Deno.env.get("NODE_EXTRA_CA_CERTS");
      if (certs) env.NODE_EXTRA_CA_CERTS = certs;
      // Without every permission an entry cannot install: one line naming the command, exit 1.
      const refused = await deno(["run", "--allow-read", "verify.ts", "--help"], repo, env);
      assert.is(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /^Cannot run verify\.ts: .*Run `deno install` in .* once/);
      assert.is(refused.stderr.trim().split("\n").length, 1, refused.stderr);
      assert.not.match(refused.stderr, DENO_ERROR);

      // The guard's first hook installs the packages (one line on stderr) and answers from its second run.
      const ledgers = join(base, "ledgers");
      const guard = await deno(
        ["run", "-A", "guard.ts", "pre"],
        repo,
        { ...env, FIABLE_LEDGER_DIR: ledgers, FIABLE_CC_ARM: "checklist" },
        pre("fresh", "auth_submit_authorization", { case_id: "CASE-ACT-001" }),
      );
      ok(guard, "guard.ts pre");
      assert.is(
        guard.stderr.trim(),
        "guard.ts: installing this checkout's npm packages once (deno install) …",
      );
      const reply = JSON.parse(guard.stdout);
      assert.is(reply.hookSpecificOutput?.permissionDecision, "deny", guard.stdout);
      assert.ok(existsSync(join(ledgers, "fresh.jsonl")), "the guard kept its ledger");
      assert.ok(existsSync(join(repo, "node_modules", "zod", "package.json")), "installed into node_modules");

      const checkout = chiBenchFixture();
      const samples = join(base, "samples");
      writeSamples(samples);
      const help = await deno(["run", "-A", "install.ts", "--help"], repo, env);
      ok(help, "install.ts --help");
      assert.match(help.stdout, /^Usage: deno task install/);
      const runs: [string, string[], RegExp][] = [
        ["install.ts", ["--chi-bench", checkout], /Dry run/],
        ["install.ts", ["experiments", "--chi-bench", checkout], /Cost estimate/],
        [
          "aggregate.ts",
          [
            "--arm",
            `stock=${join(samples, "stock")}`,
            "--arm",
            `checklist=${join(samples, "checklist")}`,
            "--out",
            join(base, "agg"),
          ],
          /results\.csv/,
        ],
        ["replay.ts", [join(samples, "stock"), "--out", join(base, "replay")], /summary\.json/],
        ["verify.ts", [samples], /guarded/],
      ];
      for (const [entry, args, says] of runs) {
        const run = await deno(["run", "-A", entry, ...args], repo, env);
        ok(run, `${entry} ${args.join(" ")}`);
        assert.match(run.stdout + run.stderr, says, `${entry}: ${run.stdout}${run.stderr}`);
        assert.not.match(run.stderr, /installing/, `${entry} installed again`);
      }
      assert.ok(existsSync(join(base, "agg", "aggregate.json")));
      assert.ok(
        existsSync(join(base, "replay", "trials.parquet")),
        "DuckDB loaded from the installed packages",
      );
      assert.is(readFileSync(join(repo, "deno.lock"), "utf8"), readFileSync(join(ROOT, "deno.lock"), "utf8"));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
}

s.run();
