"""A trial of a batched run is read from its batch's checkpoints, at its own position in them."""

from __future__ import annotations

import json

from zoo.integrity import trial_ledger, trial_progress
from zoo.store import RunFolder


def batched_run(tmp_path) -> RunFolder:
    """A run folder whose trials 2 and 3 share the batch 002-003, with one checkpoint of both (and an empty 000-001)."""
    (tmp_path / "batches" / "000-001" / "checkpoints").mkdir(parents=True)
    checkpoint = tmp_path / "batches" / "002-003" / "checkpoints" / "step-000000000040"
    checkpoint.mkdir(parents=True)
    (checkpoint / "progress.json").write_text(json.dumps(
        {"steps": [40, 50], "done": [40, 50], "rows": [4, 6], "last_steps": [38, 49]}))
    (checkpoint / "COMPLETE").write_text(json.dumps({"progress.json": (checkpoint / "progress.json").stat().st_size}))
    return RunFolder(tmp_path)


def test_each_trial_of_a_batch_reads_its_own_progress_and_ledger(tmp_path):
    folder = batched_run(tmp_path)
    assert trial_progress(folder, 2) == (40, False)
    assert trial_progress(folder, 3) == (50, False)
    ledger = trial_ledger(folder.path, 3)
    assert (ledger.checkpoint.name, ledger.rows, ledger.last_step, ledger.step) == ("step-000000000040", 6, 49, 50)


def test_a_trial_without_checkpoints_has_no_progress_and_no_ledger(tmp_path):
    folder = batched_run(tmp_path)
    assert trial_progress(folder, 0) == (0, False)
    assert trial_ledger(folder.path, 0) is None
    assert trial_ledger(folder.path, 7) is None  # in no batch
