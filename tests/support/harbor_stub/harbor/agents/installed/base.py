"""Stand-in for harbor.agents.installed.base (0.20): setup() → install(), exec helpers that prefix
``set -o pipefail;`` and raise on a non-zero exit, and the version probe after install."""

from __future__ import annotations

import functools
from abc import abstractmethod
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment


class NonZeroAgentExitCodeError(RuntimeError):
    """Raised when a command the agent runs exits non-zero."""


def with_prompt_template(fn: Any) -> Any:
    @functools.wraps(fn)
    async def wrapper(self, instruction: str, *args: Any, **kwargs: Any) -> None:
        return await fn(self, instruction, *args, **kwargs)

    return wrapper


class BaseInstalledAgent(BaseAgent):
    def __init__(self, logs_dir, prompt_template_path=None, version=None, extra_env=None, *args, **kwargs):
        super().__init__(logs_dir, *args, extra_env=extra_env, **kwargs)
        self._version = version

    def version(self) -> str | None:
        return self._version

    def get_version_command(self) -> str | None:
        return None

    def parse_version(self, stdout: str) -> str:
        return stdout.strip()

    @abstractmethod
    async def install(self, environment: BaseEnvironment) -> None: ...

    async def setup(self, environment: BaseEnvironment) -> None:
        await environment.exec(command="[ -d /installed-agent ] || mkdir -p /installed-agent", user="root")
        (self.logs_dir / "setup").mkdir(parents=True, exist_ok=True)
        try:
            await self.install(environment)
        except RuntimeError:
            raise
        except Exception as exc:
            raise RuntimeError(f"Agent install failed: {exc}") from exc
        if self._version is None:
            version_cmd = self.get_version_command()
            if version_cmd:
                try:
                    result = await environment.exec(command=version_cmd)
                    if result.return_code == 0 and result.stdout:
                        self._version = self.parse_version(result.stdout)
                except Exception:
                    pass  # best effort, as in Harbor

    async def _exec(self, environment: BaseEnvironment, command: str, user=None, env=None, cwd=None,
                    timeout_sec=None) -> Any:
        result = await environment.exec(
            command=f"set -o pipefail; {command}", user=user, env=env, cwd=cwd, timeout_sec=timeout_sec
        )
        if result.return_code != 0:
            raise NonZeroAgentExitCodeError(
                f"Command failed (exit {result.return_code}): {command}\n"
                f"stdout: {result.stdout}\nstderr: {result.stderr}"
            )
        return result

    async def exec_as_root(self, environment, command, env=None, cwd=None, timeout_sec=None) -> Any:
        return await self._exec(environment, command, user="root", env=env, cwd=cwd, timeout_sec=timeout_sec)

    async def exec_as_agent(self, environment, command, env=None, cwd=None, timeout_sec=None) -> Any:
        return await self._exec(environment, command, env=env, cwd=cwd, timeout_sec=timeout_sec)

    def build_cli_flags(self) -> str:
        return ""
