/**
 * The harnesses install.ts registers in a chi-bench checkout. Adding a harness (e.g. issue 10's
 * `fiable-agent`) is one more entry here plus its Python template in templates/.
 */

/** A file copied beside the harness module: the template (project-owned) or a built asset. */
export interface HarnessFile {
  /** Where it comes from: a path under templates/, or the key of a built asset (see `AssetKey`). */
  from: { template: string } | { asset: AssetKey };
  /** File name inside chi-bench's agents folder. */
  to: string;
}

/** Built files the installer supplies: the Node ≥ 20 bundles of guard_node.ts (`guard`) and agent_node.ts (`agent`). */
export type AssetKey = "guard" | "agent";

/** One registrable harness. */
export interface Harness {
  /** Registry short name (IN_TREE_AGENT_IMPORT_PATHS key); must not be a Harbor built-in name. */
  name: string;
  /** Python module name under chi_bench.experiment.agents. */
  module: string;
  /** Class inside the module. */
  className: string;
  /** Env vars listed for `cb agent list` (AGENT_ENV_VARS, a documentation aid only). */
  envVars: string[];
  /** Files written into src/chi_bench/experiment/agents/. */
  files: HarnessFile[];
}

/** Where chi-bench keeps its harness modules. */
export const AGENTS_DIR = "src/chi_bench/experiment/agents";

/** Every harness the installer knows, in registration order. */
export const HARNESSES: Harness[] = [
  {
    name: "fiable-cc",
    module: "fiable_cc_harness",
    className: "FiableClaudeCode",
    envVars: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL", "FIABLE_CC_ARM"],
    files: [
      { from: { template: "fiable_cc.py" }, to: "fiable_cc_harness.py" },
      { from: { asset: "guard" }, to: "fiable_guard.cjs" },
    ],
  },
  {
    name: "fiable-agent",
    module: "fiable_agent_harness",
    className: "FiableAgent",
    envVars: ["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "FIABLE_CC_ARM"],
    files: [
      { from: { template: "fiable_agent.py" }, to: "fiable_agent_harness.py" },
      { from: { asset: "agent" }, to: "fiable_agent.mjs" },
    ],
  },
];

/** The `module.path:ClassName` string Harbor imports for a harness. */
export function importPath(harness: Harness): string {
  return `chi_bench.experiment.agents.${harness.module}:${harness.className}`;
}
