"""The researcher's side: the admin credential, the overview, the exports, and withdrawal everywhere."""

from __future__ import annotations

import base64
import csv
import io
import json

import numpy as np
from gohr_web import ORIGIN, experiment, signed_in
from gohr_web_study import answers, play_study, write_study
from starlette.testclient import TestClient
from zoo_gohr.web.app import COOKIE, Experiment, create_app
from zoo_gohr.web.recorded import HumanParams, recorded_digest, recorded_trials
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr.web.study import load_study

TOKEN = "admin-token-for-tests-0123"
BEARER = {"authorization": f"Bearer {TOKEN}", **ORIGIN}


def _study_app(tmp_path):
    exp = Experiment(load_study(write_study(tmp_path)), TranscriptStore(tmp_path / "store"))
    return exp, create_app(exp, admin_token=TOKEN)


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_admin_pages_need_their_token(tmp_path):
    assert TestClient(create_app(experiment(tmp_path / "a"))).get("/admin").status_code == 404  # no token: no pages
    app = create_app(experiment(tmp_path / "b"), admin_token=TOKEN)
    anonymous = TestClient(app)
    for headers in ({}, {"authorization": "Bearer wrong-token"}, {"authorization": f"Bearer {TOKEN}x"},
                    {"authorization": "Basic " + base64.b64encode(b"admin:nope").decode()}, {"authorization": TOKEN}):
        for url in ("/admin", "/admin/export/consents.csv"):
            reply = anonymous.get(url, headers=headers)
            assert reply.status_code == 401 and "basic" in reply.headers["www-authenticate"].lower()
    participant = signed_in(app, "alice")  # a participant's cookie opens nothing either
    assert participant.get("/admin").status_code == 401
    basic = {"authorization": "Basic " + base64.b64encode(f"admin:{TOKEN}".encode()).decode()}
    assert anonymous.get("/admin", headers=basic).status_code == 200
    assert anonymous.get("/admin", headers=BEARER).status_code == 200


def test_the_overview_and_the_exports(tmp_path):
    exp, app = _study_app(tmp_path)
    for seed, player in enumerate(("p1", "p2")):
        play_study(signed_in(app, player), np.random.default_rng(seed), answers)
    late = signed_in(app, "p3")
    late.post("/api/move", json={"piece": late.get("/api/state").json()["pieces"][0]["id"], "bucket": 0})
    admin = TestClient(app, headers=BEARER)
    page = admin.get("/admin").text
    assert "p3" in page and "play, stage 1 of 3" in page and "0 of 2" in page
    consents = _csv(admin.get("/admin/export/consents.csv").text)
    assert [(c["player"], c["consent_version"], c["consent_given"]) for c in consents] == [
        ("p1", "v3-2026-11", "True"), ("p2", "v3-2026-11", "True"), ("p3", "v3-2026-11", "True")]
    assert [c["rule_order"] for c in consents] == ["paper/color_match;paper/clockwise",
                                                   "paper/clockwise;paper/color_match",
                                                   "paper/color_match;paper/clockwise"]
    rows = _csv(admin.get("/admin/export/answers.csv").text)
    assert {(r["player"], r["after"], r["question"]) for r in rows} >= {("p1", "paper/clockwise", "guess"),
                                                                        ("p2", "final", "strategy")}
    comment = next(r["answer"] for r in rows if r["player"] == "p1" and r["question"] == "comments")
    assert comment == "'=HYPERLINK(\"x\")"  # a formula is defused for spreadsheets
    assert json.loads(admin.get("/admin/export/answers.json").text)[0].keys() == {"player", "after", "question",
                                                                                 "answer"}
    moves = _csv(admin.get("/admin/export/transcripts.csv").text)
    episodes = json.loads(admin.get("/admin/export/transcripts.json").text)
    assert len(moves) == sum(e["n_moves"] for e in episodes) and len(episodes) == 6  # p3 finished no board yet
    assert {m["move"] for m in moves} >= {"1"} and "0" not in {m["move"] for m in moves}  # counted from 1
    assert {m["bucket"] for m in moves} <= {"1", "2", "3", "4"} and {m["board"] for m in moves} == {"1"}
    stored = [(e["player"], e["stage"], s["move"]["id"], s["move"]["bucket"]) for e in episodes for s in e["steps"]]
    assert [(m["player"], int(m["stage"]) - 1, int(m["piece_id"]), int(m["bucket"]) - 1) for m in moves] == stored
    assert admin.get("/admin/export/secrets.csv").status_code == 404


