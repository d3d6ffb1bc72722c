"""Running a board's cells: each cell is an ordinary run whose folder name carries its cache key.

A cell whose run folder has finished is cached; one that was interrupted, crashed or failed is
resumed from its checkpoints (a failed cell is retried on every call); a new cell gets a run folder.
A kind of board may have cells of recorded play (``Recorded``), written from records instead of trained.
Runs go through the backend their spec names (any registered backend), so the cells land in the run index like any run.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from zoo import Registry, RunFolder, ZooError, execute_run, prepare_run

from .plan import CellPlan

#: the state of a cell of recorded play with fewer records than its column asks for
TOO_FEW = "too few trials"


@dataclass(frozen=True)
class Recorded:
    """Cells written from records of play instead of trained: which cells (`applies`), why one cannot be
    written yet (`shortfall`, None when it can) and how its run folder is written (`write`, returning the
    run's status)."""

    applies: Callable[[CellPlan], bool]
    shortfall: Callable[[CellPlan], str | None]
    write: Callable[[CellPlan, Path], str]


@dataclass
class CellState:
    """Where a cell stands: 'cached' (finished), 'resume' (a run folder that has not finished), 'new', or
    (recorded play) 'too few trials'."""

    plan: CellPlan
    folder: Path
    state: str
    status: str | None = None
    error: str | None = None


def cell_state(plan: CellPlan, runs_dir: Path, recorded: Recorded | None = None) -> CellState:
    folder = Path(runs_dir) / plan.run_name
    if not folder.is_dir():
        short = recorded.shortfall(plan) if recorded is not None and recorded.applies(plan) else None
        return CellState(plan, folder, "new") if short is None else CellState(plan, folder, TOO_FEW, error=short)
    try:
        manifest = RunFolder(folder).manifest()
    except ZooError as exc:
        return CellState(plan, folder, "resume", "damaged", str(exc))
    status = manifest.get("status")
    return CellState(plan, folder, "cached" if status == "finished" else "resume", status, manifest.get("error"))


def run_cell(cell: CellState, registry: Registry, runs_dir: Path, *, progress: bool,
             recorded: Recorded | None = None) -> str:
    """Create the cell's run folder if needed and train it; returns the run's final status."""

    if recorded is not None and recorded.applies(cell.plan):
        return recorded.write(cell.plan, cell.folder)
    if cell.state == "new":
        Path(runs_dir).mkdir(parents=True, exist_ok=True)
        text = yaml.safe_dump(cell.plan.spec.model_dump(mode="json"), sort_keys=False)
        handle, spec_path = tempfile.mkstemp(dir=runs_dir, prefix=".cell-", suffix=".yaml")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            folder = prepare_run(Path(spec_path), registry, Path(runs_dir), cell.folder)
        finally:
            Path(spec_path).unlink(missing_ok=True)
    else:
        folder = RunFolder(cell.folder)
    return execute_run(folder, registry, progress=progress)


def read_finished(states: list[CellState], read_cell: Callable) -> dict[tuple[str, str], Any]:
    """The scoring cells of the finished (cached) cells, by (agent, task): ``read_cell(run, agent, task)`` per
    cell. A finished run that cannot be scored is marked damaged (shown as such), not dropped silently."""
    cells = {}
    for s in states:
        if s.state != "cached":
            continue
        try:
            cells[(s.plan.agent, s.plan.task)] = read_cell(RunFolder(s.folder), s.plan.agent, s.plan.task)
        except ZooError as exc:
            s.status, s.error = "damaged", str(exc)
    return cells
