"""Boards normalized by a plugin's score table: Atari's random and human scores, read per game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from zoo_board.board import load_board
from zoo_board.cells import CellState
from zoo_board.outputs import markdown
from zoo_board.readout import read_cell
from zoo_board.scores import build

from zoo import SpecError
from zoo.registry import get_registry
from zoo.store import RunFolder

pytest.importorskip("ale_py")

PROTOCOL = {"name": "machado2018"}
# Atari-57's random and human scores (the GDI paper's table): Breakout 1.7 and 30.5, Pong -20.7 and 14.6
RETURNS = {("a", "breakout"): [1.7, 30.5], ("a", "pong"): [-3.05, -3.05],
           ("b", "breakout"): [16.1, 16.1], ("b", "pong"): [14.6, 14.6]}
BOARD = {
    "name": "atari-hand",
    "tasks": {"breakout": {"type": "atari", "game": "Breakout", "protocol": PROTOCOL},
              "pong": {"type": "atari", "game": "pong", "protocol": PROTOCOL}},
    "budget": {"steps": 100, "eval_episodes": 1},
    "trials": 2,
    "agents": {"a": {"agent": {"type": "random"}}, "b": {"agent": {"type": "random"}, "budget": {"steps": 200, "eval_episodes": 1}}},
    "scores": {"random": {"table": "atari", "column": "random"}, "reference": {"table": "atari", "column": "human"},
               "bootstraps": 100},
}


def _results(tmp_path: Path, board: dict) -> dict:
    path = tmp_path / "board.yaml"
    path.write_text(json.dumps(board))  # JSON is YAML, with no aliases
    loaded = load_board(path, get_registry())
    states, cells = [], {}
    for plan in loaded.cells:
        folder = tmp_path / "runs" / plan.run_name
        for trial, value in enumerate(RETURNS[(plan.agent, plan.task)]):
            directory = folder / "trials" / str(trial)
            directory.mkdir(parents=True)
            (directory / "result.json").write_text(json.dumps({"eval_mean": value, "eval_returns": [value]}))
            (directory / "metrics.jsonl").write_text(json.dumps({"step": 10, "episode_return": value}) + "\n")
        states.append(CellState(plan, folder, "cached", "finished"))
        cells[(plan.agent, plan.task)] = read_cell(RunFolder(folder), plan.agent, plan.task)
    return build(loaded, states, cells, tmp_path / "out")


def test_human_normalized_scores_come_from_the_atari_table_per_game(tmp_path):
    results = _results(tmp_path, BOARD)
    norms = results["normalization"]
    assert (norms["breakout"]["random"], norms["breakout"]["reference"]) == (1.7, 30.5)
    assert (norms["pong"]["random"], norms["pong"]["reference"]) == (-20.7, 14.6)
    assert norms["pong"]["reference_from"] == "atari:human"
    cells = {(c["agent"], c["task"]): c["normalized"] for c in results["cells"]}
    # (mean - random) / (human - random), by hand
    assert cells[("a", "breakout")] == pytest.approx((16.1 - 1.7) / (30.5 - 1.7))
    assert cells[("a", "pong")] == pytest.approx((-3.05 + 20.7) / (14.6 + 20.7))
    assert cells[("b", "pong")] == pytest.approx(1.0)
    assert results["aggregates"]["tasks"] == ["breakout", "pong"]
    assert "0: random play (atari:random), 1: the reference (atari:human)" in markdown(results)


def test_a_table_anchor_mixes_with_an_agent_anchor(tmp_path):
    board = {**BOARD, "scores": {"random": "a", "reference": {"table": "atari", "column": "record"}}}
    norms = _results(tmp_path, board)["normalization"]
    assert norms["breakout"]["random_from"] == "a" and norms["breakout"]["random"] == pytest.approx(16.1)
    assert norms["breakout"]["reference"] == 864.0  # Breakout's human world record


@pytest.mark.parametrize("scores, message", [
    ({"random": {"table": "atary", "column": "random"}}, "unknown score table 'atary'"),
    ({"reference": {"table": "atari", "column": "humans"}}, "score table atari has no column 'humans'; columns: "
                                                            "random, human, record"),
    ({"reference": {"table": "atari", "column": "human", "game": "pong"}},
     "scores.reference: a score table's column is {table: NAME, column: COLUMN}, nothing else"),
])
def test_a_table_anchor_that_names_nothing_is_refused_at_its_place(tmp_path, scores, message):
    path = tmp_path / "board.yaml"
    path.write_text(json.dumps({**BOARD, "scores": scores}))  # JSON is YAML, with no aliases
    with pytest.raises(SpecError) as caught:
        load_board(path, get_registry())
    assert message in str(caught.value) and "board.yaml:" in str(caught.value)


def test_a_task_the_table_has_no_score_for_is_refused_naming_it(tmp_path):
    board = {**BOARD, "tasks": {**BOARD["tasks"], "cartpole": {"type": "gym", "id": "CartPole-v1"}}}
    path = tmp_path / "board.yaml"
    path.write_text(json.dumps(board))  # JSON is YAML, with no aliases
    with pytest.raises(SpecError, match="score table atari has no random score for task cartpole"):
        load_board(path, get_registry())
