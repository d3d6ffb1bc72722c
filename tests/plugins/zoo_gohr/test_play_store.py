"""``zoo gohr play --store``: terminal play kept in the store format of ``zoo gohr serve``, scored as ``human``."""

from __future__ import annotations

import io
import json

from zoo_gohr.engine.conformance import replay_file
from zoo_gohr.web.recorded import HumanParams, recorded_trials
from zoo_gohr.web.runs import human_runs
from zoo_gohr.web.store import TranscriptStore
from zoo_gohr_study.errors import read_run

from zoo.cli import main

EVERY_MOVE = "".join(f"{cell} {bucket}\n" for cell in range(1, 37) for bucket in range(4))


def test_terminal_play_is_stored_replayed_and_scored_as_human(tmp_path, monkeypatch, capsys):
    store = tmp_path / "store"
    args = ["gohr", "play", "paper/color_match", "--boards", "2", "--pieces", "4", "--store", str(store),
            "--player", "tess"]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{cell} 0\n" for cell in range(1, 37)) + "q\n"))
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "every move so far is kept" in out
    progress = json.loads((store / "progress/tess.json").read_text())
    kept = len(progress["steps"])
    assert kept >= 1
    monkeypatch.setattr("sys.stdin", io.StringIO(EVERY_MOVE * 4))  # the player comes back and finishes
    assert main(args) == 0
    records = [json.loads(p.read_text()) for p in sorted((store / "transcripts/tess").glob("*.jsonl"))]
    assert [(r["stage"], r["episode"], r["rule"]) for r in records] == [(0, 0, "paper/color_match"),
                                                                       (0, 1, "paper/color_match")]
    assert records[0]["steps"][:kept] == progress["steps"]  # the first sitting's moves were kept
    assert all(o.passed for o in replay_file(store / "transcripts", store))
    trials = recorded_trials(HumanParams(recorded=str(store)), "paper/color_match", {"min_objects": 4}, 100)
    assert list(trials) == ["tess"] and len(trials["tess"]) == 2
    [run] = human_runs(TranscriptStore(store), tmp_path / "runs")
    scored = read_run(run)
    assert run.manifest()["agent"] == "human" and scored.errors.shape == (1, 2)
    assert scored.errors.sum() == sum(r["n_moves"] - r["n_accepted"] for r in records)


def test_a_bad_player_id_is_one_line(tmp_path, capsys):
    assert main(["gohr", "play", "paper/clockwise", "--store", str(tmp_path), "--player", "../x"]) != 0
    err = capsys.readouterr().err
    assert "--player '../x'" in err and "Traceback" not in err
