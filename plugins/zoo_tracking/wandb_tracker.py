"""A Weights & Biases run per trial, offline by default: files under the run folder's ``wandb/``."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from zoo import TrialRecord

from .params import WandbParams


class WandbTracker:
    """The trial's params as the run's config, its scalars as history, its result in the summary and its files saved."""

    def __init__(self, params: WandbParams, record: TrialRecord):
        import wandb

        self._run = wandb.init(
            project=params.project, entity=params.entity, mode=params.mode, dir=str(record.run_dir),
            group=record.run_name, name=f"{record.run_name}-trial-{record.trial}", config=record.params,
            reinit="create_new", settings=wandb.Settings(silent=True, console="off"))
        self._finished = False

    def log(self, step: int, scalars: Mapping[str, float]) -> None:
        self._run.log(dict(scalars), step=step)

    def flush(self) -> None:
        """W&B writes in its own process; nothing is buffered here."""

    def finish(self, result: Mapping[str, Any], files: list[Path]) -> None:
        self._run.summary.update({f"result/{name}": value for name, value in result.items()})
        for path in files:  # copied into the run's files/, which W&B would otherwise fill with symlinks
            if path.is_file():
                copy = Path(self._run.dir) / path.name
                shutil.copyfile(path, copy)
                self._run.save(str(copy), base_path=self._run.dir, policy="now")
        self._run.finish()
        self._finished = True

    def close(self) -> None:
        if not self._finished:
            self._run.finish(exit_code=1)
