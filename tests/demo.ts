/**
 * The demo as a first-time user meets it: the commands it prints run on a machine with only Node and npm (the
 * README's `npx -y deno@2.9.6 task …` form, each a task in deno.json, each accepted), its task fetches only
 * its own packages (deno.demo.lock, current and pinned as deno.lock pins them), and the dashboard it serves
 * computes its figures under the same flags.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_DENO_FLAGS, demoCommands, main as demoMain } from "../demo.ts";
import { parseArgs as dashboardArgs } from "../dashboard/server.tsx";
import { DENO } from "../lib/install/experiments.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");
const CONFIG = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
const TASKS: Record<string, string> = CONFIG.tasks;
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const s = suite("demo");

/** Runs the demo's `main` and returns what it printed. */
async function printed(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => lines.push(a.join(" "));
  try {
    assert.is(await demoMain(args), 0);
  } finally {
    console.log = log;
  }
  return lines.join("\n").split("\n");
}

/** Runs deno in the repository root; its exit code and output. */
async function deno(args: string[]): Promise<{ code: number; out: string }> {
  const run = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "piped", stderr: "piped" })
    .output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: run.code, out: text(run.stdout) + text(run.stderr) };
}

s("the demo prints the commands that do what it did, in the README's form", () => {
  const cmds = demoCommands({ samples: "/x/s", results: "/x/a", replay: "/x/r" }, ["stock", "checklist"]);
  assert.equal(cmds, [
    "npx -y deno@2.9.6 task verify /x/s",
    "npx -y deno@2.9.6 task replay /x/s/stock --arm checklist,critic --out /x/r --ledgers",
    "npx -y deno@2.9.6 task aggregate --arm stock=/x/s/stock --arm checklist=/x/s/checklist --control stock " +
    "--out /x/a",
    "npx -y deno@2.9.6 task dashboard --logs /x/s --results /x/a /x/r --control stock",
  ]);
  assert.match(README, `${DENO} task demo`, "the README's demo command has the form the demo prints");
  for (const c of cmds) {
    const task = c.slice(`${DENO} task `.length).split(" ")[0];
    assert.ok(TASKS[task], `deno.json has no task "${task}" for: ${c}`);
  }
});

s(
  "each printed command runs: verify, replay and aggregate as tasks, the dashboard's arguments accepted",
  async () => {
    const out = mkdtempSync(join(tmpdir(), "fiable-demo-cmds-"));
    try {
      const lines = await printed(["--no-serve", "--out", join(out, "demo")]);
      const at = lines.indexOf("The same steps from a shell:");
      assert.ok(at >= 0, lines.join("\n"));
      const cmds = lines.slice(at + 1).filter((l) => l.startsWith("  ")).map((l) => l.trim());
      assert.is(cmds.length, 4, cmds.join("\n"));
      for (const c of cmds) {
        assert.ok(c.startsWith(`${DENO} task `), c);
        const [task, ...args] = c.slice(`${DENO} task `.length).split(" ");
        if (task === "dashboard") {
          const parsed = dashboardArgs(args);
          assert.is(parsed.control, "stock");
          continue;
        }
        const run = await deno(["task", "-q", task, ...args]);
        assert.is(run.code, 0, `${c}\n${run.out}`);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);

s("deno.json's demo task runs with the demo's flags: no node_modules, its own lockfile, frozen", () => {
  assert.is(TASKS.demo, `deno run -A -q ${DEMO_DENO_FLAGS.join(" ")} demo.ts`);
  assert.is(CONFIG.nodeModulesDir, "manual", "auto or none makes `deno task` install every package first");
  for (const [name, task] of Object.entries(TASKS)) {
    if (name !== "demo") assert.match(task, "--node-modules-dir=auto", name);
  }
});

s(
  "deno.demo.lock is current, pins the demo's five packages as deno.lock does, and nothing else",
  async () => {
    const out = mkdtempSync(join(tmpdir(), "fiable-demo-lock-"));
    try {
      const run = await deno(["run", "-A", "-q", ...DEMO_DENO_FLAGS, "demo.ts", "--no-serve", "--out", out]);
      assert.is(
        run.code,
        0,
        `deno.demo.lock is stale (rm deno.demo.lock, then run the demo task without --frozen):
${run.out}`,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    const demo = JSON.parse(readFileSync(join(ROOT, "deno.demo.lock"), "utf8"));
    const full = JSON.parse(readFileSync(join(ROOT, "deno.lock"), "utf8"));
    const names = Object.keys(demo.npm).map((k) => k.replace(/@[^@]+$/, "")).sort();
    assert.equal(names, ["hono", "htmx.org", "minisearch", "yaml", "zod"]);
    for (const [pkg, entry] of Object.entries(demo.npm)) assert.equal(entry, full.npm[pkg], pkg);
    for (const [spec, version] of Object.entries(demo.specifiers)) {
      assert.is(
        version,
        full.specifiers[spec],
        spec,
      );
    }
  },
);

s("the demo's dashboard computes its figures in a child run with the demo's flags", async () => {
  const out = mkdtempSync(join(tmpdir(), "fiable-demo-serve-"));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "demo", "--port", "0", "--out", out],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const deadline = setTimeout(() => child.kill("SIGTERM"), 120_000);
    try {
      while (!/fiable dashboard: (\S+)/.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the demo ended (or took over 120 s) before serving:\n${text}`);
        text += value;
      }
    } finally {
      clearTimeout(deadline);
    }
    reader.releaseLock();
    const url = /fiable dashboard: (\S+)/.exec(text)![1];
    let page = "";
    for (let i = 0; i < 60 && !page.includes("vs stock"); i++) {
      page = await (await fetch(url)).text();
      assert.not.match(page, "Cannot compute the figures");
      if (!page.includes("vs stock")) await new Promise((r) => setTimeout(r, 500));
    }
    assert.match(page, "checklist");
    assert.match(page, "vs stock");
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // it ended already
    }
    await child.status;
    await child.stdout.cancel().catch(() => {});
    rmSync(out, { recursive: true, force: true });
  }
});

s.run();
