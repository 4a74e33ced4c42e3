"""Stand-in for harbor.agents.base (0.20): BaseAgent swallows unknown kwargs, as the real one does."""

from __future__ import annotations

import logging
import os
from pathlib import Path


class BaseAgent:
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

    def _get_env(self, key: str) -> str | None:
        """``--ae`` extra env first, then the host environment."""
        return self._extra_env.get(key) or os.environ.get(key)
