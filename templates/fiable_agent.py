"""fiable-agent: the research arm, a small ReAct loop with the fiable guard built in (Harbor 0.20).

Installed into chi-bench by fiable-agent's ``install.ts``; ``install.ts --uninstall`` removes it.

* ``install()`` uploads the agent (the Node >= 20 bundle ``fiable_agent.mjs`` beside this file) to
  ``/installed-agent/fiable-agent.mjs``. No Claude Code is involved.
* ``run()`` runs it with the task instruction (piped on stdin), the task's ``healthverse`` MCP URL and the
  arm. It writes the ATIF-v1.7 trajectory to ``/logs/agent/trajectory.json`` and the guard ledger to
  ``/logs/agent/fiable/``; its stdout/stderr go to ``/logs/agent/fiable-agent.txt``.
* Credentials (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``) travel only in the exec environment, never
  on a command line. The model is Harbor's ``-m`` (``anthropic/claude-sonnet-5`` → ``claude-sonnet-5``).
* Agent kwargs (strings): ``arm`` (else host env ``FIABLE_CC_ARM``, else ``checklist``), ``max_turns``,
  ``max_tokens``, ``max_cost_usd``. An API failure after retries exits 3, which Harbor records (and retries)
  as a non-zero exit; a limit is a clean stop (exit 0) whose reason is in the trajectory's final metrics.
"""

from __future__ import annotations

import json
import os
import shlex
from importlib import metadata
from pathlib import Path, PurePosixPath

from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trial.paths import EnvironmentPaths

ARMS = ("stock", "shadow", "plan", "checklist", "critic")
DEFAULT_ARM = "checklist"
AGENT_ASSET = Path(__file__).with_name("fiable_agent.mjs")
LIMIT_KWARGS = {"max_turns": "--max-turns", "max_tokens": "--max-tokens", "max_cost_usd": "--max-cost"}


def resolve_arm(kwarg: object, env_value: str | None) -> str:
    """The arm from the agent kwarg, else the host env value, else the default."""
    arm = str(kwarg if kwarg not in (None, "") else (env_value or DEFAULT_ARM)).strip()
    if arm not in ARMS:
        raise ValueError(
            f'Cannot start fiable-agent: arm "{arm}" is unknown. Use one of {", ".join(ARMS)}.'
        )
    return arm


def resolve_limit(name: str, value: object) -> str | None:
    """A limit kwarg as a flag value, or None when unset; refuses anything but a non-negative number."""
    if value in (None, ""):
        return None
    try:
        number = float(str(value))
    except ValueError:
        number = -1.0
    if number < 0:
        raise ValueError(
            f'Cannot start fiable-agent: {name} "{value}" is not a non-negative number. Use e.g. {name}=100.'
        )
    return str(value)


def check_harbor_version() -> None:
    """Refuse a Harbor other than 0.20.x: the installed-agent API this harness uses is 0.20's."""
    try:
        version = metadata.version("harbor")
    except metadata.PackageNotFoundError:
        return
    if not version.startswith("0.20."):
        raise RuntimeError(
            f"Cannot start fiable-agent: Harbor {version} is installed and fiable-agent is written for "
            "Harbor 0.20.x. Run `uv sync --extra dev` in the chi-bench checkout to get the locked venv."
        )


def mcp_url(servers: list | None) -> str:
    """The URL of the task's MCP server (``healthverse`` when there are several)."""
    found = [s for s in servers or [] if getattr(s, "url", None)]
    named = [s for s in found if getattr(s, "name", "") == "healthverse"]
    if not found:
        raise ValueError(
            "Cannot start fiable-agent: the task declares no MCP server with a URL. "
            "fiable-agent needs the healthverse MCP server of a chi-bench task."
        )
    return str((named or found)[0].url)


