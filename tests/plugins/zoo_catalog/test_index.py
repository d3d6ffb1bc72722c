"""The runs folder's index: refreshed from the run folders at every read, healed when damaged, never in a run's way."""

from __future__ import annotations

import json
import logging
import sqlite3

import pytest
from zoo_catalog import index as index_module
from zoo_catalog.index import RunIndex

from zoo import execute_run, prepare_run
from zoo.cli import main
from zoo.errors import ZooError
from zoo.registry import get_registry
from zoo.store import RunFolder, create_run_folder

SPEC = """\
env: {type: synthetic-atari, game: catch}
agent: {type: ale-baseline, policy: random}
budget: {episodes: 5}
logging: {tensorboard: false, progress: false}
"""


def new_run(tmp_path, name: str) -> RunFolder:
    """A run prepared in ``tmp_path/runs/NAME`` (not trained) of the ALE paper's random agent on a small game."""
    source = tmp_path / f"{name}.yaml"
    source.write_text(SPEC)
    return prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / name)


def warnings(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)


def make_runs(runs, *rows) -> None:
    for name, env, agent in rows:
        create_run_folder(runs / name, {}, {"id": name, "env": env, "agent": agent, "status": "created"})


def ids(rows) -> list[str]:
    return [row["id"] for row in rows]


def test_the_index_filters_by_env_agent_and_status(tmp_path):
    make_runs(tmp_path, ("a", "gym", "ppo"), ("b", "gym", "dqn"), ("c", "gohr", "ppo"))
    RunFolder(tmp_path / "b").update(status="finished")
    index = RunIndex(tmp_path)
    assert ids(index.query(env="gym")) == ["a", "b"]
    assert ids(index.query(agent="ppo")) == ["a", "c"]
    assert ids(index.query(status="finished")) == ["b"]
    (tmp_path / "index.sqlite").unlink()
    assert index.rebuild() == 3
    assert ids(index.query(env="gym", status="finished")) == ["b"]


def test_a_read_sees_what_changed_in_the_run_folders_since_the_last(tmp_path):
    make_runs(tmp_path, ("a", "gym", "ppo"), ("b", "gym", "dqn"))
    index = RunIndex(tmp_path)
    assert ids(index.query()) == ["a", "b"]
    RunFolder(tmp_path / "a").update(status="finished")  # an update, a new run, a removed one and a damaged one
    make_runs(tmp_path, ("c", "gohr", "ppo"))
    (tmp_path / "b" / "run.json").unlink()
    assert [(row["id"], row["status"]) for row in index.query()] == [("a", "finished"), ("c", "created")]
    (tmp_path / "c" / "run.json").write_text("{torn")
    assert ids(index.query()) == ["a"]
    RunFolder(tmp_path / "c").path.joinpath("run.json").write_text(json.dumps(
        {"id": "c", "env": "gohr", "agent": "ppo", "status": "finished"}))
    assert ids(index.query(status="finished")) == ["a", "c"]


def test_a_listed_row_holds_the_manifests_fields_not_the_indexs_bookkeeping(tmp_path):
    make_runs(tmp_path, ("a", "gym", "ppo"))
    (row,) = RunIndex(tmp_path).query()
    assert list(row) == ["path", "id", "name", "env", "agent", "status", "trials", "steps", "unit", "created", "updated"]
    assert row["path"] == str((tmp_path / "a").resolve()) and row["unit"] == "steps"


def test_an_unchanged_manifest_is_not_read_again(tmp_path, monkeypatch):
    make_runs(tmp_path, ("a", "gym", "ppo"), ("b", "gym", "dqn"))
    index = RunIndex(tmp_path)
    index.query()
    read = []
    monkeypatch.setattr(index_module, "read_json", lambda path: read.append(path.parent.name) or json.loads(path.read_text()))
    RunFolder(tmp_path / "b").update(status="running")
    assert [row["status"] for row in index.query()] == ["created", "running"]
    assert read == ["b"]
    index.rebuild()
    assert sorted(read) == ["a", "b", "b"]


def test_an_index_an_older_zoo_wrote_is_remade(tmp_path):
    make_runs(tmp_path, ("a", "gym", "ppo"))
    with sqlite3.connect(tmp_path / "index.sqlite") as connection:
        connection.execute("CREATE TABLE runs (path TEXT PRIMARY KEY, id TEXT)")
        connection.execute("INSERT INTO runs VALUES ('/elsewhere', 'ghost')")
    connection.close()
    assert ids(RunIndex(tmp_path).query()) == ["a"]


def test_a_damaged_or_missing_index_is_rebuilt_from_the_run_folders(tmp_path, caplog):
    runs = tmp_path / "runs"
    made = {new_run(tmp_path, name).path.name for name in ("a", "b")}
    index = runs / "index.sqlite"
    index.write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert set(ids(RunIndex(runs).query())) == made
    assert "was damaged" in warnings(caplog) and list(runs.glob("index.sqlite.damaged-*"))
    index.unlink()
    assert set(ids(RunIndex(runs).query())) == made


