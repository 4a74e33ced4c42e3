"""The stand-in trial container: chi-bench's Docker backend, played by a private mount namespace.

Each exec runs in a fresh private mount namespace (``unshare --mount``) chrooted into a temp root dir. The
root holds the container's own ``/logs``, ``/installed-agent``, ``/workspace``, ``/tests`` and ``/root`` (its
home, with ``~/.local/bin/claude`` like the image's native install) as plain dirs, and bind mounts of the
host's system dirs (``/usr``, ``/etc``, ``/tmp``, …) for binaries; so a harness's real absolute paths work
unchanged and nothing it writes reaches the host's ``/logs`` or ``/installed-agent``. Processes started by an
exec outlive it (reparented, as leftover ``docker exec`` children are reparented to ``tini``); ``stop()``
kills every process whose root is the container (``docker rm -f``). The network is the host's, so the
container reaches the scripted model and the stub MCP servers on 127.0.0.1, as a real trial reaches its own.
Needs root, or unprivileged user namespaces (``unshare --map-root-user``); ``available()`` says which.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult

# The container's own dirs: created empty in the root, never bound from the host.
OWN = ("logs", "installed-agent", "workspace", "tests", "root")
# Host entries the container does not get (or gets specially).
SKIP = {"mnt", "media", "lost+found", "old_root", "boot", "proc", "dev", "sys", *OWN}
# Where the image puts the native Claude Code install (``$HOME/.local/bin/claude``).
CLAUDE_HOME = "/root/.local/share/claude-code"
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Runs inside the new mount namespace: bind the host dirs into the root, then chroot and run the command.
_ENTER = r"""
set -e
root="$1"; shift
while [ "$1" != "--" ]; do
  if [ "$1" = rbind ]; then mount --rbind "$2" "$root$3"; else mount --bind "$2" "$root$3"; fi
  shift 3
