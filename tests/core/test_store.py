"""Run folders are created whole or not at all."""

from __future__ import annotations

import os

import pytest

from zoo.errors import ZooError
from zoo.store import atomic_write_text, create_run_folder


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
    assert sorted(os.listdir(tmp_path)) == ["r"]
