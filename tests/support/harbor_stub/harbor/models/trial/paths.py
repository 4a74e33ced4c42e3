"""Stand-in for harbor.models.trial.paths (0.20): the in-container log dirs."""

from __future__ import annotations

from pathlib import PurePosixPath


class EnvironmentPaths:
    agent_dir = PurePosixPath("/logs/agent")
    verifier_dir = PurePosixPath("/logs/verifier")
