/**
 * The lazily loaded modules with literal specifiers, for the Node bundles (guard_node.ts, agent_node.ts): the
 * bundler includes what a literal `import()` names. Never imported on the Deno hook path (see lazy.ts).
 */
import type { LazyLoader, LazyModules, LazyName } from "./lazy.ts";

const LITERAL: { [K in LazyName]: () => Promise<LazyModules[K]> } = {
  command: () => import("./command.ts"),
  commands: () => import("./commands.ts"),
  live: () => import("./live.ts"),
  resident: () => import("./resident.ts"),
  nodeProcess: () => import("./node_process.ts"),
  profile: () => import("./profile.ts"),
  handbook: () => import("./handbook.ts"),
};

/** The loader of the lazily loaded modules by literal `import()`. */
export const literalLoader: LazyLoader = (name) => LITERAL[name]();