def test_withdrawal_removes_a_participant_everywhere(tmp_path):
    exp, app = _study_app(tmp_path)
    clients = {}
    for seed, player in enumerate(("p1", "p2")):
        clients[player] = signed_in(app, player)
        play_study(clients[player], np.random.default_rng(seed), answers)
    root = tmp_path / "store"
    params = HumanParams(recorded=str(root))
    board = {"min_objects": 4}
    before = recorded_digest(params, "paper/clockwise", None, board, 40)
    assert list(recorded_trials(params, "paper/clockwise", board, 40)) == ["p1", "p2"]
    admin = TestClient(app, headers=BEARER)
    reply = admin.post("/admin/withdraw", data={"player": "p1"})
    assert reply.status_code == 200 and "withdrawn: p1" in reply.text
    assert not (root / "transcripts/p1").exists() and not (root / "participants/p1.json").exists()
    assert not (root / "progress/p1.json").exists()
    for kind in ("transcripts", "answers", "consents"):
        for fmt in ("csv", "json"):
            exported = admin.get(f"/admin/export/{kind}.{fmt}").text
            assert '"p1"' not in exported and "\np1," not in exported and "p2" in exported
    assert list(recorded_trials(params, "paper/clockwise", board, 40)) == ["p2"]  # the next board's human rows
    assert recorded_digest(params, "paper/clockwise", None, board, 40) != before
    assert clients["p1"].get("/api/state").status_code == 401  # their token opens nothing now
    again = TestClient(app, headers=ORIGIN).post("/start", data={"player": "p1", "consent": "yes"})
    assert again.status_code == 403 and "withdrawn" in again.text
    assert "p1" in admin.get("/admin").text.split("Withdrawn:")[1]
    assert admin.post("/admin/withdraw", data={"player": "../p2"}).status_code == 404
    assert admin.post("/admin/withdraw", data={"player": "nobody"}).status_code == 404
    assert (root / "transcripts/p2").is_dir()


def test_a_withdrawal_of_a_participant_mid_board_deletes_their_board_in_play(tmp_path):
    exp, app = _study_app(tmp_path)
    client = signed_in(app, "mid")
    client.post("/api/move", json={"piece": client.get("/api/state").json()["pieces"][0]["id"], "bucket": 0})
    assert (tmp_path / "store/progress/mid.json").exists()
    assert TestClient(app, headers=BEARER).post("/admin/withdraw", data={"player": "mid"}).status_code == 200
    assert not (tmp_path / "store/progress/mid.json").exists()
    assert TestClient(app, cookies={COOKIE: client.cookies[COOKIE]}).get("/api/state").status_code == 401


def test_serve_refuses_a_weak_admin_token_or_a_bad_origin_in_one_line(tmp_path, capsys, monkeypatch):
    from zoo.cli import main

    (tmp_path / "token").write_text("short\n")
    cases = ((["--admin-token-file", str(tmp_path / "token")], "shorter than 16 characters"),
             (["--admin-token-file", str(tmp_path / "missing")], "cannot read it"),
             (["--origin", "https://study.example.org/path"], "give scheme and host only"))
    for args, message in cases:
        assert main(["gohr", "serve", "paper/clockwise", "--store", str(tmp_path / "s"), *args]) != 0
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, (args, err)
    monkeypatch.setenv("ZOO_GOHR_ADMIN_TOKEN", "tiny")
    assert main(["gohr", "serve", "paper/clockwise", "--store", str(tmp_path / "s")]) != 0
    assert "shorter than 16 characters" in capsys.readouterr().err


def test_a_withdrawal_interrupted_half_way_already_hides_the_participant(tmp_path, monkeypatch):
    import shutil

    exp, app = _study_app(tmp_path)
    client = signed_in(app, "half")
    play_study(client, np.random.default_rng(5), answers)
    real_rmtree = shutil.rmtree
    monkeypatch.setattr(shutil, "rmtree", lambda path, **kw: (_ for _ in ()).throw(OSError(5, "I/O error")))
    admin = TestClient(app, headers=BEARER)
    reply = admin.post("/admin/withdraw", data={"player": "half"})
    assert reply.status_code == 503 and "run it again" in reply.json()["error"]
    assert (tmp_path / "store/transcripts/half").is_dir()  # the files are still there ...
    assert client.get("/api/state").status_code == 401  # ... but nothing reads them
    for kind in ("transcripts", "answers", "consents"):
        assert "half" not in admin.get(f"/admin/export/{kind}.json").text
    params = HumanParams(recorded=str(tmp_path / "store"))
    assert recorded_trials(params, "paper/clockwise", {"min_objects": 4}, 40) == {}
    monkeypatch.setattr(shutil, "rmtree", real_rmtree)
    assert admin.post("/admin/withdraw", data={"player": "half"}).status_code == 200  # run again: finished
    assert not (tmp_path / "store/transcripts/half").exists()
