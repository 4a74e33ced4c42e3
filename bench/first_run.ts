/**
 * The README's first command on a fresh machine: `npx -y deno@2.9.6 task demo` in a fresh `git clone` of a
 * commit, with an empty npm cache and global prefix (so npx fetches Deno too), an empty DENO_DIR and no
 * node_modules, packages
 * from the npm registry only. It measures the wall time until the dashboard's URL is printed and until its
 * first page shows the figures, the lines printed before the URL, and the bytes each cache holds afterwards.
 * Needs the npm registry; run it with the machine otherwise idle. It clones a commit, so changes not
 * committed are not measured.
 *
 * Usage: deno run -A bench/first_run.ts [--ref REF] [--runs N]
 */
import { spawn } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CommandSpec, numberOption, type Parsed, runCli, wholeNumber } from "../lib/cli.ts";
import { DENO } from "../lib/install/experiments.ts";

const ROOT = join(import.meta.dirname ?? ".", "..");

/** The command line. */
export const CLI: CommandSpec = {
  name: "bench/first_run",
  summary: "Cold start of the demo: a fresh clone, empty npm cache and DENO_DIR; time, lines printed, bytes.",
  usage: ["deno run -A bench/first_run.ts [--ref REF] [--runs N]"],
  options: {
    ref: { type: "string", value: "REF", default: "HEAD", description: "the commit to clone and run" },
    runs: numberOption(3, "cold runs, each in new folders"),
  },
  args: "none",
  example: "deno run -A bench/first_run.ts --ref main --runs 1",
};

/** Bytes under a path, links not followed and each hard-linked file once, as `du` counts (0 when absent). */
export function bytesUnder(path: string, seen = new Set<string>()): number {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (st.isDirectory()) {
    return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name), seen), 0);
  }
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return 0;
  seen.add(id);
  return st.size;
}

/** One cold run's figures. */
export interface ColdRun {
  urlSeconds: number;
  figuresSeconds: number;
  linesBeforeUrl: number;
  npmCacheBytes: number;
  denoDirBytes: number;
  nodeModulesBytes: number;
  /** All three, each file once (node_modules hard-links files of DENO_DIR). */
  totalBytes: number;
}

async function git(args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  return text;
}

/** Clones `commit` into a new folder, runs the demo there cold, and removes everything after. */
async function coldRun(commit: string): Promise<ColdRun> {
  const base = mkdtempSync(join(tmpdir(), "fiable-bench-first-run-"));
  const repo = join(base, "repo");
  try {
    await git(["clone", "-q", "--no-hardlinks", ROOT, repo], base);
    await git(["checkout", "-q", commit], repo);
    const env: Record<string, string> = {
      ...Deno.env.toObject(),
      DENO_DIR: join(base, "deno"),
      npm_config_cache: join(base, "npm"),
      // An empty global prefix: a Deno installed with `npm install -g` would otherwise serve npx.
      npm_config_prefix: join(base, "prefix"),
      NO_COLOR: "1",
    };
    delete env.DENO_INSTALL_ROOT;
    const [cmd, ...pre] = DENO.split(" ");
    const t0 = performance.now();
    const child = spawn(cmd, [...pre, "task", "demo", "--port", "0", "--out", join(base, "out")], {
      cwd: repo,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    const url = await new Promise<string>((resolve, reject) => {
      const seen = (chunk: Buffer) => {
        text += chunk.toString();
        const m = /fiable dashboard: (\S+)/.exec(text);
        if (m) resolve(m[1]);
      };
      child.stdout!.on("data", seen);
      child.stderr!.on("data", seen);
      child.on("exit", (code) => reject(new Error(`the demo exited (${code}) before serving:\n${text}`)));
    });
    const urlSeconds = (performance.now() - t0) / 1000;
    const linesBeforeUrl = text.slice(0, text.indexOf("fiable dashboard:")).split("\n").length - 1;
    let figuresSeconds = NaN;
    for (let i = 0; i < 600; i++) {
      const page = await (await fetch(url)).text();
      if (page.includes("Cannot compute the figures")) throw new Error(`the figures failed:\n${page}`);
      if (page.includes("vs stock")) {
        figuresSeconds = (performance.now() - t0) / 1000;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(-child.pid!, "SIGTERM");
    await new Promise((r) => child.once("close", r));
    const seen = new Set<string>();
    const paths = [join(base, "npm"), join(base, "deno"), join(repo, "node_modules")];
    return {
      urlSeconds,
      figuresSeconds,
      linesBeforeUrl,
      npmCacheBytes: bytesUnder(paths[0]),
      denoDirBytes: bytesUnder(paths[1]),
      nodeModulesBytes: bytesUnder(paths[2]),
      totalBytes: paths.reduce((sum, path) => sum + bytesUnder(path, seen), 0),
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Entry. */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, (p) => run(p));
}

async function run(p: Parsed): Promise<number> {
  const runs = wholeNumber(p, "runs", 1)!;
  const commit = await git(["rev-parse", "--verify", `${p.string("ref")}^{commit}`], ROOT);
  console.log(`${DENO} task demo, cold, at ${commit.slice(0, 7)} (${runs} run(s))`);
  const rows = [[
    "run",
    "URL printed",
    "figures shown",
    "lines before URL",
    "npm cache (Deno)",
    "DENO_DIR",
    "node_modules",
    "all, each file once",
  ]];
  for (let i = 1; i <= runs; i++) {
    const r = await coldRun(commit);
    rows.push([
      String(i),
      `${r.urlSeconds.toFixed(1)} s`,
      `${r.figuresSeconds.toFixed(1)} s`,
      String(r.linesBeforeUrl),
      mb(r.npmCacheBytes),
      mb(r.denoDirBytes),
      mb(r.nodeModulesBytes),
      mb(r.totalBytes),
    ]);
    console.log(rows.at(-1)!.join("  "));
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  console.log("\n" + rows.map((r) => r.map((v, c) => v.padEnd(widths[c])).join("  ")).join("\n"));
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