def test_a_locked_index_ends_in_a_message_and_a_run_never_touches_it(tmp_path, monkeypatch, caplog):
    runs = tmp_path / "runs"
    folder = new_run(tmp_path, "a")
    assert ids(RunIndex(runs).query()) == ["a"]
    monkeypatch.setattr(index_module, "BUSY_SECONDS", 0.2)
    holder = sqlite3.connect(runs / "index.sqlite")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(ZooError, match="stayed locked by another process"):
            RunIndex(runs).query()
        with caplog.at_level(logging.WARNING, logger="zoo"):
            assert execute_run(folder, get_registry(), progress=False) == "finished"
        assert warnings(caplog) == ""
    finally:
        holder.rollback()
        holder.close()
    assert [row["status"] for row in RunIndex(runs).query()] == ["finished"]


def test_the_index_leaves_out_run_folders_still_being_built_aside(tmp_path):
    runs = tmp_path / "runs"
    staging = runs / ".spec-20260101-000000.abc.tmp"  # create_run_folder writes run.json here before the rename
    staging.mkdir(parents=True)
    (staging / "run.json").write_text(json.dumps({"id": "spec-20260101-000000", "env": "e", "agent": "a",
                                                  "status": "created"}))
    assert RunIndex(runs).query() == []


def test_a_runs_folder_that_does_not_exist_lists_nothing_and_gets_no_index(tmp_path):
    index = RunIndex(tmp_path / "missing")
    assert index.query() == [] and index.rebuild() == 0
    assert not (tmp_path / "missing").exists()


def test_where_the_index_cannot_be_written_the_runs_are_listed_from_their_folders(tmp_path, monkeypatch, caplog):
    make_runs(tmp_path, ("a", "gym", "ppo"), ("b", "gym", "dqn"))
    RunIndex(tmp_path).query()
    RunFolder(tmp_path / "a").update(status="finished")
    before = (tmp_path / "index.sqlite").read_bytes()
    # the index opened read-only, as on a runs folder shared for reading (root ignores file permissions)
    monkeypatch.setattr(RunIndex, "_open", lambda self: sqlite3.connect(f"file:{self.path}?mode=ro", uri=True))
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert [row["status"] for row in RunIndex(tmp_path).query()] == ["finished", "created"]
    assert "cannot be written (attempt to write a readonly database)" in warnings(caplog)
    assert (tmp_path / "index.sqlite").read_bytes() == before

    def cannot_create(self):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(RunIndex, "_open", cannot_create)
    (tmp_path / "index.sqlite").unlink()
    assert RunIndex(tmp_path).rebuild() == 2 and not (tmp_path / "index.sqlite").exists()


# A full disk while the index is written: said as such, and the healthy index is not moved aside as damaged.

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
def full_disk(tmp_path, monkeypatch):
    """A runs folder with a healthy index of one run, then a disk that is full for every write of the index."""
    runs = tmp_path / "runs"
    make_runs(runs, ("a", "gym", "ppo"))
    RunIndex(runs).query()
    full = disk_full_error()
    assert full.sqlite_errorcode == sqlite3.SQLITE_FULL

    def open_on_a_full_disk(self):
        raise full

    monkeypatch.setattr(RunIndex, "_open", open_on_a_full_disk)
    return runs


def test_a_full_disk_is_not_taken_for_a_damaged_index(full_disk):
    before = (full_disk / "index.sqlite").read_bytes()
    with pytest.raises(ZooError, match="the disk is full .*the index was left as it is: free some space"):
        RunIndex(full_disk).query()
    assert (full_disk / "index.sqlite").read_bytes() == before
    assert not list(full_disk.glob("index.sqlite.damaged-*"))


def test_zoo_runs_on_a_full_disk_says_so(full_disk, capsys):
    assert main(["runs", "--runs-dir", str(full_disk), "--rebuild"]) == 2
    assert "index.sqlite: the disk is full (database or disk is full)" in capsys.readouterr().err
    assert not list(full_disk.glob("index.sqlite.damaged-*"))


def test_a_full_disk_met_while_healing_a_damaged_index_leaves_it_in_place(tmp_path, monkeypatch):
    make_runs(tmp_path, ("a", "gym", "ppo"))
    (tmp_path / "index.sqlite").write_bytes(b"this is not a database" * 100)
    errors = iter([sqlite3.DatabaseError("file is not a database"), disk_full_error()])

    def open_damaged_then_full(self):
        raise next(errors)

    monkeypatch.setattr(RunIndex, "_open", open_damaged_then_full)
    with pytest.raises(ZooError, match="the disk is full"):
        RunIndex(tmp_path).query()
    assert (tmp_path / "index.sqlite").exists() and not list(tmp_path.glob("index.sqlite.damaged-*"))
