"""Nothing half-written: a move, a consent or an answer counts only once it is on disk; a failed write
(a full disk, simulated) leaves the participant where they were, with a message saying so."""

from __future__ import annotations

import errno
import json

import numpy as np
import pytest
from gohr_web import ORIGIN, experiment, signed_in
from starlette.testclient import TestClient
from zoo_gohr.engine.conformance import replay_file
from zoo_gohr.web import participants, store
from zoo_gohr.web.app import Experiment, create_app
from zoo_gohr.web.experiment import rule_list
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr.web.study import Question, Study


class Disk:
    """The store's writer, made to fail on demand as a full disk does."""

    def __init__(self, monkeypatch, module, name):
        self.real, self.full = getattr(module, name), False
        monkeypatch.setattr(module, name, self)

    def __call__(self, *args, **kwargs):
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self.real(*args, **kwargs)


def _records(root) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((root / "transcripts").rglob("*.jsonl"))]


def test_a_full_disk_on_the_last_move_of_a_board_loses_nothing_and_stores_no_extra_move(tmp_path, monkeypatch):
    disk = Disk(monkeypatch, store, "atomic_write_text")
    client = signed_in(create_app(experiment(tmp_path, rules=("paper/clockwise 2",), pieces=9, max_moves=3)), "ann")
    state = client.get("/api/state").json()
    for _ in range(2):
        state = client.post("/api/move", json={"piece": state["pieces"][-1]["id"], "bucket": 3}).json()["state"]
    assert state["moves"] == 2
    disk.full = True
    refused = client.post("/api/move", json={"piece": state["pieces"][0]["id"], "bucket": 0})
    assert refused.status_code == 503 and "could not be saved" in refused.json()["error"]
    assert "not counted" in refused.json()["error"]
    assert client.get("/api/state").json() == state  # as before the move
    assert not _records(tmp_path)
    disk.full = False
    again = client.post("/api/move", json={"piece": state["pieces"][0]["id"], "bucket": 0}).json()
    assert again["board_over"]["moves"] == 3 and again["state"]["board"] == 2
    [record] = _records(tmp_path)
    assert record["n_moves"] == len(record["steps"]) == 3 == record["max_moves"]
    assert all(outcome.passed for outcome in replay_file(tmp_path / "transcripts", tmp_path))


def test_a_full_disk_mid_board_leaves_the_board_as_it_was(tmp_path, monkeypatch):
    disk = Disk(monkeypatch, store, "atomic_write_text")
    app = create_app(experiment(tmp_path, rules=("paper/clockwise 1",), pieces=9))
    client = signed_in(app, "ben")
    state = client.post("/api/move", json={"piece": 0, "bucket": 0}).json()["state"]
    disk.full = True
    for bucket in range(4):
        assert client.post("/api/move", json={"piece": state["pieces"][0]["id"], "bucket": bucket}).status_code == 503
    assert client.get("/api/state").json() == state
    disk.full = False
    restarted = TestClient(create_app(experiment(tmp_path, rules=("paper/clockwise 1",), pieces=9)),
                           headers=ORIGIN, cookies=client.cookies)
    assert restarted.get("/api/state").json() == state  # the counted move is on disk, the refused ones are not


def test_random_write_failures_never_lose_or_add_a_move(tmp_path, monkeypatch):
    """Property: with a write failing at random, the stored boards hold exactly the moves the player was told
    were counted, no board holds more moves than its cut, and every board replays."""
    disk = Disk(monkeypatch, store, "atomic_write_text")
    rng = np.random.default_rng(7)
    client = signed_in(create_app(experiment(tmp_path, rules=("paper/color_match 3", "paper/clockwise 2"),
                                             pieces=5, max_moves=4)), "cat")
    state, counted, refused = client.get("/api/state").json(), 0, 0
    while not state["finished"]:
        disk.full = rng.random() < 0.3
        piece = state["pieces"][int(rng.integers(len(state["pieces"])))]["id"]
        reply = client.post("/api/move", json={"piece": piece, "bucket": int(rng.integers(4))})
        if reply.status_code == 503:
            refused += 1
            assert client.get("/api/state").json() == state
            continue
        assert reply.status_code == 200
        counted += 1
        state = reply.json()["state"]
    records = _records(tmp_path)
    assert refused > 5 and len(records) == 5
    assert sum(r["n_moves"] for r in records) == counted == state["total_moves"]
    assert all(len(r["steps"]) == r["n_moves"] <= 4 for r in records)
    assert all(outcome.passed for outcome in replay_file(tmp_path / "transcripts", tmp_path))


