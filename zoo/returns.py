"""A run's returns out of its metrics: each trial's episodes and final returns."""

from __future__ import annotations

import numpy as np

from .metrics import METRICS_FILE, read_metrics
from .store import RunFolder

FINAL_FRACTION = 0.1  # the final return of a trial: mean over its last 10% of episodes


def trial_returns(run: RunFolder) -> list[list[tuple[int, float]]]:
    """Per trial, the (step, return) of each training episode."""
    trials = []
    for trial_dir in sorted((run.path / "trials").glob("[0-9]*")):
        rows = read_metrics(trial_dir / METRICS_FILE)
        trials.append([(row["step"], row["episode_return"]) for row in rows if row.get("episode_return") is not None])
    return trials


def final_returns(run: RunFolder) -> np.ndarray:
    """Each trial's mean return over its last 10% of episodes."""
    finals = []
    for episodes in trial_returns(run):
        if episodes:
            tail = max(1, int(len(episodes) * FINAL_FRACTION))
            finals.append(float(np.mean([r for _, r in episodes[-tail:]])))
    return np.array(finals)
