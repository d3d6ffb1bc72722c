"""Per-episode errors of GOHR runs, cumulative error curves, TCE and the authors' convergence test."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zoo import RunFolder, ZooError, read_metrics

#: the authors' convergence test (docs/algorithms/gohr-study.md): over the last WINDOW episodes, errors / (moves) < SHARE
WINDOW, SHARE = 150, 0.0025


@dataclass
class RunErrors:
    """A run's errors per trial and episode (trials x episodes), cut to the episodes every trial finished."""

    label: str
    run: RunFolder
    errors: np.ndarray
    pieces: int

    @property
    def cumulative(self) -> np.ndarray:
        return np.cumsum(self.errors, axis=1)

    @property
    def tce(self) -> np.ndarray:
        """Terminal Cumulated Error of each trial."""
        return self.errors.sum(axis=1).astype(float)

    @property
    def converged(self) -> np.ndarray:
        return converged(self.errors, self.pieces)


def converged(errors: np.ndarray, pieces: int, window: int = WINDOW, share: float = SHARE) -> np.ndarray:
    """Per trial: fewer than `share` of its moves were errors over its last `window` episodes (with
    `pieces` correct moves per episode), the test behind the authors' "C.N.M." (convergence not met)."""
    window = min(window, errors.shape[1])
    delta = errors[:, -window:].sum(axis=1)
    return delta / (window * pieces + delta) < share


def read_run(run: RunFolder, label: str | None = None) -> RunErrors:
    """Errors per episode of every trial of a GOHR run (an error is a move with reward -1)."""
    import yaml

    manifest = run.manifest()
    if manifest["env"] != "gohr":
        raise ZooError(f"{run.path}: not a GOHR run (env {manifest['env']})")
    rows = []
    for trial_dir in sorted((run.path / "trials").glob("[0-9]*")):
        episodes = [r["episode_return"] for r in read_metrics(trial_dir / "metrics.jsonl") if r.get("episode_return") is not None]
        if episodes:
            rows.append(-np.asarray(episodes))
    if not rows:
        raise ZooError(f"{run.path}: no finished episodes yet")
    length = min(len(r) for r in rows)
    spec = yaml.safe_load((run.path / "spec.yaml").read_text())
    pieces = int(spec["env"].get("board", {}).get("min_objects", 9))
    return RunErrors(label or manifest["name"], run, np.stack([r[:length] for r in rows]).round().astype(np.int64), pieces)
