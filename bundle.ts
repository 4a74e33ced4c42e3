/**
 * Builds the guard (and fiable-agent) as one JavaScript file each for Node ≥ 20 (the trial container has
 * Node and no Deno): `deno task bundle [--agent] [--out FILE]`.
 */
import { dirname, join } from "node:path";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";

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
export async function main(args: string[]): Promise<number> {
  const at = args.indexOf("--out");
  const build = args.includes("--agent") ? bundleAgent : bundleGuard;
  const out = await build(at >= 0 ? args[at + 1] : undefined);
  console.log(`wrote ${out}`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
