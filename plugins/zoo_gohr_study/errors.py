"""Per-episode errors of GOHR runs, cumulative error curves, TCE and the authors' convergence test.

TCE (terminal cumulated error) has one definition, used by ``zoo report`` (``read_run``) and by GOHR
leaderboards (``leaderboard.readout``): the errors a trial made over the episodes it finished within its
budget (``trial_errors``). With a budget in moves, an episode counts when the trial's move count at its end
is within the budget (agents that step in rollouts may overshoot it; the episodes past it do not count);
with a budget in episodes, the first that many count. Each trial's TCE is its own: trials are not cut to
the episodes every trial finished (only the curves drawn across trials are).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo import RunFolder, ZooError, read_metrics

#: the authors' convergence test (docs/algorithms/gohr-study.md): over the last WINDOW episodes, errors / (moves) < SHARE
WINDOW, SHARE = 150, 0.0025


def trial_errors(rows: list[dict], budget: dict) -> np.ndarray:
    """Errors of each episode a trial finished within its `budget` (a spec's budget block; an error is a
    move with reward -1): the episodes its TCE sums and its convergence is judged on."""
    episodes = [r for r in rows if r.get("episode_return") is not None]
    if budget.get("steps") is not None:
        episodes = [r for r in episodes if r["step"] <= budget["steps"]]
    elif budget.get("episodes") is not None:
        episodes = episodes[:budget["episodes"]]
    return -np.round([r["episode_return"] for r in episodes]).astype(np.int64)


def tce(errors: np.ndarray) -> int:
    """Terminal cumulated error of a trial whose episodes within the budget made `errors` (``trial_errors``)."""
    return int(np.sum(errors))


@dataclass
class RunErrors:
    """A run's errors per episode within the budget, trial by trial (``trials``)."""

    label: str
    run: RunFolder
    trials: list[np.ndarray]
    pieces: int

    @property
    def errors(self) -> np.ndarray:
        """Trials x episodes, cut to the episodes every trial finished (for curves across trials)."""
        length = min(len(t) for t in self.trials)
        return np.stack([t[:length] for t in self.trials])

    @property
    def cumulative(self) -> np.ndarray:
        return np.cumsum(self.errors, axis=1)

    @property
    def tce(self) -> np.ndarray:
        """Terminal cumulated error of each trial (``tce``)."""
        return np.array([tce(t) for t in self.trials], dtype=float)

    @property
    def converged(self) -> np.ndarray:
        """Per trial, the convergence test over its own episodes."""
        return np.array([bool(converged(t[None, :], self.pieces)[0]) for t in self.trials])


def converged(errors: np.ndarray, pieces: int, window: int = WINDOW, share: float = SHARE) -> np.ndarray:
    """Per trial: fewer than `share` of its moves were errors over its last `window` episodes (with
    `pieces` correct moves per episode), the test behind the authors' "C.N.M." (convergence not met)."""
    window = min(window, errors.shape[1])
    delta = errors[:, -window:].sum(axis=1)
    return delta / (window * pieces + delta) < share


def read_run(run: RunFolder, label: str | None = None) -> RunErrors:
    """Errors per episode within the budget of every trial of a GOHR run that finished an episode."""
    import yaml

    manifest = run.manifest()
    if manifest["env"] != "gohr":
        raise ZooError(f"{run.path}: not a GOHR run (env {manifest['env']})")
    spec = yaml.safe_load((run.path / "spec.yaml").read_text())
    budget = spec.get("budget") or {}
    trials = [trial_errors(read_metrics(d / "metrics.jsonl"), budget) for d in sorted((run.path / "trials").glob("[0-9]*"))]
    trials = [t for t in trials if len(t)]
    if not trials:
        raise ZooError(f"{run.path}: no finished episodes yet")
    pieces = int(spec["env"].get("board", {}).get("min_objects", 9))
    return RunErrors(label or manifest["name"], run, trials, pieces)
