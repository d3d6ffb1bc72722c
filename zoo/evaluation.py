"""Periodic evaluation during training (``budget.eval_every``): logged returns and a ``best`` checkpoint.

Every ``eval_every`` steps (or episodes) each trial plays ``eval_episodes`` greedy episodes on the
seed of the final evaluation; the mean return goes to the trial's metrics and TensorBoard as
``eval_return``. When the mean over the unit's trials beats the best so far, the agent is saved
as the unit's ``best`` checkpoint (``checkpoints-best/``, its score in ``score.json``), which
``zoo.load_agent(run, checkpoint="best")`` loads. The loop evaluates before it checkpoints, so a
resumed trial repeats exactly what an uninterrupted one does.
"""

from __future__ import annotations

import math
from pathlib import Path

from .agent import Agent
from .checkpoints import save_checkpoint
from .store import atomic_write_json, iter_checkpoints, read_json

BEST = "checkpoints-best"
SCORE = "score.json"
#: the checkpoints a trial is taken from (``zoo.load_agent``, ``zoo train --from``): its final one, or its best evaluation's
CHECKPOINTS = ("last", "best")


def checkpoint_home(group: Path, which: str) -> tuple[Path, str]:
    """Where a trial group keeps its `which` checkpoints, and what a message that finds none there adds."""
    if which == "last":
        return group / "checkpoints", ""
    return group / BEST, " (a best checkpoint needs budget.eval_every)"


def best_score(home: Path) -> float:
    """The score of the unit's best checkpoint, or -inf before the first evaluation."""
    found = list(iter_checkpoints(home / BEST))
    return read_json(found[-1][1] / SCORE)["score"] if found else -math.inf


def evaluate_and_keep_best(agent: Agent, returns: list[list[float]], contexts, home: Path, progress) -> float:
    """Log each trial's mean of `returns` at its current step, and save `agent` as best if it is; returns the score."""
    means = [sum(r) / len(r) for r in returns]
    for context, mean, step in zip(contexts, means, progress.steps()):
        context.logger.log(step, eval_return=mean)
        context.logger.flush()
    score = sum(means) / len(means)
    if score > best_score(home):
        saved = save_checkpoint(agent, home / BEST, keep=1, progress=progress)
        atomic_write_json(saved / SCORE, {"score": score, "returns": means})
    return score
