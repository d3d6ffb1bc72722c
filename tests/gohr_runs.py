"""Finished GOHR run folders with chosen errors per episode, for the study's report and error tests."""

from __future__ import annotations

import yaml

from zoo.metrics import MetricLogger
from zoo.store import RunFolder, create_run_folder


def gohr_run(tmp_path, folder: str, errors: list[list[int]], *, name: str | None = None, rule: str = "paper/clockwise",
             board: dict | None = None, env: str = "gohr") -> RunFolder:
    """A finished run in `tmp_path / folder` whose trial t logged the episode returns -errors[t] (an error
    costs -1), each after a loss row, as the GOHR agents log them."""
    spec = {"env": {"type": env, "rule": rule, **({"board": board} if board else {})}, "agent": {"type": "gohr-linear-dqn"}}
    run = create_run_folder(tmp_path / folder, {"spec.yaml": yaml.safe_dump(spec)},
                            {"env": env, "agent": "gohr-linear-dqn", "status": "finished", "name": name or folder})
    for t, trial in enumerate(errors):
        logger = MetricLogger(run.trial_dir(t))
        for episode, count in enumerate(trial):
            logger.log(10 * episode + 5, loss=0.5)
            logger.log(10 * episode + 9, episode_return=-count)
        logger.close()
    return run
