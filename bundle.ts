/**
 * Builds the guard as one JavaScript file for Node ≥ 20 (the trial container has Node and no Deno):
 * `deno task bundle [--out dist/fiable-guard.mjs]`.
 */
import { dirname, join } from "node:path";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

/** Where the bundle goes unless told otherwise. */
export const DEFAULT_BUNDLE = join(import.meta.dirname ?? ".", "dist", "fiable-guard.mjs");

/**
 * Bundles guard_node.ts into `out`, minified (every hook process compiles the file, and compile time grows
 * with its size); throws with deno's own output when bundling fails.
 */
export async function bundleGuard(out = DEFAULT_BUNDLE): Promise<string> {
  mkdirSync(dirname(out), { recursive: true });
  const root = import.meta.dirname ?? ".";
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--format",
      "esm",
      "--minify",
      "--keep-names",
      "-o",
      out,
      join(root, "guard_node.ts"),
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(
      `Cannot bundle the guard: deno bundle failed.\n${new TextDecoder().decode(result.stderr)}`,
    );
  }
  withRequire(out);
  return out;
}

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

/** Where the agent bundle goes unless told otherwise. */
export const DEFAULT_AGENT_BUNDLE = join(import.meta.dirname ?? ".", "dist", "fiable-agent.mjs");

/** Bundles agent_node.ts (fiable-agent, the research arm) into `out` for Node ≥ 20. */
export async function bundleAgent(out = DEFAULT_AGENT_BUNDLE): Promise<string> {
  mkdirSync(dirname(out), { recursive: true });
  const root = import.meta.dirname ?? ".";
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--format",
      "esm",
      "-o",
      out,
      join(root, "agent_node.ts"),
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!result.success) {
    throw new Error(
      `Cannot bundle the agent: deno bundle failed.\n${new TextDecoder().decode(result.stderr)}`,
    );
  }
  return out;
}

/** Entry: `deno task bundle [--out FILE]` (the guard) or `deno task bundle --agent [--out FILE]` (fiable-agent). */
export async function main(args: string[]): Promise<number> {
  const at = args.indexOf("--out");
  const build = args.includes("--agent") ? bundleAgent : bundleGuard;
  const out = await build(at >= 0 ? args[at + 1] : undefined);
  console.log(`wrote ${out}`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
