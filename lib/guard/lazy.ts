/**
 * The modules the hook path loads only when it uses them: command mode itself (so guard.ts can run it from the
 * prebuilt bundle), the commands (and through them the http server), the resident check, the live post, Node's
 * `process`, the profile parser and the handbook index.
 *
 * `deno run` fetches, before any code runs, every module reachable through an `import()` whose specifier is
 * a string literal, and resolves their npm packages. A literal here would cost every hook process the http
 * server's graph, yaml, zod and minisearch (≈ 25 modules and an npm lock, ≈ 12 ms; issue 20). So under Deno
 * these are imported by a computed URL, which Deno does not follow. The Node bundles need literals to include
 * them, so their entries install literal loaders with `setLazyLoader` (lib/guard/lazy_node.ts).
 */

import { host } from "./host.ts";

/** Each lazily loaded module by name (types only: `deno run` does not fetch type-only references). */
export interface LazyModules {
  command: typeof import("./command.ts");
  commands: typeof import("./commands.ts");
  live: typeof import("./live.ts");
  resident: typeof import("./resident.ts");
  nodeProcess: typeof import("./node_process.ts");
  profile: typeof import("./profile.ts");
  handbook: typeof import("./handbook.ts");
}

/** The name of a lazily loaded module. */
export type LazyName = keyof LazyModules;

/** Loads a lazily loaded module by name. */
export type LazyLoader = <K extends LazyName>(name: K) => Promise<LazyModules[K]>;

/** Each module's path, relative to this file. */
export const LAZY_PATHS: Record<LazyName, string> = {
  command: "./command.ts",
  commands: "./commands.ts",
  live: "./live.ts",
  resident: "./resident.ts",
  nodeProcess: "./node_process.ts",
  profile: "./profile.ts",
  handbook: "./handbook.ts",
};

const byUrl: LazyLoader = (name) => import(new URL(LAZY_PATHS[name], import.meta.url).href);

/** Under Deno: command mode from the prebuilt bundle when it is fresh (lib/guard/prebuilt.ts), else source. */
const underDeno = (async (name: LazyName) => {
  if (name === "command") {
    const { prebuiltCommand } = await import(
      new URL("./prebuilt.ts", import.meta.url).href
    ) as typeof import("./prebuilt.ts");
    const bundled = await prebuiltCommand(host.env, byUrl);
    if (bundled) return bundled;
  }
  return await byUrl(name);
}) as LazyLoader;

let loader: LazyLoader = underDeno;

/** Installs the loader a bundle needs (one with literal specifiers, which the bundler includes). */
export function setLazyLoader(next: LazyLoader): void {
  loader = next;
}

/** A lazily loaded module. */
export function lazy<K extends LazyName>(name: K): Promise<LazyModules[K]> {
  return loader(name);
}
