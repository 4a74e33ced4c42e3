"""Stand-in for harbor.models.trial.paths (0.20): the in-container log dirs and the host trial dir layout."""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class EnvironmentPaths:
    logs_dir = PurePosixPath("/logs")
    agent_dir = PurePosixPath("/logs/agent")
    verifier_dir = PurePosixPath("/logs/verifier")
    tests_dir = PurePosixPath("/tests")


class TrialPaths:
    def __init__(self, trial_dir: Path):
        self.trial_dir = Path(trial_dir)

    @property
    def agent_dir(self) -> Path:
        return self.trial_dir / "agent"

    @property
    def verifier_dir(self) -> Path:
        return self.trial_dir / "verifier"

    @property
    def config_path(self) -> Path:
        return self.trial_dir / "config.json"

    @property
    def result_path(self) -> Path:
        return self.trial_dir / "result.json"

    @property
    def log_path(self) -> Path:
        return self.trial_dir / "trial.log"

    @property
    def exception_message_path(self) -> Path:
        return self.trial_dir / "exception.txt"

    def mkdir(self) -> None:
        self.agent_dir.mkdir(parents=True, exist_ok=True)
        self.verifier_dir.mkdir(parents=True, exist_ok=True)
