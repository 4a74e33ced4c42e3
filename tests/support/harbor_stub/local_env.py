"""A path-rewriting environment for harness drivers that run a harness's commands on the host with bash
(tests/support/agent_harness_drive.py): the harness moves its container paths under a work dir itself.
Trials of fiable-cc run in ``container.NamespaceContainer`` instead, with the real paths."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult


class LocalEnvironment(BaseEnvironment):
    def __init__(self) -> None:
        super().__init__()
        self.commands: list[dict] = []
        self.uploads: list[list[str]] = []

    async def start(self, force_build: bool = False) -> None:
        return None

    async def stop(self, delete: bool = True) -> None:
        return None

    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None) -> ExecResult:
        self.commands.append({"command": command, "user": user})
        done = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            env={**os.environ, **self._merge_env(env)},
            cwd=cwd,
            timeout=timeout_sec,
        )
        return ExecResult(done.returncode, done.stdout, done.stderr)

    async def upload_file(self, source_path, target_path) -> None:
        self.uploads.append([str(source_path), str(target_path)])
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path, target_path)

    async def upload_dir(self, source_dir, target_dir) -> None:
        shutil.copytree(source_dir, target_dir, dirs_exist_ok=True)

    async def download_dir(self, source_dir, target_dir) -> None:
        shutil.copytree(source_dir, target_dir, dirs_exist_ok=True)
