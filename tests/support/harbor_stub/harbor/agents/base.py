"""Stand-in for harbor.agents.base (0.20): BaseAgent swallows unknown kwargs, as the real one does."""

from __future__ import annotations

import logging
import os
from abc import ABC, abstractmethod
from pathlib import Path


class BaseAgent(ABC):
    SUPPORTS_ATIF: bool = False

    def __init__(
        self,
        logs_dir: Path,
        model_name: str | None = None,
        logger: logging.Logger | None = None,
        mcp_servers: list | None = None,
        skills_dir: str | None = None,
        extra_env: dict[str, str] | None = None,
        *args,
        **kwargs,
    ):
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name
        self.logger = logger or logging.getLogger("harbor-stub")
        self.mcp_servers = mcp_servers or []
        self.skills_dir = skills_dir
        self._extra_env = dict(extra_env or {})

    @property
    def extra_env(self) -> dict[str, str]:
        return dict(self._extra_env)

    @staticmethod
    @abstractmethod
    def name() -> str: ...

    def version(self) -> str | None:
        return None

    def _get_env(self, key: str) -> str | None:
        """``--ae`` extra env first, then the host environment."""
        if key in self._extra_env:
            return self._extra_env[key]
        return os.environ.get(key)

    @abstractmethod
    async def setup(self, environment) -> None: ...

    @abstractmethod
    async def run(self, instruction: str, environment, context) -> None: ...

    def populate_context_post_run(self, context) -> None:
        return None
