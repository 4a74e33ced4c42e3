"""Stand-in for harbor.models.task.config (0.20): the task.toml fields a trial reads, MCP servers included."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class MCPServerConfig:
    """An MCP server available to the agent (``[[environment.mcp_servers]]`` in task.toml)."""

    name: str
    transport: str = "sse"  # "sse" | "streamable-http" | "stdio"
    url: str | None = None
    command: str | None = None
    args: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.transport in ("sse", "streamable-http") and not self.url:
            raise ValueError(f"'url' is required for transport '{self.transport}'")
        if self.transport == "stdio" and not self.command:
            raise ValueError("'command' is required for transport 'stdio'")

    def model_dump(self) -> dict:
        return {"name": self.name, "transport": self.transport, "url": self.url, "command": self.command,
                "args": list(self.args)}


@dataclass
class TaskConfig:
    name: str
    agent_timeout_sec: float = 900.0
    verifier_timeout_sec: float = 600.0
    agent_user: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    mcp_servers: list[MCPServerConfig] = field(default_factory=list)

    @classmethod
    def from_task_dir(cls, task_dir: Path) -> "TaskConfig":
        data = tomllib.loads((Path(task_dir) / "task.toml").read_text(encoding="utf-8"))
        environment = data.get("environment", {})
        return cls(
            name=data.get("task", {}).get("name", Path(task_dir).name),
            agent_timeout_sec=float(data.get("agent", {}).get("timeout_sec", 900.0)),
            verifier_timeout_sec=float(data.get("verifier", {}).get("timeout_sec", 600.0)),
            agent_user=data.get("agent", {}).get("user"),
            env={k: str(v) for k, v in environment.get("env", {}).items()},
            mcp_servers=[MCPServerConfig(**s) for s in environment.get("mcp_servers", [])],
        )
