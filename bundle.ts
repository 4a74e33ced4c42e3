/**
 * Builds the guard (and fiable-agent) as one JavaScript file each for Node ≥ 20 (the trial container has
 * Node and no Deno): `deno task bundle [--agent] [--out FILE]`.
 */
import { dirname, join } from "node:path";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type CommandSpec, runCli } from "./lib/cli.ts";

const ROOT = import.meta.dirname ?? ".";

/** Where the guard bundle goes unless told otherwise. */
export const DEFAULT_BUNDLE = join(ROOT, "dist", "fiable-guard.mjs");
/** Where the agent bundle goes unless told otherwise. */
export const DEFAULT_AGENT_BUNDLE = join(ROOT, "dist", "fiable-agent.mjs");

/**
 * Gives a minified bundle the `require` its CommonJS dependencies (yaml) call: `--minify` drops the
 * createRequire banner that an unminified bundle carries.
 */
function withRequire(file: string): void {
  const code = readFileSync(file, "utf8");
  if (code.includes("createRequire")) return;
  writeFileSync(
    file,
    `import { createRequire as __fiableRequire } from "node:module";\n` +
      `var require = __fiableRequire(import.meta.url);\n${code}`,
  );
}

/** Runs `deno bundle` on an entry; throws with deno's own output, naming what failed, when it fails. */
async function denoBundle(
  entry: string,
  out: string,
  options: { what: string; minify: boolean },
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
      "esm",
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
  if (options.minify) withRequire(out);
  return out;
}

/**
 * Bundles guard_node.ts into `out`, minified (every hook process compiles the file, and compile time grows
 * with its size).
 */
export function bundleGuard(out = DEFAULT_BUNDLE): Promise<string> {
  return denoBundle("guard_node.ts", out, { what: "the guard", minify: true });
}

/** Bundles agent_node.ts (fiable-agent, the research arm) into `out`. */
export function bundleAgent(out = DEFAULT_AGENT_BUNDLE): Promise<string> {
  return denoBundle("agent_node.ts", out, { what: "the agent", minify: false });
}

/** Entry: `deno task bundle [--out FILE]` (the guard) or `deno task bundle --agent [--out FILE]` (fiable-agent). */
export function main(args: string[]): Promise<number> {
  return runCli(CLI, args, async (p) => {
    const build = p.flag("agent") ? bundleAgent : bundleGuard;
    console.log(`wrote ${await build(p.string("out"))}`);
    return 0;
  });
}

/** The command line. */
export const CLI: CommandSpec = {
  name: "bundle",
  summary:
    "Builds `dist/fiable-guard.mjs`, the guard as one file for Node ≥ 20 (the trial container has no " +
    "Deno). `--agent` builds `dist/fiable-agent.mjs`.",
  usage: ["deno task bundle [--agent] [--out FILE]"],
  options: {
    agent: { type: "boolean", description: "build fiable-agent instead of the guard" },
    out: {
      type: "string",
      value: "FILE",
      defaultNote: "dist/fiable-guard.mjs, or dist/fiable-agent.mjs with --agent",
      description: "where the bundle goes",
    },
  },
  args: "none",
  example: "deno task bundle --agent --out dist/fiable-agent.mjs",
};

if (import.meta.main) Deno.exit(await main(Deno.args));
