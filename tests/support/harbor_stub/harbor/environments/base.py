"""Stand-in for harbor.environments.base (0.20): the exec/upload/download surface, env overlays included."""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ExecResult:
    return_code: int
    stdout: str | None = None
    stderr: str | None = None


class BaseEnvironment(ABC):
    default_user: str | None = None

    def __init__(self, persistent_env: dict[str, str] | None = None) -> None:
        self._persistent_env = dict(persistent_env or {})
        self._overlays: list[dict[str, str]] = []

    def _merge_env(self, env: dict[str, str] | None) -> dict[str, str]:
        """Lowest to highest: the task's persistent env, the per-exec env, the scoped overlays."""
        merged = {**self._persistent_env, **(env or {})}
        for overlay in self._overlays:
            merged.update(overlay)
        return merged

    @contextlib.contextmanager
    def scoped_exec_env(self, env: dict[str, str] | None):
        self._overlays.append(dict(env or {}))
        try:
            yield
        finally:
            self._overlays.pop()

    @abstractmethod
    async def start(self, force_build: bool = False) -> None: ...

    @abstractmethod
    async def stop(self, delete: bool = True) -> None: ...

    @abstractmethod
    async def exec(self, command: str, cwd=None, env=None, timeout_sec=None, user=None) -> ExecResult: ...

    @abstractmethod
    async def upload_file(self, source_path: Path | str, target_path: str) -> None: ...

    @abstractmethod
    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None: ...

    @abstractmethod
    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None: ...
