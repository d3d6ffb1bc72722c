"""A finished cell's run folder read back: each trial's final evaluation return and its learning curve."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from zoo import RunFolder, ZooError, read_metrics


@dataclass
class Cell:
    """The trials of one (agent, task) cell: the final evaluation return of each (the mean over the budget's
    ``eval_episodes`` episodes, result.json's ``eval_mean``), and each trial's training episodes as
    (step at the episode's end, return)."""

    agent: str
    task: str
    returns: np.ndarray
    episodes: list[np.ndarray] = field(default_factory=list)


def read_cell(run: RunFolder, agent: str, task: str) -> Cell:
    """The cell's evaluation returns and training episodes, trial by trial."""
    trials = sorted((run.path / "trials").glob("[0-9]*"))
    returns, episodes = [], []
    for trial in trials:
        try:
            result = json.loads((trial / "result.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ZooError(f"{trial}: no readable result.json ({exc})") from None
        if result.get("eval_mean") is None:
            raise ZooError(f"{trial}: the trial has no final evaluation; its budget needs eval_episodes")
        returns.append(float(result["eval_mean"]))
        rows = [r for r in read_metrics(trial / "metrics.jsonl") if r.get("episode_return") is not None]
        episodes.append(np.array([[r["step"], r["episode_return"]] for r in rows], dtype=float).reshape(-1, 2))
    if not returns:
        raise ZooError(f"{run.path}: the run has no trials")
    return Cell(agent, task, np.array(returns), episodes)


def learning_curve(episodes: list[np.ndarray], steps: np.ndarray) -> np.ndarray:
    """Per trial (rows) and point of `steps` (columns): the mean return of the episodes that ended since the
    previous point, carried forward over points where none ended; NaN before a trial's first episode."""
    curves = np.full((len(episodes), len(steps)), np.nan)
    for row, trial in enumerate(episodes):
        previous, value = -np.inf, np.nan
        for column, step in enumerate(steps):
            ended = trial[(trial[:, 0] > previous) & (trial[:, 0] <= step), 1]
            value = float(ended.mean()) if len(ended) else value
            curves[row, column], previous = value, step
    return curves
