/**
 * The modules the hook path loads only when it uses them: command mode itself (so a guard.ts whose command mode
 * does not load still answers), the commands (and through them the http server), the resident check, the live
 * post, Node's `process`, the profile parser and the handbook index.
 *
 * `deno run` fetches, before any code runs, every module reachable through an `import()` whose specifier is
 * a string literal, and resolves their npm packages. A literal here would cost every hook process the http
 * server's graph, yaml, zod and minisearch (≈ 25 modules and an npm lock, ≈ 12 ms; issue 20). So under Deno
 * these are imported by a computed URL, which Deno does not follow. The Node bundles need literals to include
 * them, so their entries install literal loaders with `setLazyLoader` (lib/guard/lazy_node.ts).
 */

/** The lazily loaded modules, by name. */
export type LazyName = "command" | "commands" | "live" | "resident" | "nodeProcess" | "profile" | "handbook";

/**
 * Loads a lazily loaded module by name. Callers name the module's type (`lazy<typeof import("…")>(name)`),
 * so this file imports none of them, not even by type.
 */
export type LazyLoader = (name: LazyName) => Promise<unknown>;

/** Each module's path, relative to this file. */
export const LAZY_PATHS: Record<LazyName, string> = {
  command: "../command.ts",
  commands: "../commands.ts",
  live: "../ledger/live.ts",
  resident: "../resident/resident.ts",
  nodeProcess: "./node_process.ts",
  profile: "../config/profile.ts",
  handbook: "../handbook.ts",
};

const byUrl: LazyLoader = (name) => import(new URL(LAZY_PATHS[name], import.meta.url).href);

let loader: LazyLoader = byUrl;

/** Installs the loader a bundle needs (one with literal specifiers, which the bundler includes). */
export function setLazyLoader(next: LazyLoader): void {
  loader = next;
}

/** A lazily loaded module. */
export function lazy<M>(name: LazyName): Promise<M> {
  return loader(name) as Promise<M>;
}
