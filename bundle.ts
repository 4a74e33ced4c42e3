/**
 * Builds the guard (and fiable-agent) as one JavaScript file each for Node ≥ 20 (the trial container has
 * Node and no Deno): `deno task bundle [--agent] [--out FILE]`.
 */
import { dirname, join } from "node:path";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type CommandSpec, runCli } from "./lib/cli.ts";
import { buildLine } from "./lib/guard/build_line.ts";

const ROOT = import.meta.dirname ?? ".";

/** Where the guard bundle goes unless told otherwise. */
export const DEFAULT_BUNDLE = join(ROOT, "dist", "fiable-guard.cjs");
/** Where the agent bundle goes unless told otherwise. */
export const DEFAULT_AGENT_BUNDLE = join(ROOT, "dist", "fiable-agent.mjs");

/** Runs `deno bundle` on an entry; throws with deno's own output, naming what failed, when it fails. */
async function denoBundle(
  entry: string,
  out: string,
  options: { what: string; minify: boolean; format: "esm" | "cjs" },
): Promise<string> {
  mkdirSync(dirname(out), { recursive: true });
  const flags = options.minify ? ["--minify", "--keep-names"] : [];
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--format",
      options.format,
      ...flags,
      "-o",
      out,
      join(ROOT, entry),
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(
      `Cannot bundle ${options.what}: deno bundle failed.\n${new TextDecoder().decode(result.stderr)}`,
    );
  }
  return out;
}

/** This checkout's commit, with `-dirty` when tracked files changed since; null outside a git checkout. */
export async function checkoutCommit(): Promise<string | null> {
  const git = async (...args: string[]) => {
    try {
      const out = await new Deno.Command("git", {
        args: ["-C", ROOT, ...args],
        stdout: "piped",
        stderr: "null",
      })
        .output();
      return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
    } catch {
      return null;
    }
  };
  const head = await git("rev-parse", "HEAD");
  if (!head || !/^[0-9a-f]{40}$/.test(head)) return null;
  const changes = await git("status", "--porcelain", "--untracked-files=no");
  return changes ? `${head}-dirty` : head;
}

/**
 * Bundles guard_node.ts into `out`: the line naming the commit it was built from (lib/guard/build_line.ts), then
 * the CommonJS bundle, minified (compile time grows with its size). Node runs it as it is, and `guard up` makes
 * a start-up snapshot of it (lib/guard/runtime/snapshot.ts).
 */
export async function bundleGuard(out = DEFAULT_BUNDLE): Promise<string> {
  const inner = join(await Deno.makeTempDir({ prefix: "fiable-guard-bundle-" }), "guard.cjs");
  await denoBundle("guard_node.ts", inner, { what: "the guard", minify: true, format: "cjs" });
  const bundle = readFileSync(inner, "utf8");
  await Deno.remove(dirname(inner), { recursive: true });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, buildLine(await checkoutCommit()) + bundle);
  return out;
}

/** One module of `deno info --json`, with the dependencies that carry code. */
export interface GraphModule {
  specifier: string;
  dependencies?: { specifier?: string; code?: { specifier: string }; isDynamic?: boolean }[];
}

/**
 * `deno info --json` of an entry (a path from the repository root): every module it can reach, by import,
 * literal dynamic import or type.
 */
export async function moduleGraph(entry: string): Promise<GraphModule[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`Cannot list the modules of ${entry}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: GraphModule[] }).modules;
}

/** Bundles agent_node.ts (fiable-agent, the research arm) into `out`. */
export function bundleAgent(out = DEFAULT_AGENT_BUNDLE): Promise<string> {
  return denoBundle("agent_node.ts", out, { what: "the agent", minify: false, format: "esm" });
}

/** Entry: `deno task bundle [--out FILE]` (the guard) or `deno task bundle --agent [--out FILE]` (fiable-agent). */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, async (p) => {
    if (p.flag("agent")) {
      console.log(`wrote ${await bundleAgent(p.string("out"))}`);
      return 0;
    }
    console.log(`wrote ${await bundleGuard(p.string("out"))}`);
    return 0;
  });
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bundle",
  summary:
    "Builds `dist/fiable-guard.cjs`, the guard as one file for Node ≥ 20 (the trial container has no " +
    "Deno). `--agent` builds `dist/fiable-agent.mjs`.",
  usage: ["deno task bundle [--agent] [--out FILE]"],
  options: {
    agent: { type: "boolean", description: "build fiable-agent instead of the guard" },
    out: {
      type: "string",
      value: "FILE",
      defaultNote: "dist/fiable-guard.cjs, or dist/fiable-agent.mjs with --agent",
      description: "where the bundle goes",
    },
  },
  args: "none",
  example: "deno task bundle --agent --out dist/fiable-agent.mjs",
};

if (import.meta.main) Deno.exit(await main(Deno.args));
