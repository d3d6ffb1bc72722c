"""A finished cell's run folder read back as a scoring Cell: errors per episode within the budget, and TCE
(``zoo_gohr_study.errors`` defines both, for ``zoo report`` too)."""

from __future__ import annotations

import numpy as np
import yaml

from zoo import RunFolder, ZooError, read_metrics

from ..errors import converged, tce, trial_errors
from .scoring import Cell


def read_cell(run: RunFolder, agent: str, rule: str) -> Cell:
    """The cell's TCE, convergence and cumulative-error curve of every trial."""
    spec = yaml.safe_load((run.path / "spec.yaml").read_text(encoding="utf-8"))
    pieces = int(spec["env"].get("board", {}).get("min_objects", 9))
    errors = [trial_errors(read_metrics(d / "metrics.jsonl"), spec["budget"])
              for d in sorted((run.path / "trials").glob("[0-9]*"))]
    if not errors or any(len(e) == 0 for e in errors):
        raise ZooError(f"{run.path}: a trial finished no episode within the budget; give the cell a larger budget")
    return Cell(
        agent=agent, rule=rule,
        tce=np.array([tce(e) for e in errors]),
        converged=np.array([bool(converged(e[None, :], pieces)[0]) for e in errors]),
        curves=[np.cumsum(e) for e in errors],
    )
