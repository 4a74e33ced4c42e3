"""Runs fiable-cc's ``populate_context_post_run`` under the real Harbor 0.20 (../shared/sources/harbor, through
``sh ../shared/tools/chi-bench-python.sh``) on a finished trial dir, then writes the trial's ``result.json``
exactly as Harbor's ``Trial`` does (``TrialResult(...).model_dump_json(indent=4)``, trial/trial.py).

Usage: PYTHONPATH=<dir holding fiable_cc_harness.py and fiable_guard.cjs> python drive.py TRIAL_DIR ARM
Prints one JSON line: the agent context's metadata.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from fiable_cc_harness import FiableClaudeCode
from harbor.models.agent.context import AgentContext
from harbor.models.trial.config import TrialConfig
from harbor.models.trial.result import AgentInfo, ModelInfo, TrialResult


def main(trial_dir: Path, arm: str) -> dict:
    agent = FiableClaudeCode(
        logs_dir=trial_dir / "agent",
        model_name="anthropic/claude-opus-5",
        logger=logging.getLogger("harness-facts"),
        arm=arm,
    )
    context = AgentContext()
    agent.populate_context_post_run(context)
    task = trial_dir.name.split("__", 1)[0]
    before = trial_dir / "result.json"
    verified = json.loads(before.read_text()).get("verifier_result") if before.is_file() else None
    result = TrialResult(
        task_name=f"actava-ai/{task}",
        trial_name=trial_dir.name,
        trial_uri=trial_dir.resolve().as_uri(),
        task_id={"path": f"tasks/{task}"},
        task_checksum="0" * 64,
        config=TrialConfig(
            task={"path": f"tasks/{task}"},
            trial_name=trial_dir.name,
            agent={"import_path": "fiable_cc_harness:FiableClaudeCode", "kwargs": {"arm": arm}},
        ),
        agent_info=AgentInfo(
            name=agent.name(), version="2.1.219", model_info=ModelInfo(name="claude-opus-5", provider="anthropic")
        ),
        agent_result=context,
        verifier_result=verified or {"rewards": {"reward": 1.0}},
    )
    (trial_dir / "result.json").write_text(result.model_dump_json(indent=4))
    return context.metadata or {}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), sys.argv[2])))
