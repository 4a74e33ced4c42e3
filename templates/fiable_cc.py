"""fiable-cc: Harbor 0.20 Claude Code with the fiable-agent guard wired in as hooks.

Installed into chi-bench by fiable-agent's ``install.ts``; ``install.ts --uninstall`` removes it.

* ``install()`` uploads the guard (the Node >= 20 bundle ``fiable_guard.cjs`` beside this file) to
  ``/installed-agent/fiable-guard.cjs``.
* ``run()`` runs the guard's own ``up`` subcommand once: it reuses a live resident guard for the same
  arm and ledger (Harbor may call ``run()`` again on the same container), else starts one under its
  supervisor (which restarts it within about a second if it dies) and waits for ``/health``; then it
  writes the hooks into ``$CLAUDE_CONFIG_DIR/settings.json`` only, as http hooks, or as command hooks
  when no guard answered, with tool matchers for exactly the MCP servers the task declares
  (``self.mcp_servers``: ``healthverse``, ``chi-bench``, ``chi-bench-provider``, …). The bytes are the
  ones the project's end-to-end tests give the real Claude Code. In http mode the SessionStart hook,
  which runs inside ``claude``'s own process tree, checks the guard and starts it if it did not outlive
  the setup exec. Never ``~/.claude``, ``/etc/claude-code`` or ``/workspace/.claude``: the verifier's
  judge runs Claude Code in the same container without ``CLAUDE_CONFIG_DIR`` and would inherit them;
  and not ``.claude.json``, which ``ClaudeCode.run`` overwrites. The ledger goes to
  ``/logs/agent/fiable/``, never under ``sessions/projects/`` (a second session dir there costs the
  trial its trajectory).
* After the run, ``populate_context_post_run`` (Harbor calls it on the host once ``/logs/agent`` is
  downloaded, then writes the context into ``result.json`` as ``agent_result``) adds the guard's facts
  about the trial to ``agent_result.metadata.fiable_guard``: arm, hook mode, guard and rule-set versions,
  coverage, blocks, endings (``node fiable_guard.cjs facts``; a few KB, no secret, no case id). A
  leaderboard packet keeps ``result.json`` and drops the ledgers, so these facts are what proves the
  guard ran there. When they cannot be made, ``fiable_guard_error`` says why in one line.
* The arm is the agent kwarg ``arm``, else the host env ``FIABLE_CC_ARM``, else ``checklist`` (a
  ``cb submission`` run has no agent kwargs: set ``FIABLE_CC_ARM``). ``stock`` uploads nothing and writes
  no hooks: plain Claude Code under the same harness name. The Claude Code version is the agent kwarg
  ``version``, else the host env ``FIABLE_CC_CLAUDE_VERSION``, else the image's.
* The guard's port is the agent kwarg ``guard_port``, else 8787 in a container of its own; where trials share
  the host's network (Harbor's Singularity environment), each trial gets a free port of its own, never one
  another trial of this Harbor process holds, and keeps it when its run is resumed.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
from importlib import metadata
from pathlib import Path, PurePosixPath

from harbor.agents.installed.claude_code import ClaudeCode
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trial.paths import EnvironmentPaths

ARMS = ("stock", "shadow", "plan", "checklist", "critic")
DEFAULT_ARM = "checklist"
DEFAULT_PORT = 8787
GUARD_ASSET = Path(__file__).with_name("fiable_guard.cjs")
FACTS_KEY = "fiable_guard"
FACTS_MAX_BYTES = 8192
FACTS_TIMEOUT_SEC = 60


def resolve_arm(kwarg: object, env_value: str | None) -> str:
    """The arm from the agent kwarg, else the host env value, else the default."""
    arm = str(kwarg if kwarg not in (None, "") else (env_value or DEFAULT_ARM)).strip()
    if arm not in ARMS:
        raise ValueError(
            f'Cannot start fiable-cc: arm "{arm}" is unknown. Use one of {", ".join(ARMS)}.'
        )
    return arm


def resolve_port(kwarg: object) -> int:
    """The resident guard's port (agent kwarg ``guard_port``)."""
    try:
        port = int(str(kwarg)) if kwarg not in (None, "") else DEFAULT_PORT
    except ValueError:
        port = -1
    if not 0 < port < 65536:
        raise ValueError(
            f'Cannot start fiable-cc: guard_port "{kwarg}" is not a port number. Use 1-65535.'
        )
    return port


