"""Stand-in for harbor.trial.trial (0.20): one trial's lifecycle, written to disk as Harbor writes it.

Environment start, then under ``scoped_exec_env(agent.extra_env)``: ``agent.setup()`` (→ ``install()`` and the
version probe) and ``agent.run()`` (again with ``--continue`` for each resumed run), then the download of
``/logs/agent`` to ``<trial>/agent/``, ``populate_context_post_run`` (the one-session-dir rule and
``trajectory.json``), the upload back, the verifier (``bash /tests/test.sh``, reward from
``/logs/verifier/reward.json``), the environment stop, and ``result.json``. Agent errors (a non-zero exit, a
timeout) are recorded and still verified; setup errors skip the verifier.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import secrets
import string
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from harbor.agents.installed.base import NonZeroAgentExitCodeError
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.task.config import TaskConfig
from harbor.models.trial.paths import EnvironmentPaths, TrialPaths


class AgentTimeoutError(RuntimeError):
    pass


class RewardFileNotFoundError(RuntimeError):
    pass


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def parse_kwarg(value: str) -> Any:
    """``--agent-kwarg k=v`` values are JSON-decoded when they parse (``8787`` → 8787), else kept as strings."""
    try:
        return json.loads(value)
    except ValueError:
        return value


def trial_name(task: str) -> str:
    alphabet = string.ascii_letters + string.digits
    return f"{task[:32].rstrip('_-')}__{''.join(secrets.choice(alphabet) for _ in range(7))}"


class Trial:
    def __init__(
        self,
        task_dir: Path,
        trials_dir: Path,
        agent: dict,
        environment: Callable[[dict[str, str]], BaseEnvironment],
        verifier_env: dict[str, str] | None = None,
        runs: int = 1,
        name: str | None = None,
    ) -> None:
        self.task_dir = Path(task_dir)
        self.task = TaskConfig.from_task_dir(self.task_dir)
        self.agent_config = agent
        self.kwargs = {k: parse_kwarg(str(v)) for k, v in (agent.get("kwargs") or {}).items()}
        self.environment = environment(self.task.env)
        self.verifier_env = dict(verifier_env or {})
        self.runs = max(1, int(runs))
        self.name = name or trial_name(self.task_dir.name)
        self.paths = TrialPaths(Path(trials_dir) / self.name)
        self.paths.mkdir()
        self.logger = logging.getLogger(f"harbor-stub.{self.name}")
        handler = logging.FileHandler(self.paths.log_path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        self.logger.addHandler(handler)
        self.logger.setLevel(logging.DEBUG)
        self.agent = None

    def _config(self) -> dict:
        return {
            "task": {"path": str(self.task_dir)},
            "trial_name": self.name,
            "trials_dir": str(self.paths.trial_dir.parent),
            "timeout_multiplier": 1.0,
            "agent": {
                "name": None,
                "import_path": self.agent_config["import_path"],
                "model_name": self.agent_config.get("model_name"),
                "kwargs": self.kwargs,
                "env": {k: "${" + k + "}" for k in (self.agent_config.get("env") or {})},
                "mcp_servers": [s.model_dump() for s in self.task.mcp_servers],
            },
            "environment": {"import_path": "container:NamespaceContainer", "kwargs": {}},
        }

    def _make_agent(self):
        module, cls_name = self.agent_config["import_path"].split(":")
        cls = getattr(importlib.import_module(module), cls_name)
        return cls(
            logs_dir=self.paths.agent_dir,
            model_name=self.agent_config.get("model_name"),
            logger=self.logger,
            mcp_servers=self.task.mcp_servers,
            extra_env=self.agent_config.get("env") or {},
            **self.kwargs,
        )

    async def _sync_agent_output(self, context: AgentContext) -> None:
        env = self.environment
        await env.download_dir(EnvironmentPaths.agent_dir.as_posix(), self.paths.agent_dir)
        if context.is_empty():
            self.agent.populate_context_post_run(context)
        await env.upload_dir(self.paths.agent_dir, EnvironmentPaths.agent_dir.as_posix())

    async def _verify(self) -> dict:
        env = self.environment
        await env.upload_dir(self.task_dir / "tests", EnvironmentPaths.tests_dir.as_posix())
        result = await env.exec("bash /tests/test.sh", env=self.verifier_env, user="root",
                                timeout_sec=self.task.verifier_timeout_sec)
        (self.paths.verifier_dir / "test-stdout.txt").write_text(result.stdout or "", encoding="utf-8")
        await env.download_dir(EnvironmentPaths.verifier_dir.as_posix(), self.paths.verifier_dir)
        reward = self.paths.verifier_dir / "reward.json"
        if not reward.is_file():
            raise RewardFileNotFoundError(f"No reward file at {reward} (test.sh exited {result.return_code})")
        return {"rewards": {"reward": float(json.loads(reward.read_text())["reward"])}}

    def _record_exception(self, result: dict, exc: BaseException) -> None:
        text = "".join(traceback.format_exception(exc))
        result["exception_info"] = {
            "exception_type": type(exc).__name__,
            "exception_message": str(exc),
            "exception_traceback": text,
            "occurred_at": _now(),
        }
        self.paths.exception_message_path.write_text(text, encoding="utf-8")
        self.logger.error(text)

    async def run(self) -> dict:
        self.paths.config_path.write_text(json.dumps(self._config(), indent=2), encoding="utf-8")
        result: dict[str, Any] = {
            "id": self.name,
            "task_name": f"actava-ai/{self.task_dir.name}",
            "trial_name": self.name,
            "trial_uri": self.paths.trial_dir.as_uri(),
            "task_id": {"path": str(self.task_dir)},
            "source": None,
            "config": self._config(),
            "agent_info": None,
            "agent_result": None,
            "verifier_result": None,
            "exception_info": None,
            "started_at": _now(),
        }
        context = AgentContext()
        verify = False
        try:
            result["environment_setup"] = {"started_at": _now()}
            await self.environment.start()
            result["environment_setup"]["finished_at"] = _now()
            self.agent = self._make_agent()
            with self.environment.scoped_exec_env(self.agent.extra_env):
                result["agent_setup"] = {"started_at": _now()}
                await self.agent.setup(self.environment)
                result["agent_setup"]["finished_at"] = _now()
                result["agent_execution"] = {"started_at": _now()}
                try:
                    instruction = (self.task_dir / "instruction.md").read_text(encoding="utf-8")
                    for attempt in range(self.runs):
                        if attempt:
                            self.agent._resume = True
                        await asyncio.wait_for(
                            self.agent.run(instruction, self.environment, context), self.task.agent_timeout_sec
                        )
                    verify = True
                except asyncio.TimeoutError:
                    verify = True
                    self._record_exception(result, AgentTimeoutError(
                        f"Agent execution timed out after {self.task.agent_timeout_sec} seconds"))
                except NonZeroAgentExitCodeError as exc:
                    verify = True
                    self._record_exception(result, exc)
                finally:
                    result["agent_execution"]["finished_at"] = _now()
                    await self._sync_agent_output(context)
            if verify:
                result["verifier"] = {"started_at": _now()}
                try:
                    result["verifier_result"] = await self._verify()
                finally:
                    result["verifier"]["finished_at"] = _now()
        except Exception as exc:  # setup or verifier errors: the trial is not scored
            if result["exception_info"] is None:
                self._record_exception(result, exc)
        finally:
            await self.environment.stop(delete=True)
            if self.agent is not None:
                model = self.agent.model_name or ""
                provider, _, model_name = model.partition("/") if "/" in model else ("", "", model)
                result["agent_info"] = {
                    "name": self.agent.name(),
                    "version": self.agent.version(),
                    "model_info": {"name": model_name, "provider": provider or None},
                }
            result["agent_result"] = {
                "n_input_tokens": context.n_input_tokens,
                "n_cache_tokens": context.n_cache_tokens,
                "n_output_tokens": context.n_output_tokens,
                "cost_usd": context.cost_usd,
                "rollout_details": context.rollout_details,
                "metadata": context.metadata or None,
            }
            result["finished_at"] = _now()
            self.paths.result_path.write_text(json.dumps(result, indent=2), encoding="utf-8")
            self._scrub()
        return result

    def _scrub(self) -> None:
        """Secrets from ``--ae`` and the verifier env are redacted from the trial dir's text files."""
        values = [v for v in [*(self.agent_config.get("env") or {}).values(), *self.verifier_env.values()]
                  if isinstance(v, str) and len(v) >= 8]
        if not values:
            return
        for path in self.paths.trial_dir.rglob("*"):
            if not path.is_file() or path.is_symlink():
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            scrubbed = text
            for value in values:
                scrubbed = scrubbed.replace(value, "[REDACTED]")
            if scrubbed != text:
                path.write_text(scrubbed, encoding="utf-8")
