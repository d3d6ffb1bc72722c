"""TensorBoard events of a trial in its ``tb/`` folder (torch's SummaryWriter)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zoo import TrialRecord


class TensorBoardTracker:
    """Scalars as TensorBoard events; a resumed trial purges the events logged after its checkpoint."""

    def __init__(self, record: TrialRecord):
        from torch.utils.tensorboard import SummaryWriter

        self._writer = SummaryWriter(str(record.directory / "tb"), purge_step=record.resume_step)

    def log(self, step: int, scalars: Mapping[str, float]) -> None:
        for name, value in scalars.items():
            self._writer.add_scalar(name, value, step)

    def flush(self) -> None:
        self._writer.flush()

    def finish(self, result: Mapping[str, Any], files: list[Path]) -> None:
        """The evaluation return is already among the scalars; nothing more to record."""

    def close(self) -> None:
        self._writer.close()
