"""Run folders are created whole or not at all; the index filters runs."""

from __future__ import annotations

import os

import pytest

from zoo.errors import ZooError
from zoo.store import RunFolder, RunIndex, atomic_write_text, create_run_folder


def test_atomic_write_replaces_whole_and_leaves_no_temp(tmp_path):
    target = tmp_path / "f.txt"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_run_folder_is_created_at_once_and_never_over_an_existing_one(tmp_path):
    folder = create_run_folder(tmp_path / "r", {"spec.yaml": "x: 1\n"}, {"id": "r", "status": "created"})
    assert (folder.path / "spec.yaml").read_text() == "x: 1\n"
    with pytest.raises(ZooError, match="already exists"):
        create_run_folder(tmp_path / "r", {"spec.yaml": "y: 2\n"}, {"id": "r"})
    assert (folder.path / "spec.yaml").read_text() == "x: 1\n"
    assert sorted(os.listdir(tmp_path)) == ["index.sqlite", "r"]


def test_index_filters_by_env_agent_and_status(tmp_path):
    for name, env, agent in (("a", "gym", "ppo"), ("b", "gym", "dqn"), ("c", "gohr", "ppo")):
        create_run_folder(tmp_path / name, {}, {"id": name, "env": env, "agent": agent, "status": "created"})
    RunFolder(tmp_path / "b").update(status="finished")
    index = RunIndex(tmp_path)
    assert [r["id"] for r in index.query(env="gym")] == ["a", "b"]
    assert [r["id"] for r in index.query(agent="ppo")] == ["a", "c"]
    assert [r["id"] for r in index.query(status="finished")] == ["b"]
    (tmp_path / "index.sqlite").unlink()
    assert index.rebuild() == 3
    assert [r["id"] for r in index.query(env="gym", status="finished")] == ["b"]


def test_an_index_of_another_schema_is_rebuilt_from_the_folders(tmp_path):
    import sqlite3

    create_run_folder(tmp_path / "a", {}, {"id": "a", "env": "gym", "agent": "ppo", "status": "finished"})
    (tmp_path / "index.sqlite").unlink()
    with sqlite3.connect(tmp_path / "index.sqlite") as old:
        old.execute("CREATE TABLE runs (path TEXT PRIMARY KEY, id TEXT)")
        old.execute("INSERT INTO runs VALUES ('/elsewhere', 'ghost')")
    create_run_folder(tmp_path / "b", {}, {"id": "b", "env": "gym", "agent": "dqn", "status": "created"})
    assert [r["id"] for r in RunIndex(tmp_path).query()] == ["a", "b"]
