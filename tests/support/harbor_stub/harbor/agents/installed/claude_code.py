"""Stand-in for harbor.agents.installed.claude_code (0.20): records install() and run() calls."""

from __future__ import annotations

from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext


class ClaudeCode(BaseInstalledAgent):
    SUPPORTS_ATIF: bool = True

    def __init__(self, logs_dir, memory_dir=None, *args, **kwargs):
        self.memory_dir = memory_dir
        super().__init__(logs_dir, *args, **kwargs)
        self.calls: list[str] = []

    @staticmethod
    def name() -> str:
        return "claude-code"

    async def install(self, environment: BaseEnvironment) -> None:
        self.calls.append("ClaudeCode.install")

    def _build_register_mcp_servers_command(self) -> str | None:
        return None

    @with_prompt_template
    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        self.calls.append("ClaudeCode.run")
