"""From what a user typed to run folders: run ids, run folders, study folders and runs folders.

``zoo report runs/*`` hands over every entry of a runs folder, the index and study folders included;
each target is taken for what it is, and anything that holds no run is skipped with a note.
"""

from __future__ import annotations

import json
from pathlib import Path

from zoo_catalog.index import INDEX_FILE

from zoo import MANIFEST, RunFolder, ZooError, find_run, read_json

#: a study folder's ledger (a study plugin writes it): {"name": ..., "runs": {label: run folder name beside it}}
STUDY_LEDGER = "study.json"


def study_runs(folder: Path) -> list[Path] | None:
    """The run folders of a study folder, in the order they were started, or None if `folder` is no study."""
    ledger_path = Path(folder) / STUDY_LEDGER
    if not ledger_path.is_file():
        return None
    try:
        ledger = read_json(ledger_path)
        return [Path(folder).parent / name for name in ledger["runs"].values()]
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        raise ZooError(f"{ledger_path}: damaged study ledger (expected a 'runs' mapping of label to run folder)") from None


def collect_runs(targets: list[str | Path], runs_dir: Path) -> tuple[list[RunFolder], list[str]]:
    """The run folders named by `targets` (each once, in the order given) and a note per target skipped.

    A target is a run folder, a study folder (its runs), a runs folder (the runs directly inside it)
    or the id of a run in `runs_dir`.
    """
    found: dict[Path, RunFolder] = {}
    notes: list[str] = []
    for target in targets:
        for path in _expand(Path(target), runs_dir, notes):
            found.setdefault(path.resolve(), RunFolder(path))
    return list(found.values()), notes


def _expand(path: Path, runs_dir: Path, notes: list[str]) -> list[Path]:
    if (path / MANIFEST).is_file():
        return [path]
    runs = study_runs(path) if path.is_dir() else None
    if runs is not None:
        missing = [run for run in runs if not (run / MANIFEST).is_file()]
        notes += [f"{path}: study run {run} is gone; skipped" for run in missing]
        return [run for run in runs if run not in missing]
    if path.is_dir():
        inside = sorted(child.parent for child in path.glob(f"*/{MANIFEST}")
                        if not child.parent.name.startswith("."))  # not a run folder still being built aside
        if not inside:
            notes.append(f"{path}: skipped (a folder with no run, study or runs in it)")
        return inside
    if path.exists():
        what = "the index of runs" if path.name == INDEX_FILE else "a file"
        notes.append(f"{path}: skipped ({what}, not a run folder)")
        return []
    return [find_run(str(path), runs_dir)]  # a run id; an id several folders carry is an error naming each
