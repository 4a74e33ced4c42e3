/**
 * A throwaway tree mirroring the chi-bench files install.ts reads and edits (actava-ai/chi-bench at
 * 2c9cdd3, "Upgrade Harbor to 0.20.0"): pyproject.toml, uv.lock's Harbor pin, agents/registry.py,
 * experiment/runner.py and the agents package; with `data`, the task data as `cb data download` leaves it
 * (`data/<domain>/tasks/<task>/task.toml`, `registry.json`, `data/.chi-bench-version`). Options break one
 * thing at a time for the refusal tests.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** registry.py as chi-bench ships it. */
export const REGISTRY_PY = `"""Single source of truth for which agent names chi-bench accepts.

Two-tier registry:

* \`\`IN_TREE_AGENT_IMPORT_PATHS\`\` — harness classes shipped in this repo.
  Each value is the \`\`module.path:ClassName\`\` string Harbor consumes via
  the \`\`--agent-import-path\`\` flag.

* \`\`HARBOR_BUILTIN_AGENTS\`\` — agent names Harbor knows about natively
  and dispatches via \`\`-a <name>\`\`.
"""

from __future__ import annotations

IN_TREE_AGENT_IMPORT_PATHS: dict[str, str] = {
    "openai-agents": "chi_bench.experiment.agents.openai_agents_harness:OpenAIAgentsHarness",
    "deepagents": "chi_bench.experiment.agents.deepagents_harness:DeepAgentsHarness",
    "dual-pa-e2e": "chi_bench.experiment.agents.dual_pa_e2e_harness:DualPaE2EHarness",
    "openclaw": "chi_bench.experiment.agents.openclaw_harness:OpenClawHarness",
    "gemini-cli": "chi_bench.experiment.agents.gemini_cli_harness:GeminiCliHarness",
    "hermes": "chi_bench.experiment.agents.hermes_harness:HermesHarness",
    "codex-cli": "chi_bench.experiment.agents.codex_cli_harness:CodexCLIHarness",
    "claude-code-cli": "chi_bench.experiment.agents.claude_code_cli_harness:ClaudeCodeCLIHarness",
}

HARBOR_BUILTIN_AGENTS: frozenset[str] = frozenset({"claude-code", "codex"})

KNOWN_AGENTS: frozenset[str] = frozenset(IN_TREE_AGENT_IMPORT_PATHS) | HARBOR_BUILTIN_AGENTS

# Best-effort per-agent env-var hints for \`cb agent list\`. Not a runtime
# contract — the runtime allowlist is AGENT_ENV_ALLOWLIST in runner.py.
AGENT_ENV_VARS: dict[str, tuple[str, ...]] = {
    "openai-agents": (
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "TINKER_API_KEY",
        "OPENAI_BASE_URL",
    ),
    "codex-cli": ("OPENAI_API_KEY",),
    "claude-code-cli": ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"),
    "claude-code": ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL"),
    "codex": ("OPENAI_API_KEY",),
}
`;

/** The lines of runner.py install.ts relies on. */
export const RUNNER_PY = `"""Orchestrate Harbor CLI calls for experiments."""

from __future__ import annotations

from chi_bench.experiment.agents.registry import IN_TREE_AGENT_IMPORT_PATHS

AGENT_ENV_ALLOWLIST: tuple[str, ...] = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CODE_OAUTH_TOKEN",
)


def _agent_flags(agent: str) -> list[str]:
    if agent in IN_TREE_AGENT_IMPORT_PATHS:
        return ["--agent-import-path", IN_TREE_AGENT_IMPORT_PATHS[agent]]
    return ["-a", agent]
`;

/** uv.lock with the given Harbor pin (null: no harbor package at all). */
export function uvLock(harbor: string | null): string {
  const harborPkg = harbor === null ? "" : `[[package]]
name = "harbor"
version = "${harbor}"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "pydantic" },
]

`;
  return `version = 1
revision = 3
requires-python = ">=3.12"

[[package]]
name = "chi-bench"
version = "0.1.0"
source = { editable = "." }

[package.optional-dependencies]
dev = [
    { name = "harbor" },
    { name = "pytest" },
]

[package.metadata]
requires-dist = [
    { name = "harbor", marker = "extra == 'dev'", specifier = ">=0.20.0" },
]

${harborPkg}[[package]]
name = "pydantic"
version = "2.11.7"
source = { registry = "https://pypi.org/simple" }
`;
}

/** What to break in the fixture. */
export interface FixtureOptions {
  /** Harbor version in uv.lock; null locks no harbor; undefined → "0.20.0". */
  harbor?: string | null;
  /** Leave uv.lock out. */
  noLock?: boolean;
  /** registry.py text (default REGISTRY_PY); null leaves the file out. */
  registry?: string | null;
  /** runner.py text (default RUNNER_PY); null leaves the file out. */
  runner?: string | null;
  /** pyproject.toml project name (default "chi-bench"). */
  project?: string;
  /** Extra files to write, by relative path. */
  files?: Record<string, string>;
  /**
   * The task data: tasks per domain folder (prior_auth_provider, prior_auth_um, care_management) and the
   * revision in data/.chi-bench-version (null: no such file). Absent: no data/ at all.
   */
  data?: { tasks: Record<string, number>; version?: string | null };
}

/** The task folders of one domain as `cb data download` leaves them: task.toml and instruction.md each. */
function dataFiles(folder: string, n: number): Record<string, string> {
  const out: Record<string, string> = {};
  const names = Array.from({ length: n }, (_, i) => `${folder}_t${String(i + 1).padStart(3, "0")}`);
  for (const name of names) {
    out[`data/${folder}/tasks/${name}/task.toml`] = `[metadata]\nname = "${name}"\n`;
    out[`data/${folder}/tasks/${name}/instruction.md`] = `# ${name}\n`;
  }
  out[`data/${folder}/registry.json`] = JSON.stringify(
    [{ name: folder, tasks: names.map((name) => ({ name, path: `tasks/${name}` })) }],
  );
  return out;
}

/** Writes a fixture checkout into a new temp folder and returns its path. */
export function chiBenchFixture(options: FixtureOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "fiable-chibench-"));
  const files: Record<string, string | null> = {
    "pyproject.toml": `[project]\nname = "${options.project ?? "chi-bench"}"\nversion = "0.1.0"\n` +
      `requires-python = ">=3.12"\n\n[project.optional-dependencies]\ndev = [\n    "harbor>=0.20.0",\n]\n`,
    "uv.lock": options.noLock ? null : uvLock(options.harbor === undefined ? "0.20.0" : options.harbor),
    "src/chi_bench/__init__.py": "",
    "src/chi_bench/experiment/__init__.py": "",
    "src/chi_bench/experiment/agents/__init__.py": "",
    "src/chi_bench/experiment/agents/registry.py": options.registry === undefined
      ? REGISTRY_PY
      : options.registry,
    "src/chi_bench/experiment/runner.py": options.runner === undefined ? RUNNER_PY : options.runner,
    ...Object.entries(options.data?.tasks ?? {}).reduce(
      (all, [folder, n]) => ({ ...all, ...dataFiles(folder, n) }),
      {} as Record<string, string>,
    ),
    ...(options.data && options.data.version !== null
      ? { "data/.chi-bench-version": `${options.data.version ?? "chi-bench-v1.0.0"}\n` }
      : {}),
    ...options.files,
  };
  for (const [path, text] of Object.entries(files)) {
    if (text === null) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
