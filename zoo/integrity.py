"""What a run's files say that its numbers do not: metrics rows lost since a checkpoint, and training not finished.

Every checkpoint records, per trial, how many rows the trial's ``metrics.jsonl`` held and the step of
the last one (`zoo.metrics.RowLedger`). Resuming keeps the rows logged at or before the checkpoint's
step, so if fewer are there than the checkpoint recorded (the file was deleted, its last row torn,
rows cut out), the resumed trial and every report of it would count fewer episodes than were
trained, without a word. `account_for_rows` compares before a run is trained and refuses such a
loss unless it is accepted; either way the loss is recorded in ``run.json`` under ``lost_rows``.
`trial_progress` and `lost_row_notes` are what a report needs to say that a run is not finished (each
trial's progress in its budget) and which rows it lost.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .checkpoints import PROGRESS, DamagedCheckpoint, verify
from .errors import ZooError
from .metrics import METRICS_FILE, rows_through, scan_metrics
from .store import RunFolder, iter_checkpoints, now, read_json

LOST_ROWS = "lost_rows"  # the run.json key of the losses noticed

log = logging.getLogger("zoo")


class LostRowsError(ZooError):
    """Training would continue over metrics rows that a checkpoint recorded and that are gone."""


@dataclass(frozen=True)
class RowLoss:
    """Fewer rows in a trial's metrics file than its checkpoint recorded."""

    trial: int
    file: str
    checkpoint: str
    expected: int
    found: int
    last_step: int | None
    kind: str  # "file missing", "torn last row" or "rows missing"

    def __str__(self) -> str:
        return _loss_line(self.file, self.kind, self.checkpoint, self.expected, self.found, self.last_step)

    @property
    def key(self) -> tuple:
        return self.trial, self.checkpoint, self.expected, self.found


def _loss_line(file, kind, checkpoint, expected, found, last_step) -> str:
    """A loss as every message states it (a RowLoss, or a record of run.json)."""
    last = f" (the last at step {last_step})" if last_step is not None else ""
    return f"{file}: {kind}: checkpoint {checkpoint} recorded {expected} rows{last}, {found} found"


@dataclass(frozen=True)
class TrialLedger:
    """What the newest intact checkpoint of a trial recorded: its folder, the trial's rows, last row's step and step."""

    checkpoint: Path
    rows: int
    last_step: int | None
    step: int


def trial_ledger(run_path: Path, trial: int) -> TrialLedger | None:
    """The row ledger of a trial's newest intact checkpoint; None without one, or if it predates ledgers."""
    for path, index in _newest_checkpoints(Path(run_path), trial):
        try:
            verify(path)
            progress = read_json(path / PROGRESS, dict)
            step = int(progress["steps"][index])
        except (DamagedCheckpoint, OSError, ZooError, KeyError, IndexError, TypeError, ValueError):
            continue  # the resume falls back to an older checkpoint too
        if "rows" not in progress:
            return None  # written before checkpoints counted rows
        try:
            return TrialLedger(path, int(progress["rows"][index]), progress["last_steps"][index], step)
        except (KeyError, IndexError, TypeError, ValueError):
            continue
    return None


def _newest_checkpoints(run_path: Path, trial: int) -> Iterator[tuple[Path, int]]:
    """A trial's checkpoints, newest first, each with the trial's position in it: those of its own folder, or of its
    batch's (`zoo.trials.group_dir`)."""
    root, index = RunFolder(run_path).trial_dir(trial) / "checkpoints", 0
    if not root.is_dir():
        for batch in sorted((run_path / "batches").glob("*-*")):
            first, _, last = batch.name.partition("-")
            if first.isdigit() and last.isdigit() and int(first) <= trial <= int(last):
                root, index = batch / "checkpoints", trial - int(first)
                break
    for _, path in reversed(list(iter_checkpoints(root))):
        yield path, index


def lost_rows(folder: RunFolder, trials: int) -> list[RowLoss]:
    """Each trial whose metrics file holds fewer rows up to its checkpoint's step than the checkpoint recorded."""
    losses = []
    for trial in range(trials):
        ledger = trial_ledger(folder.path, trial)
        if ledger is None:
            continue
        path = folder.trial_dir(trial) / METRICS_FILE
        if path.is_file():
            found, torn = rows_through(path, ledger.step)
            kind = "torn last row" if torn and found == ledger.rows - 1 else "rows missing"
        else:
            found, kind = 0, "file missing"
        if found < ledger.rows:
            losses.append(RowLoss(trial, str(path), ledger.checkpoint.name, ledger.rows, found, ledger.last_step, kind))
    return losses