def test_a_consent_that_cannot_be_stored_signs_nobody_in(tmp_path, monkeypatch):
    disk = Disk(monkeypatch, participants, "atomic_write_json")
    app = create_app(experiment(tmp_path))
    disk.full = True
    client = TestClient(app, headers=ORIGIN)
    reply = client.post("/start", data={"player": "dan", "consent": "yes"}, follow_redirects=False)
    assert reply.status_code == 503 and "consent could not be recorded" in reply.text and not client.cookies
    assert not list((tmp_path / "participants").iterdir())
    disk.full = False
    signed_in(app, "dan")  # nothing half-written stands in the way of signing in again


def test_answers_that_cannot_be_stored_are_asked_again(tmp_path, monkeypatch):
    disk = Disk(monkeypatch, participants, "atomic_write_json")
    study = Study.of_stages(rule_list(["paper/clockwise 1"], boards=1, pieces=4, max_moves=100))
    study.final_questions = [Question(id="guess", text="The rule?")]
    client = signed_in(create_app(Experiment(study, TranscriptStore(tmp_path / "s"))), "eve")
    state = client.get("/api/state").json()
    while state["phase"] == "play":
        state = client.post("/api/move", json={"piece": state["pieces"][0]["id"], "bucket": 0}).json()["state"]
    assert state["phase"] == "final"
    disk.full = True
    reply = client.post("/api/answers", json={"answers": {"guess": "clockwise"}})
    assert reply.status_code == 503 and "not recorded" in reply.json()["error"]
    assert client.get("/api/state").json()["phase"] == "final"
    assert json.loads((tmp_path / "s/participants/eve.json").read_text())["final"] is None
    disk.full = False
    assert client.post("/api/answers", json={"answers": {"guess": "clockwise"}}).json()["state"]["phase"] == "done"
    assert json.loads((tmp_path / "s/participants/eve.json").read_text())["final"] == {"guess": "clockwise"}


@pytest.mark.parametrize("stage", ["progress", "transcript"])
def test_no_temporary_file_is_left_by_a_failed_write(tmp_path, monkeypatch, stage):
    """The kernel's atomic writer removes its temporary file when the write fails part-way."""
    import os

    client = signed_in(create_app(experiment(tmp_path, rules=("paper/clockwise 1",), pieces=9,
                                             max_moves=1 if stage == "transcript" else 10)), "fay")
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left")))
    assert client.post("/api/move", json={"piece": 0, "bucket": 0}).status_code == 503
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    assert client.post("/api/move", json={"piece": 0, "bucket": 0}).status_code == 200


def test_a_board_no_piece_can_leave_is_stored_once_the_store_can_write(tmp_path, monkeypatch):
    """The second board is made one that no piece can leave (a zero-move episode); its write fails first."""
    from zoo_gohr.web import session as session_module

    boards: list[tuple] = []

    class SecondBoardStuck(session_module.Game):
        @property
        def game_over(self) -> bool:
            key = tuple((p.id, p.pos) for p in self._pieces)
            if key not in boards:
                boards.append(key)
            return key == boards[1] if len(boards) > 1 else super().game_over

    monkeypatch.setattr(session_module, "Game", SecondBoardStuck)
    client = signed_in(create_app(experiment(tmp_path, rules=("paper/clockwise 3",), pieces=9, max_moves=2)), "gil")
    state = client.get("/api/state").json()
    state = client.post("/api/move", json={"piece": state["pieces"][0]["id"], "bucket": 0}).json()["state"]
    piece = state["pieces"][0]["id"]
    original_save = store.TranscriptStore.save  # a full disk for the zero-move board only
    monkeypatch.setattr(store.TranscriptStore, "save", lambda self, record: original_save(self, record)
                        if record["n_moves"] else (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left")))
    last = client.post("/api/move", json={"piece": piece, "bucket": 1})
    assert last.status_code == 200 and last.json()["board_over"]["moves"] == 2  # the board's last move counts
    refused = client.get("/api/state")
    assert refused.status_code == 503 and "next board could not be saved" in refused.json()["error"]
    monkeypatch.setattr(store.TranscriptStore, "save", original_save)
    late_move = client.post("/api/move", json={"piece": piece, "bucket": 2})  # meant for the board that was stuck
    assert late_move.status_code == 409 and "no piece could leave" in late_move.json()["error"]
    state = client.get("/api/state").json()
    assert (state["board"], state["moves"], state["total_moves"]) == (3, 0, 2)
    assert [(r["episode"], r["n_moves"]) for r in _records(tmp_path)] == [(0, 2), (1, 0)]
