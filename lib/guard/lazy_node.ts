/**
 * The lazily loaded modules with literal specifiers, for the Node bundles (guard_node.ts, agent_node.ts): the
 * bundler includes what a literal `import()` names. Never imported on the Deno hook path (see lazy.ts).
 */
import type { LazyLoader, LazyName } from "./runtime/lazy.ts";

const LITERAL: Record<LazyName, () => Promise<unknown>> = {
  command: () => import("./command.ts"),
  commands: () => import("./commands.ts"),
  live: () => import("./ledger/live.ts"),
  resident: () => import("./resident/resident.ts"),
  nodeProcess: () => import("./runtime/node_process.ts"),
  profile: () => import("./config/profile.ts"),
  handbook: () => import("./handbook.ts"),
};

/** The loader of the lazily loaded modules by literal `import()`. */
export const literalLoader: LazyLoader = (name) => LITERAL[name]();
