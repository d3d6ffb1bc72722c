"""A full disk while the run index is written or rebuilt is said as such; the healthy index is not moved aside as damaged."""

from __future__ import annotations

import sqlite3

import pytest

from zoo.cli import main
from zoo.errors import ZooError
from zoo.store import RunIndex

MANIFEST = {"id": "a", "name": "a", "env": "gym", "agent": "ppo", "status": "finished", "trials": 1}


def disk_full_error() -> sqlite3.OperationalError:
    """SQLite's own error for a full disk, raised by a database that may grow by no page."""
    connection = sqlite3.connect(":memory:")
    connection.execute("PRAGMA max_page_count = 1")
    try:
        connection.execute("CREATE TABLE t (x)")
        connection.execute("CREATE TABLE u (x)")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        connection.close()
    raise AssertionError("SQLite grew past its page limit")


@pytest.fixture
def runs(tmp_path, monkeypatch):
    """A runs folder with a healthy index of one run, then a disk that is full for every write of the index."""
    folder = tmp_path / "runs"
    (folder / "a").mkdir(parents=True)
    RunIndex(folder).record(folder / "a", MANIFEST)
    full = disk_full_error()
    assert full.sqlite_errorcode == sqlite3.SQLITE_FULL

    def open_on_a_full_disk(self):
        raise full

    monkeypatch.setattr(RunIndex, "_open", open_on_a_full_disk)
    return folder


def test_a_full_disk_is_not_taken_for_a_damaged_index(runs):
    before = (runs / "index.sqlite").read_bytes()
    with pytest.raises(ZooError, match="the disk is full .*the index was left as it is: free some space"):
        RunIndex(runs).query()
    assert (runs / "index.sqlite").read_bytes() == before
    assert not list(runs.glob("index.sqlite.damaged-*"))


def test_zoo_runs_on_a_full_disk_says_so(runs, capsys):
    assert main(["runs", "--runs-dir", str(runs), "--rebuild"]) == 2
    assert "index.sqlite: the disk is full (database or disk is full)" in capsys.readouterr().err
    assert not list(runs.glob("index.sqlite.damaged-*"))
