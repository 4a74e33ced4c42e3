"""Drives an installed harness module through install() and run() against the Harbor stand-in.

Usage: PYTHONPATH=<stub>:<checkout>/src python3 drive.py MODULE:CLASS WORKDIR [kwarg=value ...]

Commands run locally with bash; the container paths (/installed-agent, /logs/agent/...) are moved under
WORKDIR. Prints one JSON line: the calls made, the uploads and the exec'd commands.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from harbor.agents.installed.base import BaseInstalledAgent
from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.models.agent.context import AgentContext


class LocalEnvironment(BaseEnvironment):
    def __init__(self) -> None:
        self.commands: list[dict] = []
        self.uploads: list[list[str]] = []

    async def exec(self, command, user=None, env=None, cwd=None, timeout_sec=None) -> ExecResult:
        self.commands.append({"command": command, "user": user})
        done = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            timeout=timeout_sec,
        )
        return ExecResult(done.returncode, done.stdout, done.stderr)

    async def upload_file(self, source_path, target_path) -> None:
        self.uploads.append([str(source_path), str(target_path)])
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path, target_path)


async def drive(spec: str, workdir: Path, kwargs: dict[str, str]) -> dict:
    module_name, class_name = spec.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    local = type(
        "Local" + class_name,
        (cls,),
        {
            "guard_path": str(workdir / "installed-agent" / "fiable-guard.mjs"),
            "ledger_dir": str(workdir / "logs" / "agent" / "fiable"),
            "config_dir": str(workdir / "logs" / "agent" / "sessions"),
            "probe_seconds": 5,
        },
    )
    agent = local(logs_dir=workdir / "host-logs", model_name="anthropic/claude-opus-5", **kwargs)
    env = LocalEnvironment()
    await agent.install(env)
    await agent.run("Do the task.", env, AgentContext())
    return {
        "name": cls.name(),
        "is_installed_agent": issubclass(cls, BaseInstalledAgent),
        "arm": agent.arm,
        "calls": agent.calls,
        "uploads": env.uploads,
        "commands": env.commands,
    }


if __name__ == "__main__":
    pairs = dict(arg.split("=", 1) for arg in sys.argv[3:])
    print(json.dumps(asyncio.run(drive(sys.argv[1], Path(sys.argv[2]), pairs))))