def account_for_rows(folder: RunFolder, *, accept: bool) -> None:
    """Before a run is trained (or resumed): name the damaged metrics lines it keeps, and compare each trial's rows
    with its checkpoint. A loss not accepted before is recorded in ``run.json`` and refused, unless `accept`."""
    manifest = folder.manifest()
    trials = int(manifest.get("trials") or 0)
    for trial in range(trials):
        for line in scan_metrics(folder.trial_dir(trial) / METRICS_FILE)[1]:
            log.warning("%s:%d: damaged metrics line kept (%s); reports skip it", line.path, line.number, line.reason)
    records = _records(manifest)
    known = {_key(record): record for record in records}
    fresh = [loss for loss in lost_rows(folder, trials) if not (known.get(loss.key) or {}).get("accepted")]
    if not fresh:
        return
    stamp = now()
    for loss in fresh:
        if loss.key not in known:
            known[loss.key] = _record(folder, loss, stamp)
            records.append(known[loss.key])
        if accept:
            known[loss.key]["accepted"] = stamp
    folder.update(**{LOST_ROWS: records})
    listed = "; ".join(str(loss) for loss in fresh)
    if accept:
        log.warning("continuing over lost metrics rows, recorded in %s: %s", folder.manifest_path, listed)
        return
    raise LostRowsError(
        f"{folder.path}: metrics rows its checkpoints recorded are gone: {listed}. Resumed, the trials would go on "
        "without them and every report would count fewer episodes than were trained; restore the files from a backup "
        f"and resume again, or continue with the loss recorded in run.json: zoo resume {folder.path} --accept-lost-rows")


def _record(folder: RunFolder, loss: RowLoss, noticed: str) -> dict[str, Any]:
    """A loss as run.json keeps it: its file relative to the run folder (which may be moved), and when it was noticed."""
    file = Path(loss.file).relative_to(folder.path).as_posix()
    return {**asdict(loss), "file": file, "noticed": noticed, "accepted": None}


def _records(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    records = manifest.get(LOST_ROWS)
    return [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []


def _key(record: dict[str, Any]) -> tuple:
    return record.get("trial"), record.get("checkpoint"), record.get("expected"), record.get("found")


# -- what reports need -------------------------------------------------------------------------------------------

def trial_progress(folder: RunFolder, trial: int) -> tuple[int, bool]:
    """A trial's progress in its budget's unit, and whether it finished: its result, else its newest checkpoint."""
    try:
        return int(read_json(folder.trial_dir(trial) / "result.json", dict)["progress"]), True
    except (OSError, ZooError, KeyError, TypeError, ValueError):
        return _checkpoint_progress(folder.path, trial), False


def _checkpoint_progress(run_path: Path, trial: int) -> int:
    """The progress a trial's newest readable checkpoint records (0 without one)."""
    for path, index in _newest_checkpoints(run_path, trial):
        try:
            return int(read_json(path / PROGRESS, dict)["done"][index])
        except (OSError, ZooError, KeyError, IndexError, TypeError, ValueError):
            continue
    return 0


def lost_row_notes(folder: RunFolder) -> list[str]:
    """The metrics rows `folder` lost, one line each, as every report of it must state them beside its numbers.

    Losses noticed here for the first time are recorded in ``run.json`` too (unless the run is training
    now: its trainer owns the manifest).
    """
    manifest = folder.manifest()
    records = _records(manifest)
    known = {_key(record) for record in records}
    stamp = now()
    fresh = [_record(folder, loss, stamp) for loss in lost_rows(folder, int(manifest.get("trials") or 0))
             if loss.key not in known]
    if fresh and manifest["status"] != "running":
        try:
            folder.update(**{LOST_ROWS: records + fresh})
        except (OSError, ZooError) as exc:
            log.warning("%s: could not record the lost rows (%s)", folder.manifest_path, exc)
    notes = []
    for record in records + fresh:
        loss = _loss_line(folder.path / str(record.get("file")), record.get("kind"), record.get("checkpoint"),
                          record.get("expected"), record.get("found"), record.get("last_step"))
        accepted = f"; training continued over the loss at {record['accepted']}" if record.get("accepted") else ""
        notes.append(f"lost metrics rows: {loss}{accepted}")
    return notes
