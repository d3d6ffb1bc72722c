"""``zoo gohr serve`` through its HTTP API: judging, transcripts that replay, isolation, bad requests, restarts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gohr_web import ORIGIN, experiment, play_everything, signed_in
from starlette.testclient import TestClient
from zoo_gohr.engine.conformance import replay_file
from zoo_gohr.named_rules import resolve_rule
from zoo_gohr.web.app import COOKIE, MAX_BODY, create_app
from zoo_gohr.web.experiment import read_rule_list, read_trial_list
from zoo_gohr.web.runs import human_runs
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr_study.errors import read_run

from zoo.cli import main
from zoo.errors import ZooError


def _player(app, player: str) -> TestClient:
    return signed_in(app, player)


def _transcripts(store: Path) -> list[Path]:
    return sorted((store / "transcripts").rglob("*.jsonl"))


def test_every_board_is_stored_and_replays_under_the_engine(tmp_path):
    app = create_app(experiment(tmp_path))
    client = _player(app, "alice")
    replies = play_everything(client, np.random.default_rng(0))
    files = _transcripts(tmp_path)
    assert [f.name for f in files] == ["00-paper_color_match-0000.jsonl", "00-paper_color_match-0001.jsonl",
                                       "01-paper_clockwise-0000.jsonl"]
    outcomes = replay_file(tmp_path / "transcripts", tmp_path)
    assert len(outcomes) == 3 and all(o.passed for o in outcomes), [str(o) for o in outcomes]
    records = [json.loads(f.read_text()) for f in files]
    assert sum(r["n_moves"] for r in records) == len(replies)
    assert sum(r["n_moves"] - r["n_accepted"] for r in records) == sum(not r["accepted"] for r in replies)
    assert replies[-1]["state"] == {"player": "alice", "finished": True, "stages": 2, "total_moves": len(replies),
                                    "total_errors": sum(not r["accepted"] for r in replies), "phase": "done"}
    assert (tmp_path / "rules/paper/clockwise.txt").read_bytes() == resolve_rule("paper/clockwise").read_bytes()
    assert "alice" in client.get("/done").text


def test_a_tampered_transcript_fails_the_replay(tmp_path):
    """The replay judges the moves again: flipping one verdict is caught."""
    play_everything(_player(create_app(experiment(tmp_path)), "bob"), np.random.default_rng(1))
    path = _transcripts(tmp_path)[0]
    record = json.loads(path.read_text())
    record["steps"][0]["accepted"] = not record["steps"][0]["accepted"]
    path.write_text(json.dumps(record) + "\n")
    assert not replay_file(path, tmp_path)[0].passed


def test_the_browser_never_sees_the_rule_or_the_allowed_buckets(tmp_path):
    app = create_app(experiment(tmp_path, rules=("paper/clockwise 1",)))
    client = _player(app, "carol")
    state = client.get("/api/state").json()
    assert set(state) == {"player", "finished", "stages", "total_moves", "total_errors", "stage", "board", "boards",
                          "moves", "errors", "pieces", "phase", "practice", "rule_number", "rules", "history"}
    assert all(set(piece) == {"id", "x", "y", "shape", "color"} for piece in state["pieces"])
    reply = client.post("/api/move", json={"piece": state["pieces"][0]["id"], "bucket": 0}).json()
    assert set(reply) == {"accepted", "state"}
    rule_text = resolve_rule("paper/clockwise").read_text()
    pages = [client.get(url).text for url in ("/", "/play", "/static/play.js", "/api/state")] + [json.dumps(reply)]
    for page in pages:
        assert '"buckets"' not in page and "clockwise" not in page.lower()
        assert not any(line in page for line in rule_text.splitlines() if line.strip())


def test_players_are_isolated(tmp_path):
    app = create_app(experiment(tmp_path))
    first, second = _player(app, "p1"), _player(app, "p2")
    before = second.get("/api/state").json()
    piece = first.get("/api/state").json()["pieces"][0]["id"]
    first.post("/api/move", json={"piece": piece, "bucket": 0})
    assert first.get("/api/state").json()["moves"] == 1
    assert second.get("/api/state").json() == before


@pytest.mark.parametrize("request_kwargs, status, message", [
    ({"content": b"{not json", "headers": {"content-type": "application/json"}}, 400, "must be JSON"),
    ({"json": [1, 2]}, 400, "a move is"),
    ({"json": {"piece": 0, "bucket": 1, "rule": "x"}}, 400, "a move is"),
    ({"json": {"piece": 0, "bucket": 4}}, 400, "bucket must be"),
    ({"json": {"piece": 0, "bucket": True}}, 400, "bucket must be"),
    ({"json": {"piece": 99, "bucket": 0}}, 400, "no piece 99"),
    ({"json": {"piece": "0", "bucket": 0}}, 400, "no piece '0'"),
    ({"content": b"{" + b" " * MAX_BODY + b"}", "headers": {"content-type": "application/json"}}, 413, "over"),
])
def test_bad_moves_get_a_4xx_and_change_nothing(tmp_path, request_kwargs, status, message):
    app = create_app(experiment(tmp_path))
    client = _player(app, "dave")
    before = client.get("/api/state").json()
    reply = client.post("/api/move", **request_kwargs)
    assert reply.status_code == status and message in reply.json()["error"]
    assert client.get("/api/state").json() == before
    assert not _transcripts(tmp_path)


def test_requests_without_a_session_or_consent_are_refused(tmp_path):
    app = create_app(experiment(tmp_path))
    client = TestClient(app, headers=ORIGIN)
    assert client.get("/api/state").status_code == 401
    assert client.post("/api/move", json={"piece": 0, "bucket": 0}).json()["error"].startswith("not signed in")
    assert client.get("/play", follow_redirects=False).headers["location"] == "/"
    assert client.post("/start", data={"player": "x"}).status_code == 400
    assert client.post("/start", data={"player": "../etc", "consent": "yes"}).status_code == 400
    assert client.post("/start", json={"player": "x", "consent": "yes"}).status_code == 415
    assert client.post("/start", content=b"a" * (MAX_BODY + 1),
                       headers={"content-type": "application/x-www-form-urlencoded"}).status_code == 413
    assert not list((tmp_path / "transcripts").iterdir())


def test_a_restart_keeps_finished_boards_and_the_player_continues(tmp_path):
    client = _player(create_app(experiment(tmp_path)), "erin")
    rng = np.random.default_rng(2)
    state = client.get("/api/state").json()
    while state["board"] == 1:  # finish the first board, then make one move on the second
        reply = client.post("/api/move", json={"piece": state["pieces"][0]["id"], "bucket": int(rng.integers(4))})
        state = reply.json()["state"]
    second_board = state["pieces"]
    after = client.post("/api/move", json={"piece": second_board[0]["id"], "bucket": 0}).json()["state"]
    restarted = TestClient(create_app(experiment(tmp_path)), headers=ORIGIN, cookies={COOKIE: client.cookies[COOKIE]})
    state = restarted.get("/api/state").json()
    assert (state["stage"], state["board"], state["moves"]) == (1, 2, 1)  # the move on the second board was kept
    assert (state["pieces"], state["history"]) == (after["pieces"], after["history"])  # the same board stream
    assert len(_transcripts(tmp_path)) == 1
    play_everything(restarted, rng)
    assert all(o.passed for o in replay_file(tmp_path / "transcripts", tmp_path))
    assert len(_transcripts(tmp_path)) == 3


def test_a_returning_player_in_a_new_experiment_starts_at_its_first_board(tmp_path):
    client = _player(create_app(experiment(tmp_path, rules=("paper/clockwise 1",))), "hal")
    play_everything(client, np.random.default_rng(4))
    returning = TestClient(create_app(experiment(tmp_path, rules=("paper/color_match 1",))), headers=ORIGIN,
                           cookies={COOKIE: client.cookies[COOKIE]})
    state = returning.get("/api/state").json()
    assert (state["finished"], state["stage"], state["board"], state["total_moves"]) == (False, 1, 1, 0)


def test_consent_page_is_replaceable(tmp_path):
    page = tmp_path / "consent.html"
    page.write_text("<html><body>Our lab's own consent form</body></html>")
    client = TestClient(create_app(experiment(tmp_path / "store"), consent_page=page))
    assert client.get("/").text == page.read_text()


def test_human_transcripts_become_runs_the_gohr_reporter_scores(tmp_path):
    app = create_app(experiment(tmp_path / "store", rules=("paper/color_match 3",)))
    errors = {}
    for seed, player in enumerate(("ann", "ben")):
        replies = play_everything(_player(app, player), np.random.default_rng(seed))
        errors[player] = sum(not reply["accepted"] for reply in replies)
    [run] = human_runs(TranscriptStore(tmp_path / "store"), tmp_path / "runs")
    manifest = run.manifest()
    assert (manifest["agent"], manifest["env"], manifest["players"]) == ("human", "gohr", ["ann", "ben"])
    scored = read_run(run)
    assert scored.errors.shape == (2, 3)
    assert scored.tce.tolist() == [errors["ann"], errors["ben"]]
    assert main(["report", str(run.path), "-o", str(tmp_path / "report")]) == 0
    assert "| human | paper/color_match | 2 x 3 |" in (tmp_path / "report/report.md").read_text()


def test_human_runs_command(tmp_path, capsys):
    play_everything(_player(create_app(experiment(tmp_path / "store")), "fay"), np.random.default_rng(3))
    assert main(["gohr", "human-runs", str(tmp_path / "store"), "--runs-dir", str(tmp_path / "runs")]) == 0
    folders = capsys.readouterr().out.split()
    assert [Path(line).name.split("-")[:2] for line in folders] == [["human", "paper_clockwise"],
                                                                   ["human", "paper_color_match"]]
    assert main(["gohr", "human-runs", str(tmp_path / "nowhere")]) != 0
    assert "not a transcript store" in capsys.readouterr().err


def test_rule_and_trial_lists(tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text("# a pilot\npaper/clockwise 3\n\npaper/color_match  # default boards\n")
    stages = read_rule_list(rules, boards=2, pieces=6, max_moves=50)
    assert [(s.rule, s.boards, s.board_ranges) for s in stages] == [
        ("paper/clockwise", 3, (6, 6, 4, 4, 4, 4)), ("paper/color_match", 2, (6, 6, 4, 4, 4, 4))]
    trials = tmp_path / "trials.csv"
    trials.write_text("rule_id,max_boards,min_points,min_objects,max_objects,min_shapes,max_shapes,min_colors,"
                      "max_colors\npaper/clockwise,4,2,4,6,3,4,2,4\n")
    [stage] = read_trial_list(trials, max_moves=100)
    assert (stage.rule, stage.boards, stage.board_ranges, stage.cgs_board_args()) == (
        "paper/clockwise", 4, (4, 6, 3, 4, 2, 4), ["4:6", "3:4", "2:4"])
    trials.write_text("rule_id,max_boards\npaper/clockwise,2\nTD-01,5\n")
    with pytest.raises(Exception, match=r"trials.csv:3: .*unknown rule set 'TD-01'"):
        read_trial_list(trials, max_moves=100)


def test_serve_refuses_bad_input_with_one_line(tmp_path, capsys):
    for args, message in ((["paper/clockwise", "--rule-list", "x.txt"], "exactly one"),
                          (["--rule-list", str(tmp_path / "missing.txt")], "cannot read the rule list"),
                          (["paper/clockwise", "--consent", str(tmp_path / "none.html")], "no such file"),
                          (["paper/clockwise 0"], "0 boards")):
        assert main(["gohr", "serve", *args, "--store", str(tmp_path / "s")]) != 0
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, (args, err)


def test_importing_the_plugin_loads_no_web_stack():
    code = ("import sys, zoo_gohr; from zoo.registry import get_registry; get_registry(); "
            "print(sorted({'starlette', 'uvicorn', 'PIL', 'moviepy'} & set(sys.modules)))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_a_store_refuses_a_changed_rule_under_the_same_name(tmp_path):
    rule = tmp_path / "mine.txt"
    rule.write_text("(*, *, *, *, [0])\n")
    experiment(tmp_path / "store", rules=(str(rule),))
    assert (tmp_path / "store/rules/file/mine.txt").read_text() == rule.read_text()
    rule.write_text("(*, *, *, *, [1])\n")
    with pytest.raises(ZooError, match="already holds a different rule"):
        experiment(tmp_path / "store", rules=(str(rule),))


def test_zoo_gohr_serve_serves_on_loopback(tmp_path):
    import os
    import signal
    import socket
    import time

    import httpx2

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "zoo.cli", "gohr", "serve", "paper/clockwise", "--port", str(port),
                               "--store", str(tmp_path / "store")], stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": "1"})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = httpx2.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, server.stderr.read()
                time.sleep(0.2)
        assert page.status_code == 200 and 'action="/start"' in page.text
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(30)
    assert f"at http://127.0.0.1:{port}/" in server.stderr.read()  # the default host is loopback
    assert (tmp_path / "store/rules/paper/clockwise.txt").exists()
