"""Drives templates/fiable_agent.py through install(), run() and populate_context_post_run() on the Harbor stand-in.

Usage: PYTHONPATH=<harbor_stub>:<module dir> python3 agent_harness_drive.py WORKDIR MCP_URL INSTRUCTION_FILE [k=v ...]

Commands run locally with bash; the container paths (/installed-agent, /logs/agent) are moved under WORKDIR.
Prints one JSON line: the uploads, the exec'd commands (with their env keys, never values) and the context.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import SimpleNamespace

from local_env import LocalEnvironment
from fiable_agent_harness import FiableAgent
from harbor.models.agent.context import AgentContext


class RecordingEnvironment(LocalEnvironment):
    async def exec(self, command, user=None, env=None, cwd=None, timeout_sec=None):
        result = await super().exec(command, user=user, env=env, cwd=cwd, timeout_sec=timeout_sec)
        self.commands[-1]["env_keys"] = sorted((env or {}).keys())
        return result


async def drive(workdir: Path, url: str, instruction: str, kwargs: dict[str, str]) -> dict:
    local = type(
        "LocalFiableAgent",
        (FiableAgent,),
        {
            "agent_path": str(workdir / "installed-agent" / "fiable-agent.mjs"),
            "agent_dir": str(workdir / "logs" / "agent"),
        },
    )
    agent = local(
        logs_dir=workdir / "logs" / "agent",
        model_name="anthropic/claude-sonnet-5",
        mcp_servers=[SimpleNamespace(name="healthverse", transport="streamable-http", url=url)],
        **kwargs,
    )
    env = RecordingEnvironment()
    await agent.install(env)
    context = AgentContext()
    await agent.run(instruction, env, context)
    agent.populate_context_post_run(context)
    return {
        "name": agent.name(),
        "arm": agent.arm,
        "version_command": agent.get_version_command(),
        "uploads": env.uploads,
        "commands": env.commands,
        "context": {k: getattr(context, k, None) for k in ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd")},
    }


if __name__ == "__main__":
    pairs = dict(arg.split("=", 1) for arg in sys.argv[4:])
    text = Path(sys.argv[3]).read_text(encoding="utf-8")
    print(json.dumps(asyncio.run(drive(Path(sys.argv[1]), sys.argv[2], text, pairs))))
