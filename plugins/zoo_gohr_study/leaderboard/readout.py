"""A finished cell's run folder read back as a scoring Cell: errors per episode within the budget."""

from __future__ import annotations

import numpy as np
import yaml

from zoo import RunFolder, ZooError, read_metrics

from ..errors import converged
from .scoring import Cell


def trial_errors(rows: list[dict], unit: str, amount: int) -> np.ndarray:
    """Errors of each episode a trial finished within its budget (an error is a move with reward -1).

    With a budget in moves, an episode counts when the trial's move count at its end is within the
    budget (agents that step in rollouts may overshoot; their extra episodes are not scored). With a
    budget in episodes, the first `amount` episodes count.
    """
    episodes = [r for r in rows if r.get("episode_return") is not None]
    if unit == "steps":
        episodes = [r for r in episodes if r["step"] <= amount]
    else:
        episodes = episodes[:amount]
    return -np.round([r["episode_return"] for r in episodes]).astype(np.int64)


def read_cell(run: RunFolder, agent: str, rule: str) -> Cell:
    """The cell's TCE, convergence and cumulative-error curve of every trial."""
    spec = yaml.safe_load((run.path / "spec.yaml").read_text(encoding="utf-8"))
    unit = "steps" if spec["budget"].get("steps") is not None else "episodes"
    amount = spec["budget"][unit]
    pieces = int(spec["env"].get("board", {}).get("min_objects", 9))
    errors = [trial_errors(read_metrics(d / "metrics.jsonl"), unit, amount)
              for d in sorted((run.path / "trials").glob("[0-9]*"))]
    if not errors or any(len(e) == 0 for e in errors):
        raise ZooError(f"{run.path}: a trial finished no episode within the budget; give the cell a larger budget")
    return Cell(
        agent=agent, rule=rule,
        tce=np.array([int(e.sum()) for e in errors]),
        converged=np.array([bool(converged(e[None, :], pieces)[0]) for e in errors]),
        curves=[np.cumsum(e) for e in errors],
    )
