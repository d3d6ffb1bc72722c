"""Study files: checked like specs, rule orders per participant, and a whole study through the HTTP API."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from gohr_web import signed_in
from gohr_web_study import STUDY, answers, play_study, write_study
from zoo_gohr.engine.conformance import replay_file
from zoo_gohr.web.app import Experiment, create_app
from zoo_gohr.web.runs import human_runs
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr.web.study import Study, balanced_latin_square, load_study
from zoo_gohr_study.errors import read_run

from zoo.cli import main
from zoo.errors import SpecError


def test_a_study_file_is_checked_with_its_lines(tmp_path, capsys):
    assert main(["validate", str(write_study(tmp_path))]) == 0
    assert "web-study: Hidden rules, test study: 2 rule(s) (counterbalanced), practice paper/color_match, 2 + 2" \
           in capsys.readouterr().out
    bad = STUDY.replace("order: counterbalanced", "order: sometimes").replace("kind: likert, scale: 5",
                                                                            "kind: likert, scale: 50")
    bad = bad.replace("{rule: paper/clockwise, boards: 1}", "{rule: paper/clockwise, bords: 1}")
    assert main(["validate", str(write_study(tmp_path, bad))]) != 0
    err = capsys.readouterr().err
    assert "study.yaml:11:" in err and "order" in err and "'fixed', 'counterbalanced' or 'random'" in err
    assert "study.yaml:10:" in err and "unknown field 'bords'" in err and "did you mean 'boards'" in err
    assert "study.yaml:17:" in err and "scale" in err and "less than or equal to 11" in err
    with pytest.raises(SpecError, match="give exactly one of code and redirect"):
        load_study(write_study(tmp_path, STUDY.replace("{code: TEST-CODE-42}", "{}")))
    with pytest.raises(SpecError, match="choices belong to"):
        load_study(write_study(tmp_path, STUDY.replace(", kind: choice", "")))
    with pytest.raises(Exception, match=r"rules\[1\]: no rule 'paper/nothing'"):
        load_study(write_study(tmp_path, STUDY.replace("paper/clockwise", "paper/nothing")))


def test_zoo_gohr_serve_refuses_a_bad_study_file_in_one_line(tmp_path, capsys):
    path = write_study(tmp_path, STUDY.replace("completion: {code: TEST-CODE-42}", ""))
    assert main(["gohr", "serve", "--study", str(path), "--store", str(tmp_path / "s")]) != 0
    err = capsys.readouterr().err
    assert "completion: required field is missing" in err and "Traceback" not in err


@pytest.mark.parametrize("n", range(1, 7))
def test_balanced_latin_squares(n):
    rows = balanced_latin_square(n)
    assert len(rows) == (n if n % 2 == 0 else 2 * n)
    assert all(sorted(row) == list(range(n)) for row in rows)
    for position in range(n):  # every rule equally often in every position
        counts = np.bincount([row[position] for row in rows], minlength=n)
        assert len(set(counts)) == 1
    pairs = [pair for row in rows for pair in itertools.pairwise(row)]  # every ordered pair equally often
    assert len(set(np.unique(pairs, axis=0, return_counts=True)[1].tolist())) <= 1
    assert len(set(map(tuple, pairs))) == n * (n - 1)


def test_orders_per_participant(tmp_path):
    study = load_study(write_study(tmp_path))
    assert [study.order(k) for k in range(4)] == [[0, 1], [1, 0], [0, 1], [1, 0]]
    random = load_study(write_study(tmp_path, STUDY.replace("counterbalanced", "random\nseed: 5")))
    orders = [random.order(k) for k in range(40)]
    assert orders == [random.order(k) for k in range(40)]  # told again from the seed and the number
    assert {tuple(order) for order in orders} == {(0, 1), (1, 0)}
    fixed = load_study(write_study(tmp_path, STUDY.replace("counterbalanced", "fixed")))
    assert {tuple(fixed.order(k)) for k in range(5)} == {(0, 1)}


def test_a_whole_study_through_the_api(tmp_path):
    study = load_study(write_study(tmp_path))
    app = create_app(Experiment(study, TranscriptStore(tmp_path / "store")))
    runs = {}
    for number, player in enumerate(("p1", "p2")):
        client = signed_in(app, player)
        states = play_study(client, np.random.default_rng(number), answers)
        runs[player] = states
        assert states[0]["rule_number"] is None and states[0]["practice"] is True  # the practice comes first
        asked = [s["rule_number"] for s in states if s["phase"] == "questions"]
        assert sorted(set(asked)) == [1, 2]
        assert any(s["phase"] == "final" for s in states)
        done = client.get("/done")
        assert done.status_code == 200 and "TEST-CODE-42" in done.text
    records = {p: json.loads((tmp_path / f"store/participants/{p}.json").read_text()) for p in ("p1", "p2")}
    assert [records[p]["order"] for p in ("p1", "p2")] == [[0, 1], [1, 0]]  # counterbalanced
    for player, record in records.items():
        assert record["consent"]["given"] is True and record["consent"]["version"] == "v3-2026-11"
        assert record["completed"] is not None
        assert set(record["answers"]) == {"paper/color_match", "paper/clockwise"}
        assert record["final"] == {"strategy": "a plan", "comments": "=HYPERLINK(\"x\")"}
        stored = [json.loads(p.read_text()) for p in sorted((tmp_path / f"store/transcripts/{player}").iterdir())]
        assert [(r["stage"], r["rule"], r["practice"]) for r in stored] == [
            (0, "paper/color_match", True), *[(k + 1, study.rule_stages[i].rule, False)
                                              for k, i in enumerate(record["order"])]]
    assert all(o.passed for o in replay_file(tmp_path / "store/transcripts", tmp_path / "store"))
    scored = human_runs(TranscriptStore(tmp_path / "store"), tmp_path / "runs")
    assert sorted(run.manifest()["name"] for run in scored) == ["human-paper/clockwise", "human-paper/color_match"]
    assert all(read_run(run).errors.shape == (2, 1) for run in scored)  # 2 players x 1 board: practice not scored


def test_moves_wait_for_the_answers(tmp_path):
    app = create_app(Experiment(load_study(write_study(tmp_path)), TranscriptStore(tmp_path / "store")))
    client = signed_in(app, "q1")
    rng = np.random.default_rng(3)
    state = client.get("/api/state").json()
    while state["phase"] == "play" and state["practice"] or state["phase"] == "play" and state["rule_number"] == 1:
        state = client.post("/api/move", json={"piece": state["pieces"][0]["id"],
                                               "bucket": int(rng.integers(4))}).json()["state"]
    assert state["phase"] == "questions" and "pieces" not in state
    refused = client.post("/api/move", json={"piece": 0, "bucket": 0})
    assert refused.status_code == 409 and "answer the questions" in refused.json()["error"]
    for bad, message in (({"guess": "x"}, "'sure' needs an answer"), ({"guess": "x", "sure": 6}, "from 1 to 5"),
                         ({"guess": "x", "sure": "3"}, "from 1 to 5"), ({"guess": "x", "sure": 3, "other": 1}, "ids"),
                         ({"guess": "x" * 4001, "sure": 3}, "at most 4000")):
        reply = client.post("/api/answers", json={"answers": bad})
        assert reply.status_code == 400 and message in reply.json()["error"], (bad, reply.text)
    assert client.get("/api/state").json()["phase"] == "questions"
    assert client.get("/done", follow_redirects=False).headers["location"] == "/play"


def test_a_redirect_completion_sends_the_participant_back(tmp_path):
    text = STUDY.replace("{code: TEST-CODE-42}", "{redirect: 'https://app.example.org/done?cc=42'}")
    text = text.replace("rule_questions:", "unused:").replace("final_questions:", "rule_questions:")
    text = text.replace("unused:", "final_questions:")
    study = load_study(write_study(tmp_path, text.replace("practice: {rule: paper/color_match, boards: 1}\n", "")))
    client = signed_in(create_app(Experiment(study, TranscriptStore(tmp_path / "s"))), "r1")
    play_study(client, np.random.default_rng(0), lambda state: {
        "strategy": "a plan"} if state["phase"] == "questions" else {"guess": "g", "sure": 1})
    done = client.get("/done", follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "https://app.example.org/done?cc=42"


def test_the_bare_rules_keep_working_without_questions(tmp_path):
    from gohr_web import experiment

    client = signed_in(create_app(experiment(tmp_path)), "legacy")
    states = play_study(client, np.random.default_rng(1))
    assert {s["phase"] for s in states} == {"play", "done"}
    assert isinstance(Study.of_stages([]).consent.version, str)
