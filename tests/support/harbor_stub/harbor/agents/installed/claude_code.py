"""Stand-in for harbor.agents.installed.claude_code (0.20): the real install check, setup and launch
commands of a trial, and the session → ATIF-v1.7 ``trajectory.json`` conversion after the run."""

from __future__ import annotations

import json
import os
import re
import shlex
import uuid
from pathlib import Path
from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trial.paths import EnvironmentPaths

_CLI_FLAGS = {
    "max_turns": "--max-turns",
    "reasoning_effort": "--effort",
    "append_system_prompt": "--append-system-prompt",
    "allowed_tools": "--allowedTools",
    "disallowed_tools": "--disallowedTools",
}


class ClaudeCode(BaseInstalledAgent):
    SUPPORTS_ATIF: bool = True
    _INSTALL_CHECK_COMMAND = 'export PATH="$HOME/.local/bin:$PATH"; command -v claude'

    def __init__(self, logs_dir, memory_dir=None, *args, **kwargs):
        self.memory_dir = memory_dir
        self._flags = {k: kwargs.pop(k) for k in list(kwargs) if k in _CLI_FLAGS}
        self._permission_mode = kwargs.pop("permission_mode", "bypassPermissions")
        super().__init__(logs_dir, *args, **kwargs)
        self._resume = False

    @staticmethod
    def name() -> str:
        return "claude-code"

    def get_version_command(self) -> str | None:
        return 'export PATH="$HOME/.local/bin:$PATH"; claude --version'

    def parse_version(self, stdout: str) -> str:
        match = re.search(r"(\d+\.\d+\.\d+)", stdout.strip())
        return match.group(1) if match else stdout.strip()

    async def install(self, environment: BaseEnvironment) -> None:
        if self._version is None:
            check = await environment.exec(command=self._INSTALL_CHECK_COMMAND)
            if check.return_code == 0:
                return
        else:
            found = await environment.exec(command=self.get_version_command())
            if found.return_code == 0 and self.parse_version(found.stdout or "") == self._version:
                return
        # Harbor would install Claude Code now (apt-get, then the native installer over the network). The
        # stand-in container shares the host's /usr, so it refuses rather than install into the host.
        raise RuntimeError(
            "Cannot install Claude Code in the stand-in container: no claude (of the requested version) is on "
            "PATH. Give the container a claude binary (NamespaceContainer(claude=...))."
        )

    def build_cli_flags(self) -> str:
        parts = [f"{cli} {self._flags[k]}" for k, cli in _CLI_FLAGS.items() if self._flags.get(k) is not None]
        parts.append(f"--permission-mode={self._permission_mode}")
        return " ".join(parts)

    def _build_register_skills_command(self) -> str | None:
        if not self.skills_dir:
            return None
        return f"(cp -r {shlex.quote(self.skills_dir)}/* $CLAUDE_CONFIG_DIR/skills/ 2>/dev/null || true)"

    def _build_register_mcp_servers_command(self) -> str | None:
        if not self.mcp_servers:
            return None
        servers: dict[str, dict[str, Any]] = {}
        for server in self.mcp_servers:
            if server.transport == "stdio":
                servers[server.name] = {"type": "stdio", "command": server.command, "args": server.args}
            else:
                transport = "http" if server.transport == "streamable-http" else server.transport
                servers[server.name] = {"type": transport, "url": server.url}
        return f"echo {shlex.quote(json.dumps({'mcpServers': servers}))} > $CLAUDE_CONFIG_DIR/.claude.json"

    def _run_env(self) -> dict[str, str]:
        env = {
            "ANTHROPIC_API_KEY": self._get_env("ANTHROPIC_API_KEY") or self._get_env("ANTHROPIC_AUTH_TOKEN") or "",
            "ANTHROPIC_BASE_URL": os.environ.get("ANTHROPIC_BASE_URL", ""),
            "CLAUDE_CODE_OAUTH_TOKEN": self._get_env("CLAUDE_CODE_OAUTH_TOKEN") or "",
            "CLAUDE_CODE_MAX_OUTPUT_TOKENS": os.environ.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS", ""),
            "FORCE_AUTO_BACKGROUND_TASKS": "1",
            "ENABLE_BACKGROUND_TASKS": "1",
        }
        env = {k: v for k, v in env.items() if v}
        if self.model_name:
            env["ANTHROPIC_MODEL"] = (
                self.model_name if "ANTHROPIC_BASE_URL" in env else self.model_name.split("/")[-1]
            )
        if "ANTHROPIC_BASE_URL" in env and "ANTHROPIC_MODEL" in env:
            for key in ("ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL",
                        "ANTHROPIC_DEFAULT_HAIKU_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL"):
                env[key] = env["ANTHROPIC_MODEL"]
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        env["IS_SANDBOX"] = "1"
        env["CLAUDE_CONFIG_DIR"] = (EnvironmentPaths.agent_dir / "sessions").as_posix()
        return env

    @with_prompt_template
    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        env = self._run_env()
        setup_command = (
            "mkdir -p $CLAUDE_CONFIG_DIR/debug $CLAUDE_CONFIG_DIR/projects/-app "
            "$CLAUDE_CONFIG_DIR/shell-snapshots $CLAUDE_CONFIG_DIR/statsig "
            "$CLAUDE_CONFIG_DIR/todos $CLAUDE_CONFIG_DIR/skills && "
            "if [ -d ~/.claude/skills ]; then cp -r ~/.claude/skills/. $CLAUDE_CONFIG_DIR/skills/ 2>/dev/null || true; fi"
        )
        for extra in (self._build_register_skills_command(), self._build_register_mcp_servers_command()):
            if extra:
                setup_command += f" && {extra}"
        await self.exec_as_agent(environment, command=setup_command, env=env)

        shell_var = f"harbor_claude_code_instruction_{uuid.uuid4().hex}"
        env_var = shell_var.upper()
        resume = "--continue " if self._resume else ""
        await self.exec_as_agent(
            environment,
            command=(
                'export PATH="$HOME/.local/bin:$PATH"; '
                f'{shell_var}="${env_var}"; unset {env_var}; '
                f'printf "%s" "${shell_var}" | claude --verbose --output-format=stream-json '
                f"{self.build_cli_flags()} {resume}--print 2>&1 | tee /logs/agent/claude-code.txt"
            ),
            env={**env, env_var: instruction},
        )

    # ------------------------------------------------------------------ after the run, on the host

    def _get_session_dir(self) -> Path | None:
        """Exactly one dir under ``sessions/projects/*/`` holding ``*.jsonl`` (subagents excluded), else None."""
        root = self.logs_dir / "sessions" / "projects"
        if not root.is_dir():
            return None
        dirs = {f.parent for f in root.rglob("*.jsonl") if "subagents" not in f.parent.parts}
        if len(dirs) == 1:
            return next(iter(dirs))
        self.logger.debug(f"{len(dirs)} Claude Code session directories found; no trajectory")
        return None

    def _total_cost(self) -> float | None:
        try:
            lines = (self.logs_dir / "claude-code.txt").read_text(encoding="utf-8").splitlines()
        except OSError:
            return None
        for line in reversed(lines):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("type") == "result":
                return event.get("total_cost_usd")
        return None

    def _convert_session(self, session_dir: Path) -> dict | None:
        entries: dict[str, dict] = {}
        for path in sorted(session_dir.rglob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and entry.get("type") in ("user", "assistant"):
                    entries.setdefault(str(entry.get("uuid") or len(entries)), entry)
        ordered = sorted(entries.values(), key=lambda e: str(e.get("timestamp", "")))
        steps: list[dict] = []
        by_message: dict[str, dict] = {}
        by_call: dict[str, dict] = {}
        session_id = ""
        cwds: list[str] = []
        for entry in ordered:
            session_id = session_id or str(entry.get("sessionId", ""))
            if entry.get("cwd") and entry["cwd"] not in cwds:
                cwds.append(entry["cwd"])
            message = entry.get("message") or {}
            content = message.get("content")
            extra = {"is_sidechain": bool(entry.get("isSidechain", False))}
            if entry["type"] == "assistant":
                key = str(message.get("id") or entry.get("uuid"))
                step = by_message.get(key)
                if step is None:
                    step = {"step_id": 0, "timestamp": entry.get("timestamp"), "source": "agent",
                            "model_name": message.get("model") or self.model_name, "message": "",
                            "llm_call_count": 1, "extra": extra}
                    by_message[key] = step
                    steps.append(step)
                for block in content if isinstance(content, list) else []:
                    if block.get("type") == "text" and block.get("text"):
                        step["message"] = "\n\n".join(p for p in (step["message"], block["text"]) if p)
                    elif block.get("type") == "thinking" and block.get("thinking"):
                        step["reasoning_content"] = block["thinking"]
                    elif block.get("type") == "tool_use":
                        call = {"tool_call_id": block.get("id"), "function_name": block.get("name", ""),
                                "arguments": block.get("input") or {},
                                "extra": {"raw_arguments": json.dumps(block.get("input") or {}),
                                          "tool_use_name": block.get("name", "")}}
                        step.setdefault("tool_calls", []).append(call)
                        by_call[str(block.get("id"))] = step
                usage = message.get("usage") or {}
                if usage:
                    step["metrics"] = {
                        "prompt_tokens": int(usage.get("input_tokens", 0)) + int(usage.get("cache_read_input_tokens", 0))
                        + int(usage.get("cache_creation_input_tokens", 0)),
                        "completion_tokens": int(usage.get("output_tokens", 0)),
                        "cached_tokens": int(usage.get("cache_read_input_tokens", 0)),
                        "extra": usage,
                    }
                continue
            if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
                for block in content:
                    if block.get("type") != "tool_result":
                        continue
                    owner = by_call.get(str(block.get("tool_use_id")))
                    if owner is None:
                        continue
                    raw = block.get("content")
                    text = raw if isinstance(raw, str) else "\n".join(
                        b.get("text", "") for b in raw or [] if isinstance(b, dict)
                    )
                    owner.setdefault("observation", {"results": []})["results"].append({
                        "source_call_id": block.get("tool_use_id"),
                        "content": text,
                        "extra": {"tool_result_is_error": bool(block.get("is_error", False))},
                    })
                continue
            text = content if isinstance(content, str) else "\n\n".join(
                b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"
            )
            if text.strip():
                steps.append({"step_id": 0, "timestamp": entry.get("timestamp"), "source": "user",
                              "message": text, "extra": extra})
        if not steps:
            return None
        for i, step in enumerate(steps, 1):
            step["step_id"] = i
        metrics = [s["metrics"] for s in steps if "metrics" in s]
        final = {
            "total_prompt_tokens": sum(m["prompt_tokens"] for m in metrics),
            "total_completion_tokens": sum(m["completion_tokens"] for m in metrics),
            "total_cached_tokens": sum(m["cached_tokens"] for m in metrics),
            "total_cost_usd": self._total_cost(),
            "total_steps": len(steps),
        }
        return {
            "schema_version": "ATIF-v1.7",
            "session_id": session_id,
            "agent": {"name": "claude-code", "version": self.version(), "model_name": self.model_name,
                      "extra": {"cwds": cwds}},
            "steps": steps,
            "final_metrics": final,
        }

    def populate_context_post_run(self, context: AgentContext) -> None:
        session_dir = self._get_session_dir()
        if not session_dir:
            return
        trajectory = self._convert_session(session_dir)
        if not trajectory:
            return
        (self.logs_dir / "trajectory.json").write_text(json.dumps(trajectory, indent=2), encoding="utf-8")
        final = trajectory["final_metrics"]
        context.cost_usd = final["total_cost_usd"]
        context.n_input_tokens = final["total_prompt_tokens"] or 0
        context.n_cache_tokens = final["total_cached_tokens"] or 0
        context.n_output_tokens = final["total_completion_tokens"] or 0
