"""Stand-in for harbor.agents.installed.base (0.20): exec helpers that raise on a non-zero exit."""

from __future__ import annotations

import functools
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment


class NonZeroAgentExitCodeError(RuntimeError):
    pass


def with_prompt_template(fn: Any) -> Any:
    @functools.wraps(fn)
    async def wrapper(self, instruction: str, *args: Any, **kwargs: Any) -> None:
        return await fn(self, instruction, *args, **kwargs)

    return wrapper


class BaseInstalledAgent(BaseAgent):
    def __init__(self, logs_dir, prompt_template_path=None, version=None, extra_env=None, *args, **kwargs):
        super().__init__(logs_dir, *args, extra_env=extra_env, **kwargs)
        self._version = version

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