done
shift
exec chroot "$root" /bin/bash -c 'cd "$1" && exec /bin/bash -c "$2"' bash "$1" "$2"
"""


def _unshare_argv() -> list[str]:
    base = ["unshare", "--mount", "--propagation", "private"]
    return base if os.geteuid() == 0 else [*base, "--user", "--map-root-user"]


def available() -> tuple[bool, str]:
    """Whether mount namespaces work here, and why not when they do not."""
    if not shutil.which("unshare") or not shutil.which("chroot"):
        return False, "unshare or chroot is not installed (util-linux, coreutils)"
    probe = subprocess.run([*_unshare_argv(), "--", "/bin/sh", "-c", "mount --bind /tmp /tmp"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return False, f"a private mount namespace is not permitted: {probe.stderr.strip()}"
    return True, ""


class NamespaceContainer(BaseEnvironment):
    """A trial container in a private mount namespace; see the module docstring."""

    default_user = None

    def __init__(
        self,
        persistent_env: dict[str, str] | None = None,
        claude: str | Path | None = None,
        image_env: dict[str, str] | None = None,
        workdir: str = "/workspace",
        reap_after_exec: bool = False,
    ) -> None:
        super().__init__(persistent_env)
        self.base = Path(tempfile.mkdtemp(prefix="fiable-standin-"))
        self.root = self.base / "root"
        self.claude = Path(claude).resolve() if claude else None
        self.workdir = workdir
        self.reap_after_exec = reap_after_exec
        node_dir = os.path.dirname(shutil.which("node") or "/usr/bin/node")
        path = IMAGE_PATH if node_dir in IMAGE_PATH.split(":") else f"{node_dir}:{IMAGE_PATH}"
        self.image_env = {"PATH": path, "HOME": "/root", "LANG": "C.UTF-8", "IS_SANDBOX": "1", **(image_env or {})}
        self.log: list[dict] = []
        self.uploads: list[list[str]] = []
        self._binds: list[tuple[str, str, str]] = []

    def path(self, container_path: str) -> Path:
        """The host path of a container path (for the harness's host side: downloads and checks)."""
        return self.root / container_path.lstrip("/")

    async def start(self, force_build: bool = False) -> None:
        self.root.mkdir(parents=True)
        for name in OWN:
            (self.root / name).mkdir(mode=0o755)
        for entry in sorted(os.listdir("/")):
            host = Path("/") / entry
            if entry in SKIP:
                continue
            if host.is_symlink():
                os.symlink(os.readlink(host), self.root / entry)
            elif host.is_dir():
                (self.root / entry).mkdir()
                self._binds.append(("bind", str(host), f"/{entry}"))
        for entry in ("proc", "dev", "sys"):
            (self.root / entry).mkdir()
            self._binds.append(("rbind", f"/{entry}", f"/{entry}"))
        if self.claude:
            package = self.claude.parent.parent  # …/@anthropic-ai/claude-code (bin/claude.exe inside)
            self.path(CLAUDE_HOME).mkdir(parents=True)
            self._binds.append(("bind", str(package), CLAUDE_HOME))
            (self.path("/root/.local/bin")).mkdir(parents=True)
            os.symlink(f"{CLAUDE_HOME}/{self.claude.relative_to(package)}", self.path("/root/.local/bin/claude"))
        # The environment's own start step (chi-bench's Docker backend does the same after `docker run`).
        result = await self.exec("mkdir -p /logs/agent /logs/verifier && chmod 777 /logs/agent /logs/verifier",
                                 user="root")
        if result.return_code != 0:
            raise RuntimeError(f"Cannot start the stand-in container: {result.stderr}")

    def _snapshot(self) -> dict:
        """What Claude Code would read from its config dir if it started now."""
        out = {}
        for name in ("settings.json", ".claude.json"):
            try:
                out[name] = self.path(f"/logs/agent/sessions/{name}").read_text(encoding="utf-8")
            except OSError:
                out[name] = None
        return out

    async def exec(self, command: str, cwd=None, env=None, timeout_sec=None, user=None) -> ExecResult:
        if user not in (None, "root", 0):
            raise RuntimeError(f"Cannot exec as {user!r}: the stand-in container has only root.")
        merged = {**self.image_env, **self._merge_env(env)}
        entry = {"command": command, "user": user, "env_keys": sorted(self._merge_env(env)),
                 "config_dir": self._snapshot()}
        self.log.append(entry)
        binds = [part for bind in self._binds for part in bind]
        proc = await asyncio.create_subprocess_exec(
            *_unshare_argv(), "--", "/bin/sh", "-c", _ENTER, "enter", str(self.root), *binds, "--",
            cwd or self.workdir, command,
            env=merged, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout_sec)
        except asyncio.TimeoutError:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = await proc.communicate()
            entry["timed_out"] = True
        result = ExecResult(proc.returncode if proc.returncode is not None else -1,
                            out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
        entry["return_code"] = result.return_code
        if self.reap_after_exec:
            entry["reaped"] = await self.kill_all()
        return result

    async def upload_file(self, source_path, target_path: str) -> None:
        self.uploads.append([str(source_path), str(target_path)])
        target = self.path(str(target_path))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path, target)

    async def upload_dir(self, source_dir, target_dir: str) -> None:
        shutil.copytree(source_dir, self.path(target_dir), dirs_exist_ok=True, symlinks=True)

    async def download_dir(self, source_dir: str, target_dir) -> None:
        shutil.copytree(self.path(source_dir), target_dir, dirs_exist_ok=True, symlinks=True)

    def processes(self) -> list[int]:
        """Pids of every process whose root is this container."""
        pids = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.readlink(f"/proc/{name}/root") == str(self.root):
                        pids.append(int(name))
                except OSError:
                    continue
        return pids

    async def kill_all(self) -> int:
        """SIGKILLs every process of the container until none is left; returns how many were killed."""
        killed = set()
        for _ in range(40):
            pids = self.processes()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                except OSError:
                    pass
            await asyncio.sleep(0.05)
        return len(killed)

    async def stop(self, delete: bool = True) -> None:
        await self.kill_all()
        if delete:
            # The binds exist only inside the exec namespaces; here the root holds plain dirs and files.
            with open("/proc/self/mountinfo", encoding="utf-8") as mounts:
                if any(f" {self.base}/" in line for line in mounts):
                    raise RuntimeError(f"Cannot remove {self.base}: something is mounted under it here.")
            shutil.rmtree(self.base, ignore_errors=True)