#: Harbor environments whose trials share the host's network: there, each trial's guard needs its own port.
SHARED_NETWORK_ENVIRONMENTS = frozenset({"singularity"})
#: The guard ports handed to trials of this Harbor process (a job runs its trials concurrently in it).
_GUARD_PORTS: set[int] = set()


def shares_host_network(environment: object) -> bool:
    """True when the environment runs its trials on the host's network (Harbor's ``type()``)."""
    try:
        kind = environment.type()  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an environment without a type keeps the default port
        return False
    return str(getattr(kind, "value", kind)) in SHARED_NETWORK_ENVIRONMENTS


def free_port(taken: set[int]) -> int:
    """A port free on this host now and held by no other trial of this process; it is then taken."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in taken:
            taken.add(port)
            return port
    raise RuntimeError("Cannot start fiable-cc: no free port for the guard in 100 tries. Free some ports.")


def check_harbor_version() -> None:
    """Refuse a Harbor other than 0.20.x: 0.21 rewrote ClaudeCode (ACP mode, --settings)."""
    try:
        version = metadata.version("harbor")
    except metadata.PackageNotFoundError:
        return
    if not version.startswith("0.20."):
        raise RuntimeError(
            f"Cannot start fiable-cc: Harbor {version} is installed and fiable-cc is written for "
            "Harbor 0.20.x. Run `uv sync --extra dev` in the chi-bench checkout to get the locked venv."
        )


class FiableClaudeCode(ClaudeCode):
    """Claude Code with the fiable-agent guard; see the module docstring."""

    guard_path = "/installed-agent/fiable-guard.cjs"
    ledger_dir = (PurePosixPath(str(EnvironmentPaths.agent_dir)) / "fiable").as_posix()
    config_dir = (PurePosixPath(str(EnvironmentPaths.agent_dir)) / "sessions").as_posix()
    probe_seconds = 10

    def __init__(self, *args, arm: str | None = None, guard_port: str | int | None = None, **kwargs):
        check_harbor_version()
        if kwargs.get("version") in (None, "") and os.environ.get("FIABLE_CC_CLAUDE_VERSION"):
            kwargs["version"] = os.environ["FIABLE_CC_CLAUDE_VERSION"].strip()
        super().__init__(*args, **kwargs)
        self.arm = resolve_arm(arm, self._host_env("FIABLE_CC_ARM"))
        self.guard_port = resolve_port(guard_port)
        self.port_fixed = guard_port not in (None, "")

    @staticmethod
    def name() -> str:
        return "fiable-cc"

    def _host_env(self, key: str) -> str | None:
        """``--ae`` extra env first, then the host environment (Harbor's own order)."""
        getter = getattr(self, "_get_env", None)
        value = getter(key) if callable(getter) else None
        return value if value not in (None, "") else os.environ.get(key)

    async def install(self, environment: BaseEnvironment) -> None:
        await super().install(environment)
        if self.arm == "stock":
            return
        if not GUARD_ASSET.is_file():
            raise FileNotFoundError(
                f"Cannot install fiable-cc: the guard bundle {GUARD_ASSET} is missing. "
                "Run `deno task install --chi-bench <this checkout> --apply` from fiable-agent again."
            )
        await environment.upload_file(GUARD_ASSET, self.guard_path)
        await self.exec_as_root(
            environment,
            command=f"chmod 0644 {shlex.quote(self.guard_path)} && command -v node >/dev/null",
            timeout_sec=30,
        )

    def server_names(self) -> list[str]:
        """The MCP server names the task declares (Harbor's ``self.mcp_servers``), in order."""
        return [str(s.name) for s in getattr(self, "mcp_servers", None) or [] if getattr(s, "name", None)]

    def start_guard_command(self) -> str:
        """Brings the resident guard up (or reuses it), then writes settings.json and harness.json."""
        q = shlex.quote
        ledger = q(self.ledger_dir)
        # `--server=NAME`, so a name that starts with "-" is a value, never an option.
        servers = "".join(f" --server={q(name)}" for name in self.server_names())
        version = self.version() if callable(getattr(self, "version", None)) else None
        claude = f" --claude-version {q(str(version))}" if version else ""
        return (
            f"mkdir -p {ledger} {q(self.config_dir)} && "
            f"node {q(self.guard_path)} up --port {self.guard_port} --arm {q(self.arm)} "
            f"--ledger {ledger} --guard {q(self.guard_path)} "
            f"--settings {q(self.config_dir + '/settings.json')} --harness {ledger}/harness.json"
            f"{servers}{claude} --wait {int(self.probe_seconds)}"
        )

    async def run(
        self,
        instruction: str,
        environment: BaseEnvironment,
        context: AgentContext,
    ) -> None:
        if self.arm != "stock":
            self.trial_port(environment)
            await self.exec_as_agent(environment, command=self.start_guard_command(), timeout_sec=60)
        await super().run(instruction, environment, context)

    def trial_port(self, environment: BaseEnvironment) -> int:
        """The guard's port for this trial: its own free one where trials share the host's network."""
        if not self.port_fixed and shares_host_network(environment):
            self.guard_port = free_port(_GUARD_PORTS)
            self.port_fixed = True  # a resumed run keeps the port its hooks already name
        return self.guard_port

    def guard_facts(self) -> tuple[dict | None, str | None]:
        """The guard's facts about this trial (``node fiable_guard.cjs facts``), or why there are none."""
        node = shutil.which("node")
        if not node:
            return None, "node is not on the PATH of the host Harbor runs on; fiable-cc needs Node >= 20 there"
        if not GUARD_ASSET.is_file():
            return None, "the guard bundle fiable_guard.cjs is missing beside the harness; install fiable-cc again"
        trial_dir = Path(self.logs_dir).parent
        try:
            out = subprocess.run(
                [node, str(GUARD_ASSET), "facts", "--trial", str(trial_dir), "--arm", self.arm],
                capture_output=True,
                text=True,
                timeout=FACTS_TIMEOUT_SEC,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None, f"the guard's summary took over {FACTS_TIMEOUT_SEC} s"
        except OSError as exc:
            return None, f"node could not run the guard's summary ({type(exc).__name__})"
        if out.returncode != 0:
            self.logger.warning(f"fiable-cc: guard facts failed (exit {out.returncode}): {out.stderr.strip()[-500:]}")
            return None, f"the guard's summary failed (exit {out.returncode}); see trial.log"
        if len(out.stdout) > FACTS_MAX_BYTES:
            return None, f"the guard's summary is over {FACTS_MAX_BYTES} bytes"
        try:
            facts = json.loads(out.stdout)
        except ValueError:
            return None, "the guard's summary is not JSON"
        return (facts, None) if isinstance(facts, dict) else (None, "the guard's summary is not a JSON object")

    def populate_context_post_run(self, context: AgentContext) -> None:
        super().populate_context_post_run(context)
        try:
            facts, error = self.guard_facts()
        except Exception as exc:  # noqa: BLE001 - the guard's summary never fails the trial
            facts, error = None, f"the guard's summary raised {type(exc).__name__}"
        metadata = dict(context.metadata or {})
        if facts is not None:
            metadata[FACTS_KEY] = facts
        else:
            self.logger.warning(f"fiable-cc: no guard facts in result.json: {error}")
            metadata[f"{FACTS_KEY}_error"] = error
        context.metadata = metadata
