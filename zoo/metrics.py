"""Metric streams of a trial: a JSON-lines file, and TensorBoard events when enabled."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from .errors import ZooError

METRICS_FILE = "metrics.jsonl"


class MetricLogger:
    """Appends ``{"step": s, name: value, ...}`` rows to ``metrics.jsonl`` (and TensorBoard).

    On resume from a checkpoint at step ``s`` the logger is opened with ``resume_step=s``: rows
    logged after ``s`` by the interrupted process are dropped, so the streams continue exactly
    where the checkpoint left them.
    """

    def __init__(self, directory: Path, *, tensorboard: bool = True, resume_step: int | None = None):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / METRICS_FILE
        if resume_step is None:
            self.path.write_text("")
        else:
            truncate_after(self.path, resume_step)
        self._file = self.path.open("a", encoding="utf-8")
        self._writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            purge = resume_step if resume_step is not None else None
            self._writer = SummaryWriter(str(self.directory / "tb"), purge_step=purge)

    def log(self, step: int, **scalars: float) -> None:
        """Record scalar values at an environment step."""
        row: dict[str, Any] = {"step": int(step)}
        for name, value in scalars.items():
            value = float(value)
            row[name] = value if math.isfinite(value) else None
            if self._writer is not None:
                self._writer.add_scalar(name, value, int(step))
        self._file.write(json.dumps(row) + "\n")

    def flush(self) -> None:
        self._file.flush()
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        self.flush()
        self._file.close()
        if self._writer is not None:
            self._writer.close()


def read_metrics(path: Path) -> list[dict[str, Any]]:
    """All complete rows of a metrics file (a torn last line from a crash is ignored).

    A row that parses but is not ``{"step": whole number, name: number or null, ...}`` is a ZooError
    naming the file and line.
    """
    rows = []
    if not Path(path).is_file():
        return rows
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ZooError(f"{path}: cannot read the metrics: {exc.strerror}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            break
        problem = _row_problem(row)
        if problem:
            raise ZooError(f"{path}:{number}: damaged metrics row: {problem}")
        rows.append(row)
    return rows


def _row_problem(row: Any) -> str | None:
    if not isinstance(row, dict):
        return f"expected an object, found {type(row).__name__}"
    step = row.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        return "no step" if step is None else f"step {step!r} is not a whole number of steps"
    for name, value in row.items():
        if name != "step" and value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)):
            return f"{name} is {value!r}, not a number"
    return None


def truncate_after(path: Path, step: int) -> None:
    """Keep only the rows logged at or before `step`, rewriting the file atomically."""
    from .store import atomic_write_text

    kept = [row for row in read_metrics(path) if row["step"] <= step]
    atomic_write_text(path, "".join(json.dumps(row) + "\n" for row in kept))
