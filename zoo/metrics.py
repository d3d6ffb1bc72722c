"""Metric streams of a trial: a JSON-lines file, mirrored to the experiment trackers the spec picks (`zoo.tracking`)."""

from __future__ import annotations

import json
import logging
import math
import os
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ZooError
from .tracking import Tracker

METRICS_FILE = "metrics.jsonl"

log = logging.getLogger("zoo")

#: the episodes whose mean return a progress bar shows (as SB3's ``rollout/ep_rew_mean``)
RUNNING_EPISODES = 100


@dataclass(frozen=True)
class Running:
    """What a trial's progress bar shows: the mean ``episode_return`` of its last `RUNNING_EPISODES` episodes
    and its latest ``eval_return`` (None before the first)."""

    mean_return: float | None = None
    eval_return: float | None = None


class MetricLogger:
    """Appends ``{"step": s, name: value, ...}`` rows to ``metrics.jsonl`` and hands them to its `trackers`.

    On resume from a checkpoint at step ``s`` the logger is opened with ``resume_step=s``: rows
    logged after ``s`` by the interrupted process are dropped, so the streams continue exactly
    where the checkpoint left them (lines that cannot be read as rows are kept, see `truncate_after`).
    `running` is the recent return the progress bar shows, continued from the kept rows on resume.
    `ledger` is what a checkpoint records of the file: its rows and the step of the last one.
    """

    def __init__(self, directory: Path, *, trackers: Sequence[Tracker] = (), resume_step: int | None = None):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / METRICS_FILE
        self._returns: deque[float] = deque(maxlen=RUNNING_EPISODES)
        self._eval_return: float | None = None
        self._rows, self._last_step = 0, None
        if resume_step is not None:
            for row in truncate_after(self.path, resume_step):
                self._remember(row)
        elif self.path.exists():  # a trial started over: only the lines no one could read stay
            truncate_after(self.path, -1)
        else:
            self.path.write_text("")
        self._file = self.path.open("a", encoding="utf-8")
        self._trackers = list(trackers)

    def log(self, step: int, **scalars: float) -> None:
        """Record scalar values at an environment step."""
        row: dict[str, Any] = {"step": int(step)}
        for name, value in scalars.items():
            value = float(value)
            row[name] = value if math.isfinite(value) else None
        self._file.write(json.dumps(row) + "\n")
        self._remember(row)
        finite = {name: value for name, value in row.items() if name != "step" and value is not None}
        for tracker in self._trackers:
            tracker.log(row["step"], finite)

    def _remember(self, row: dict[str, Any]) -> None:
        self._rows, self._last_step = self._rows + 1, row["step"]
        if row.get("episode_return") is not None:
            self._returns.append(row["episode_return"])
        if row.get("eval_return") is not None:
            self._eval_return = row["eval_return"]

    def running(self) -> Running:
        """The recent mean episode return and the latest evaluation return logged."""
        mean = sum(self._returns) / len(self._returns) if self._returns else None
        return Running(mean, self._eval_return)

    def ledger(self) -> RowLedger:
        """The rows in the file so far (damaged lines not counted) and the step of the last."""
        return RowLedger(self._rows, self._last_step)

    def finish(self, result: Mapping[str, Any], files: list[Path]) -> None:
        """Hand the trial's result and the run's files to the trackers (the trial finished)."""
        for tracker in self._trackers:
            tracker.finish(result, files)

    def flush(self) -> None:
        self._file.flush()
        for tracker in self._trackers:
            tracker.flush()

    def sync(self) -> None:
        """Flush the rows to disk, so that a checkpoint never records rows a crash of the machine can take back."""
        self.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        try:
            self.flush()
            self._file.close()
        finally:
            for tracker in self._trackers:
                tracker.close()


@dataclass(frozen=True)
class RowLedger:
    """How many rows a trial's metrics file held when a checkpoint was written, and the step of the last one."""

    rows: int
    last_step: int | None


@dataclass(frozen=True)
class DamagedLine:
    """A line of a metrics file that is not a row (a JSON object with an integer ``step``)."""

    path: Path
    number: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.number}: damaged metrics row skipped ({self.reason})"


def scan_metrics(path: Path) -> tuple[list[dict[str, Any]], list[DamagedLine]]:
    """The rows of a metrics file and its damaged lines, each named by line number.

    A last line without its newline is a row torn by a crash; it is neither a row nor reported.
    """
    rows: list[dict[str, Any]] = []
    damaged: list[DamagedLine] = []
    for number, line, torn in _lines(path):
        row, reason = _parse(line)
        if row is not None:
            rows.append(row)
        elif not torn:
            damaged.append(DamagedLine(Path(path), number, reason))
    return rows, damaged


def read_metrics(path: Path) -> list[dict[str, Any]]:
    """The rows of a metrics file; each damaged line is skipped with a warning naming the file and line."""
    rows, damaged = scan_metrics(path)
    for line in damaged:
        log.warning("%s", line)
    return rows


def rows_through(path: Path, step: int) -> tuple[int, bool]:
    """How many lines of a metrics file were written by `step`, and whether its last line is torn.

    Those lines are the rows logged at or before `step` and the damaged lines before the first row
    logged after it (a damaged line is a row no one can read, still in its place; `scan_metrics` names it).
    """
    found, torn_last, after = 0, False, False
    for _, line, torn in _lines(path):
        row, _ = _parse(line)
        if row is not None:
            found += row["step"] <= step
            after = after or row["step"] > step
        elif torn:
            torn_last = True
        elif not after:
            found += 1
    return found, torn_last


def truncate_after(path: Path, step: int) -> list[dict[str, Any]]:
    """Keep only the rows logged at or before `step`, rewriting the file atomically; returns the rows kept.

    Damaged lines stay where they are (their step is unknown, and nothing unread is deleted); only
    a torn last line goes.
    """
    from .store import atomic_write_text

    kept, rows = [], []
    for _, line, torn in _lines(path):
        row, _ = _parse(line)
        if row is None and not torn or row is not None and row["step"] <= step:
            kept.append(line + "\n")
            rows += [row] if row is not None else []
    atomic_write_text(path, "".join(kept))
    return rows


def _lines(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(1-based number, text, whether it is a torn last line) for every non-empty line of `path`."""
    if not Path(path).is_file():
        return
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise ZooError(f"{path}: cannot read the metrics: {exc.strerror}") from None
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.strip():
            yield index + 1, line, index == len(lines) - 1


def _parse(line: str) -> tuple[dict[str, Any] | None, str]:
    try:
        row = json.loads(line)
    except ValueError as exc:
        return None, f"not JSON: {exc}"
    if not isinstance(row, dict):
        return None, "not a JSON object"
    step = row.get("step")
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        return None, "no integer 'step'" if step is None or not isinstance(step, int) else f"negative step {step}"
    for name, value in row.items():
        if name == "step" or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None, f"'{name}' is {value!r}, not a number"
        if not math.isfinite(value):
            return None, f"non-finite '{name}'"
    return row, ""
