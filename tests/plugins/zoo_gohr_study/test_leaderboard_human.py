"""People on a leaderboard: the agent 'human', read from a 'zoo gohr serve' store, beside a machine agent.

The players play through the web app's API (Starlette's test client); the human column's numbers are
checked against errors counted from the verdicts the players were given.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from gohr_web import experiment, play_everything, signed_in
from zoo_gohr.web.app import create_app
from zoo_gohr_study.leaderboard.scoring import CNM_OFFSET

from zoo.cli import main
from zoo.errors import SpecError
from zoo.registry import get_registry

PIECES = 4
BOARD = {
    "name": "people",
    "env": {"type": "gohr", "horizon": 100, "board": {"min_objects": PIECES}},
    "rules": ["paper/color_match", "paper/clockwise"],
    "budget": {"episodes": 3},
    "trials": 3,
    "logging": {"tensorboard": False, "progress": False},
    "agents": {"random": {"agent": {"type": "random-legal"}}},
    "metrics": {"bootstraps": 50, "ranking_bootstraps": 5, "cnm": "errors"},
}


def _play(store: Path, player: str, rules: tuple[str, ...], seed: int, pieces: int = PIECES,
          max_moves: int = 100) -> list[list[bool]]:
    """`player` plays every board of `rules` with random moves; the verdicts they saw, board by board."""
    client = signed_in(create_app(experiment(store, rules=rules, pieces=pieces, max_moves=max_moves)), player)
    boards, current = [], []
    for move in play_everything(client, np.random.default_rng(seed)):
        current.append(move["accepted"])
        if "board_over" in move:
            boards.append(current)
            current = []
    return boards


def _board(tmp_path: Path, store: Path, players: list[str] | None = None, **human) -> Path:
    board = json.loads(json.dumps(BOARD))
    board["agents"]["human"] = {"agent": {"type": "human", "recorded": str(store)}, **human}
    if players:  # a second column: only some of the players
        board["agents"]["some"] = {"agent": {"type": "human", "recorded": str(store), "players": players}, **human}
    path = tmp_path / "board.yaml"
    path.write_text(yaml.safe_dump(board, sort_keys=False))
    return path


def _leaderboard(tmp_path: Path, path: Path, capsys) -> tuple[int, str, dict]:
    capsys.readouterr()
    code = main(["leaderboard", str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress"])
    out = tmp_path / "runs" / "leaderboards" / "people" / "leaderboard.json"
    return code, capsys.readouterr().err, json.loads(out.read_text()) if out.exists() else {}


def test_players_are_the_trials_of_the_human_column_and_scored_like_agents(tmp_path, capsys):
    store = tmp_path / "study-1"
    # three players play four boards of Color Match; only one of them goes on to Clockwise
    seen = {player: _play(store, player, ("paper/color_match 4",) + (("paper/clockwise 2",) if player == "ann" else ()),
                          seed) for seed, player in enumerate(("ann", "ben", "cat"))}
    # play on other board settings or with boards cut at another number of moves is not these cells'
    _play(store, "dan", ("paper/color_match 4",), 3, pieces=PIECES + 1)
    _play(store, "eve", ("paper/color_match 4",), 4, max_moves=50)
    code, log, results = _leaderboard(tmp_path, _board(tmp_path, store, ["ann", "cat"], trials=2), capsys)
    assert code == 0, log
    assert "human on paper/color_match (new)" in log and "human on paper/clockwise" not in log
    cells = {(c["agent"], c["rule"]): c for c in results["cells"]}

    # the budget of 3 episodes cuts every player's fourth board, as it cuts an agent's episodes
    errors = {player: [sum(not v for v in board) for board in boards[:3]] for player, boards in seen.items()}
    human = cells[("human", "paper/color_match")]
    assert human["state"] == "scored" and human["trials"] == 3
    assert human["tce"] == [sum(errors[p]) for p in ("ann", "ben", "cat")]  # a trial per player, by id
    assert human["curve"]["median"] == np.median([np.cumsum(errors[p]) for p in errors], axis=0).tolist()
    assert cells[("some", "paper/color_match")]["tce"] == [sum(errors["ann"]), sum(errors["cat"])]
    # the authors' convergence test over 3 boards of 4 pieces allows no error at all
    assert human["converged"] == sum(sum(e) == 0 for e in errors.values())

    # one player on Clockwise is fewer than the column's 2: shown as such, never scored or compared
    short = cells[("human", "paper/clockwise")]
    assert short["state"] == "too few trials" and "median" not in short
    assert "1 player(s) played paper/clockwise" in short["error"] and "at least 2" in short["error"]
    assert "paper/clockwise" not in results["per_rule"]
    assert "human on paper/clockwise: too few trials" in (tmp_path / "runs/leaderboards/people/leaderboard.md").read_text()

    # the ease ratio against the random player from the trial pairs each won (ties 1/2), counted by hand; over
    # 3 boards a trial converges only without errors, and with cnm: errors the others follow, ordered by errors
    def ranked(tce):
        return [t + (CNM_OFFSET if t else 0) for t in tce]

    human_ranked, random_ranked = ranked(human["tce"]), ranked(cells[("random", "paper/color_match")]["tce"])
    wins = sum((a < b) + 0.5 * (a == b) for a in human_ranked for b in random_ranked)
    losses = len(human_ranked) * len(random_ranked) - wins
    assert results["per_rule"]["paper/color_match"]["ease_ratio"]["human"]["random"] == \
        pytest.approx((wins + 1) / (losses + 1), rel=1e-9)
    assert {row["name"] for row in results["agent_ranking"]["ranking"]} == {"random", "human", "some"}


def test_the_human_column_is_cached_until_players_are_added(tmp_path, capsys):
    store = tmp_path / "study-1"
    for seed, player in enumerate(("ann", "ben")):
        _play(store, player, ("paper/clockwise 3",), seed)
    path = _board(tmp_path, store, trials=2)
    code, log, first = _leaderboard(tmp_path, path, capsys)
    assert code == 0, log
    assert log.count("(new)") == 3  # random on both rules and human on Clockwise; human on Color Match is short
    code, log, again = _leaderboard(tmp_path, path, capsys)
    assert code == 0 and "(new)" not in log and again == first
    _play(store, "cat", ("paper/clockwise 3", "paper/color_match 1"), 7)
    code, log, third = _leaderboard(tmp_path, path, capsys)
    assert code == 0 and log.count("(new)") == 1 and "human on paper/clockwise (new)" in log
    cells = {(c["agent"], c["rule"]): c for c in third["cells"]}
    assert cells[("human", "paper/clockwise")]["trials"] == 3
    assert cells[("human", "paper/color_match")]["state"] == "too few trials"
    assert main(["leaderboard", str(path), "--runs-dir", str(tmp_path / "runs"), "--dry-run"]) == 0
    assert "4 cells: 3 cached, 0 to resume, 0 new, 1 with too few trials" in capsys.readouterr().out


def test_a_board_names_a_missing_store_at_its_line(tmp_path):
    path = _board(tmp_path, tmp_path / "nowhere")
    with pytest.raises(SpecError) as caught:
        from zoo_gohr_study.leaderboard.board import load_board

        load_board(path, get_registry())
    [problem] = caught.value.problems
    assert problem.field == "agents.human.agent.recorded" and problem.line is not None
    assert "not a transcript store" in problem.message


def test_zoo_train_refuses_the_human_agent_and_writes_nothing(tmp_path, capsys):
    store = tmp_path / "study-1"
    _play(store, "ann", ("paper/clockwise 1",), 0)
    spec = tmp_path / "people.yaml"
    spec.write_text(yaml.safe_dump({"env": {"type": "gohr", "rule": "paper/clockwise"},
                                    "agent": {"type": "human", "recorded": str(store)},
                                    "budget": {"episodes": 1}}))
    capsys.readouterr()
    assert main(["train", str(spec), "--runs-dir", str(tmp_path / "runs")]) != 0
    err = capsys.readouterr().err
    assert "agent 'human' is people's recorded play" in err and "cannot be trained" in err
    assert "zoo gohr human-runs" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_a_damaged_store_is_named_in_one_line_and_nothing_is_published(tmp_path, capsys):
    store = tmp_path / "study-1"
    _play(store, "ann", ("paper/clockwise 1",), 0)
    path = _board(tmp_path, store)
    rule_copy = store / "rules/paper/clockwise.txt"
    rule_copy.write_text(rule_copy.read_text() + "\n(*, *, *, *, [0])\n")
    code, log, results = _leaderboard(tmp_path, path, capsys)
    assert code != 0 and results == {} and len(log.strip().splitlines()) == 1
    assert "the store's copy of rule 'paper/clockwise' differs from the rule the board plays" in log
    rule_copy.unlink()
    [transcript] = (store / "transcripts/ann").glob("*.jsonl")
    transcript.write_text('{"player": "ann"')
    code, log, results = _leaderboard(tmp_path, path, capsys)
    assert code != 0 and results == {} and f"{transcript}: not a readable transcript" in log
