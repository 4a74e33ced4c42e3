"""Runs one trial on the Harbor stand-in: ``python3 run_trial.py SPEC.json`` (PYTHONPATH: this dir and the
checkout's ``src``). SPEC: ``task_dir``, ``trials_dir``, ``agent`` (``import_path``, ``model_name``,
``kwargs`` as ``--agent-kwarg`` strings, ``env`` as ``--ae``), ``claude`` (the binary the container's image
has), ``image_env``, ``verifier_env``, ``runs`` (2: a resumed second ``run()``), ``reap_after_exec`` (nothing
outlives its exec). Prints one JSON line: the
trial dir, ``result.json``, every exec (command, user, env keys, exit code, the config dir when it started)
and the uploads.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from container import NamespaceContainer, available
from harbor.trial.trial import Trial


async def main(spec: dict) -> dict:
    ok, why = available()
    if not ok:
        raise SystemExit(f"Cannot run the stand-in trial: {why}.")
    made: list[NamespaceContainer] = []

    def environment(persistent_env: dict[str, str]) -> NamespaceContainer:
        made.append(NamespaceContainer(
            persistent_env,
            claude=spec.get("claude"),
            image_env=spec.get("image_env"),
            reap_after_exec=bool(spec.get("reap_after_exec")),
        ))
        return made[-1]

    trial = Trial(
        Path(spec["task_dir"]),
        Path(spec["trials_dir"]),
        spec["agent"],
        environment,
        verifier_env=spec.get("verifier_env"),
        runs=spec.get("runs", 1),
    )
    result = await trial.run()
    return {
        "trial_dir": str(trial.paths.trial_dir),
        "result": result,
        "execs": made[0].log,
        "uploads": made[0].uploads,
        "arm": getattr(trial.agent, "arm", None),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))))