class FiableAgent(BaseInstalledAgent):
    """The fiable-agent loop as a Harbor installed agent; see the module docstring."""

    SUPPORTS_ATIF = True
    agent_path = "/installed-agent/fiable-agent.mjs"
    agent_dir = PurePosixPath(str(EnvironmentPaths.agent_dir)).as_posix()

    def __init__(
        self,
        *args,
        arm: str | None = None,
        max_turns: str | int | None = None,
        max_tokens: str | int | None = None,
        max_cost_usd: str | float | None = None,
        **kwargs,
    ):
        check_harbor_version()
        super().__init__(*args, **kwargs)
        self.arm = resolve_arm(arm, self._host_env("FIABLE_CC_ARM"))
        given = {"max_turns": max_turns, "max_tokens": max_tokens, "max_cost_usd": max_cost_usd}
        self.limits = {k: v for k, v in ((k, resolve_limit(k, v)) for k, v in given.items()) if v is not None}

    @staticmethod
    def name() -> str:
        return "fiable-agent"

    def get_version_command(self) -> str | None:
        return f"node {shlex.quote(self.agent_path)} --version"

    def _host_env(self, key: str) -> str | None:
        """``--ae`` extra env first, then the host environment (Harbor's own order)."""
        getter = getattr(self, "_get_env", None)
        value = getter(key) if callable(getter) else None
        return value if value not in (None, "") else os.environ.get(key)

    async def install(self, environment: BaseEnvironment) -> None:
        if not AGENT_ASSET.is_file():
            raise FileNotFoundError(
                f"Cannot install fiable-agent: the agent bundle {AGENT_ASSET} is missing. "
                "Run `deno task install --chi-bench <this checkout> --apply` from fiable-agent again."
            )
        await environment.upload_file(AGENT_ASSET, self.agent_path)
        await self.exec_as_root(
            environment,
            command=f"chmod 0644 {shlex.quote(self.agent_path)} && node -e 'process.exit(+process.versions.node.split(\".\")[0] >= 20 ? 0 : 1)'",
            timeout_sec=30,
        )

    def agent_env(self) -> dict[str, str]:
        """The exec environment: credentials from the host, the model, the ledger folder."""
        env = {
            "ANTHROPIC_API_KEY": self._host_env("ANTHROPIC_API_KEY") or "",
            "ANTHROPIC_BASE_URL": self._host_env("ANTHROPIC_BASE_URL") or "",
            "ANTHROPIC_MODEL": (self.model_name or "").split("/", 1)[-1],
            "FIABLE_LEDGER_DIR": f"{self.agent_dir}/fiable",
        }
        return {k: v for k, v in env.items() if v}

    def run_command(self, url: str) -> str:
        """The shell command: the instruction on stdin, the flags, output teed to fiable-agent.txt."""
        q = shlex.quote
        flags = [
            "--instruction-file", "-",
            "--mcp-url", url,
            "--arm", self.arm,
            "--trajectory", f"{self.agent_dir}/trajectory.json",
            "--ledger", f"{self.agent_dir}/fiable",
        ]
        for key, value in self.limits.items():
            flags += [LIMIT_KWARGS[key], value]
        return (
            f"mkdir -p {q(self.agent_dir)}/fiable && "
            f'printf "%s" "$FIABLE_AGENT_INSTRUCTION" | node {q(self.agent_path)} '
            + " ".join(q(f) for f in flags)
            + f" 2>&1 | tee {q(self.agent_dir)}/fiable-agent.txt"
        )

    @with_prompt_template
    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        url = mcp_url(self.mcp_servers)
        env = {**self.agent_env(), "FIABLE_AGENT_INSTRUCTION": instruction}
        await self.exec_as_agent(environment, command=self.run_command(url), env=env)

    def populate_context_post_run(self, context: AgentContext) -> None:
        """Token and cost totals from the trajectory's final metrics (n_input_tokens includes cached)."""
        path = Path(self.logs_dir) / "trajectory.json"
        try:
            metrics = json.loads(path.read_text(encoding="utf-8")).get("final_metrics") or {}
        except (OSError, ValueError):
            return
        context.n_input_tokens = int(metrics.get("total_prompt_tokens") or 0)
        context.n_output_tokens = int(metrics.get("total_completion_tokens") or 0)
        context.n_cache_tokens = int(metrics.get("total_cached_tokens") or 0)
        cost = metrics.get("total_cost_usd")
        context.cost_usd = float(cost) if isinstance(cost, (int, float)) else None
