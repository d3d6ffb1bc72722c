"""Experiment trackers: what a trial's metric logger hands its record to besides ``metrics.jsonl``.

A plugin registers a :class:`~zoo.TrackerEntry` whose factory opens a `Tracker` for one trial;
the spec's ``logging`` block picks the trackers (``tensorboard: true`` and ``trackers: [NAME, ...]``)
and holds their settings (``NAME: {...}``). ``metrics.jsonl`` stays the run's own record: a tracker
only mirrors it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .extras import require_extra

#: the tracker that ``logging.tensorboard`` switches
TENSORBOARD = "tensorboard"


@dataclass(frozen=True)
class TrialRecord:
    """What a tracker is told of the trial it records.

    ``params`` is the resolved spec flattened to dotted keys (``agent.learning_rate``) with the
    trial's ``trial`` and ``seed``; ``resume_step`` is the checkpoint step a resumed trial continues
    from (None for a fresh start).
    """

    run_name: str
    run_dir: Path
    trial: int
    seed: int
    directory: Path
    params: dict[str, Any]
    resume_step: int | None = None


class Tracker(Protocol):
    """One trial's record in a tracker: scalars as they are logged, then the trial's result and files."""

    def log(self, step: int, scalars: Mapping[str, float]) -> None:
        """Record scalar values (finite floats) at an environment step."""

    def flush(self) -> None:
        """Write what is buffered."""

    def finish(self, result: Mapping[str, Any], files: list[Path]) -> None:
        """The trial finished: its result (progress, evaluation returns and mean) and the run's files to keep."""

    def close(self) -> None:
        """Release the tracker (also called for a trial that stopped before `finish`)."""


def require_libraries(entry: Any) -> None:
    """Raise a ZooError naming the extra of a tracker entry whose libraries are not installed."""
    for module in entry.modules:
        require_extra(module, entry.extra, f"the {entry.name} tracker")


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A nested mapping as one level of dotted keys; lists stay values (``{"a": {"b": 1}}`` -> ``{"a.b": 1}``)."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    flat: dict[str, Any] = {}
    for key, item in value.items():
        flat.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    return flat

