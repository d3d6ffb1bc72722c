"""zoo_ray.mirror: a driver's copy, fed only the watcher's change messages, stays equal to the worker's folder."""

from __future__ import annotations

import random
from pathlib import Path

from zoo_ray.mirror import Changes, Watcher, apply, snapshot, unpack

FOLDERS = ["trials/000", "batches/000-001"]


def visible(root: Path) -> dict[str, bytes]:
    return snapshot(root, FOLDERS)


def sync(watcher: Watcher, copy: Path) -> Changes:
    changes = watcher.changes()
    apply(copy, changes)
    return changes


def test_random_edits_reach_the_copy_through_the_messages_alone(tmp_path):
    worker, copy = tmp_path / "worker", tmp_path / "copy"
    unpack(worker, {"trials/000/metrics.jsonl": b'{"step": 1}\n', "trials/000/checkpoints/step-1/agent/q.npy": b"q1"})
    unpack(copy, visible(worker))
    watcher = Watcher(worker, FOLDERS)
    rng = random.Random(0)
    names = [f"{folder}/{leaf}" for folder in FOLDERS for leaf in ("a.bin", "sub/b.bin", "sub/deeper/c.bin")]
    for _ in range(300):
        name, action = rng.choice(names), rng.choice(["write", "append", "remove", "row"])
        path = worker / name
        if action == "write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(rng.randbytes(rng.randrange(0, 50)))
        elif action == "append" and path.exists():
            with path.open("ab") as handle:
                handle.write(rng.randbytes(rng.randrange(1, 20)))
        elif action == "remove":
            path.unlink(missing_ok=True)
        elif action == "row":
            with (worker / "trials/000/metrics.jsonl").open("a") as handle:
                handle.write(f'{{"step": {rng.randrange(100)}}}\n')
        if rng.random() < 0.3:
            sync(watcher, copy)
    sync(watcher, copy)
    assert visible(copy) == visible(worker)


def test_grown_files_travel_as_appends_and_rows_as_whole_lines(tmp_path):
    worker, copy = tmp_path / "worker", tmp_path / "copy"
    unpack(worker, {"trials/000/metrics.jsonl": b'{"step": 1}\n'})
    unpack(copy, visible(worker))
    watcher = Watcher(worker, FOLDERS)
    with (worker / "trials/000/metrics.jsonl").open("ab") as handle:
        handle.write(b'{"step": 2}\n{"ste')
    changes = sync(watcher, copy)
    assert changes.appended == {"trials/000/metrics.jsonl": (12, b'{"step": 2}\n')} and not changes.written
    assert (copy / "trials/000/metrics.jsonl").read_bytes() == b'{"step": 1}\n{"step": 2}\n'
    with (worker / "trials/000/metrics.jsonl").open("ab") as handle:
        handle.write(b'p": 3}\n')
    assert sync(watcher, copy).appended == {"trials/000/metrics.jsonl": (24, b'{"step": 3}\n')}


def test_hidden_staging_is_not_copied_and_removals_prune_empty_folders(tmp_path):
    worker, copy = tmp_path / "worker", tmp_path / "copy"
    unpack(worker, {"trials/000/checkpoints/step-1/COMPLETE": b"{}", "trials/000/checkpoints/step-1/agent/q": b"1"})
    unpack(copy, visible(worker))
    watcher = Watcher(worker, FOLDERS)
    (worker / "trials/000/checkpoints/.ckpt-x.tmp").mkdir()
    (worker / "trials/000/checkpoints/.ckpt-x.tmp/q").write_bytes(b"2")
    assert not sync(watcher, copy)
    for path in sorted((worker / "trials/000/checkpoints/step-1").rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    (worker / "trials/000/checkpoints/step-1").rmdir()
    assert sorted(sync(watcher, copy).removed) == ["trials/000/checkpoints/step-1/COMPLETE",
                                                   "trials/000/checkpoints/step-1/agent/q"]
    assert not (copy / "trials/000/checkpoints/step-1").exists()
