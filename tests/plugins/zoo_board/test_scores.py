"""A board's scores on hand-built run folders: per-cell readout, normalization, the results JSON's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from zoo_board.board import load_board
from zoo_board.cells import CellState
from zoo_board.outputs import html, markdown
from zoo_board.readout import learning_curve, read_cell
from zoo_board.scores import build, mean_band

from zoo.registry import get_registry
from zoo.store import RunFolder

# final evaluation returns of every trial: random play, the reference and a third agent, on two tasks
RETURNS = {
    ("random", "cartpole"): [10.0, 20.0], ("random", "acrobot"): [-500.0, -500.0],
    ("ref", "cartpole"): [110.0, 90.0], ("ref", "acrobot"): [-100.0, -100.0],
    ("mid", "cartpole"): [57.5, 57.5], ("mid", "acrobot"): [-400.0, -200.0],
}
BOARD = {
    "name": "hand",
    "tasks": {"cartpole": {"type": "gym", "id": "CartPole-v1"}, "acrobot": {"type": "gym", "id": "Acrobot-v1"}},
    "budget": {"steps": 100, "eval_episodes": 3},
    "trials": 2,
    "agents": {"random": {"agent": {"type": "random"}}, "ref": {"agent": {"type": "random"}, "budget":
                                                              {"steps": 200, "eval_episodes": 3}},
               "mid": {"agent": {"type": "random"}, "budget": {"steps": 300, "eval_episodes": 3}}},
    "scores": {"random": "random", "reference": "ref", "bootstraps": 200},
}


def _run_folder(folder: Path, returns: list[float], episodes: list[list[tuple[int, float]]]) -> None:
    for trial, (value, rows) in enumerate(zip(returns, episodes)):
        directory = folder / "trials" / str(trial)
        directory.mkdir(parents=True)
        (directory / "result.json").write_text(json.dumps({"eval_mean": value, "eval_returns": [value] * 3}))
        (directory / "metrics.jsonl").write_text("".join(json.dumps({"step": s, "episode_return": r}) + "\n"
                                                         for s, r in rows))


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("board")
    path = tmp_path / "board.yaml"
    path.write_text(yaml.safe_dump(BOARD, sort_keys=False))
    loaded = load_board(path, get_registry())
    states, cells = [], {}
    for plan in loaded.cells:
        folder = tmp_path / "runs" / plan.run_name
        _run_folder(folder, RETURNS[(plan.agent, plan.task)], [[(10, 1.0), (20, 3.0)], [(15, 5.0)]])
        states.append(CellState(plan, folder, "cached", "finished"))
        cells[(plan.agent, plan.task)] = read_cell(RunFolder(folder), plan.agent, plan.task)
    return build(loaded, states, cells, tmp_path / "out")


def test_each_cell_reads_its_trials_final_evaluation_and_training_episodes(tmp_path):
    _run_folder(tmp_path, [4.0, 6.0], [[(10, 1.0), (20, 3.0)], [(15, 5.0)]])
    cell = read_cell(RunFolder(tmp_path), "a", "t")
    assert cell.returns.tolist() == [4.0, 6.0]
    assert [e.tolist() for e in cell.episodes] == [[[10, 1.0], [20, 3.0]], [[15, 5.0]]]


def test_the_learning_curve_averages_the_episodes_since_the_last_point_and_carries_it_forward():
    trials = [np.array([[10, 1.0], [20, 3.0], [25, 5.0]]), np.array([[15, 5.0]])]
    curves = learning_curve(trials, np.array([5.0, 20.0, 30.0, 40.0]))
    assert np.array_equal(curves, [[np.nan, 2.0, 5.0, 5.0], [np.nan, 5.0, 5.0, 5.0]], equal_nan=True)
    mean, low, high = mean_band(curves, resamples=50, seed=0)
    assert np.array_equal(mean, [np.nan, 3.5, 5.0, 5.0], equal_nan=True)
    assert low[1] == 2.0 and high[1] == 5.0 and low[2] == high[2] == 5.0


def test_normalization_comes_from_the_random_and_reference_agents_cells(results):
    assert results["normalization"]["cartpole"] == {"random": 15.0, "random_from": "random", "reference": 100.0,
                                                    "reference_from": "ref", "problem": None}
    assert results["normalization"]["acrobot"]["random"] == -500.0
    cells = {(c["agent"], c["task"]): c for c in results["cells"]}
    assert cells[("mid", "cartpole")]["mean"] == 57.5
    assert cells[("mid", "cartpole")]["normalized"] == pytest.approx(0.5)  # (57.5 - 15) / (100 - 15)
    assert cells[("mid", "acrobot")]["normalized"] == pytest.approx(0.5)  # (-300 + 500) / (-100 + 500)
    assert cells[("ref", "cartpole")]["normalized"] == 1.0 and cells[("random", "acrobot")]["normalized"] == 0.0
    assert cells[("random", "cartpole")]["mean_ci95"] == [10.0, 20.0]  # the bootstrap of two trials' mean
    assert cells[("mid", "cartpole")]["spec"] == f"specs/{cells[('mid', 'cartpole')]['run'].split('/')[-1]}.yaml"


def test_the_aggregates_are_rliables_over_the_normalized_returns(results):
    agg = results["aggregates"]
    assert agg["tasks"] == ["cartpole", "acrobot"] and agg["agents"] == ["random", "ref", "mid"]
    assert agg["runs"] == {"random": 2, "ref": 2, "mid": 2}
    # mid's normalized runs: cartpole (0.5, 0.5), acrobot (0.25, 0.75); pooled and sorted 0.25 0.5 0.5 0.75
    mid = agg["aggregates"]["mid"]
    assert mid["iqm"]["value"] == pytest.approx(0.5) and mid["mean"]["value"] == pytest.approx(0.5)
    assert mid["optimality_gap"]["value"] == pytest.approx(0.5)
    # random's normalized runs: cartpole (-5/85, 5/85), acrobot (0, 0)
    assert agg["aggregates"]["random"]["mean"]["value"] == pytest.approx(0.0, abs=1e-12)
    assert agg["aggregates"]["ref"]["mean"]["value"] == pytest.approx(1.0)
    pairs = {(p["x"], p["y"]): p["value"] for p in agg["improvement"]}
    assert pairs[("ref", "mid")] == 1.0 and pairs[("mid", "random")] == 1.0 and pairs[("random", "ref")] == 0.0
    assert set(agg["profiles"]) == {"random", "ref", "mid"}
    assert results["warnings"] == []


def test_too_few_trials_and_unnormalized_tasks_are_warned_of(tmp_path):
    board = {**BOARD, "trials": 1, "scores": {"random": "random", "reference": {"cartpole": 100.0, "acrobot": "random"},
                                                "bootstraps": 200}}
    path = tmp_path / "board.yaml"
    path.write_text(yaml.safe_dump(board, sort_keys=False))
    loaded = load_board(path, get_registry())
    states, cells = [], {}
    for plan in loaded.cells:
        folder = tmp_path / "runs" / plan.run_name
        trials = plan.spec.trials
        _run_folder(folder, RETURNS[(plan.agent, plan.task)][:trials], [[(10, 1.0)]] * trials)
        states.append(CellState(plan, folder, "cached", "finished"))
        cells[(plan.agent, plan.task)] = read_cell(RunFolder(folder), plan.agent, plan.task)
    results = build(loaded, states, cells, tmp_path / "out")
    assert "random on cartpole: 1 trial, too few for an interval" in results["warnings"]
    assert "task acrobot is left out of the aggregates: the reference score equals random play's (-500)" in \
        results["warnings"]
    assert any(w.startswith("agent mid has 1 trial per task") for w in results["warnings"])
    assert results["aggregates"]["tasks"] == ["cartpole"]
    cells = {(c["agent"], c["task"]): c for c in results["cells"]}
    assert cells[("mid", "cartpole")]["mean_ci95"] is None
    assert cells[("mid", "cartpole")]["normalized"] == pytest.approx((57.5 - 10.0) / 90.0)


def _results(tmp_path, board: dict) -> dict:
    tmp_path.mkdir()
    path = tmp_path / "board.yaml"
    path.write_text(yaml.safe_dump(board, sort_keys=False))
    loaded = load_board(path, get_registry())
    states, cells = [], {}
    for plan in loaded.cells:
        folder = tmp_path / "runs" / plan.run_name
        _run_folder(folder, RETURNS[(plan.agent, plan.task)], [[(10, 1.0)]] * 2)
        states.append(CellState(plan, folder, "cached", "finished"))
        cells[(plan.agent, plan.task)] = read_cell(RunFolder(folder), plan.agent, plan.task)
    return build(loaded, states, cells, tmp_path / "out")


def test_an_agent_that_plays_some_tasks_has_cells_only_there_and_aggregates_over_the_tasks_chosen(tmp_path):
    agents = {**BOARD["agents"], "mid": {**BOARD["agents"]["mid"], "tasks": ["cartpole"]}}
    results = _results(tmp_path / "all", {**BOARD, "agents": agents, "scores": {**BOARD["scores"], "bootstraps": 20}})
    assert [(c["agent"], c["task"]) for c in results["cells"] if c["agent"] == "mid"] == [("mid", "cartpole")]
    assert "agent mid is left out of the aggregates: it does not play acrobot" in results["warnings"]
    assert results["aggregates"]["agents"] == ["random", "ref"]
    assert "| acrobot | -500 | -100 | [-500](specs/" in markdown(results) and " | - |" in markdown(results)
    assert "<td title='the agent does not play this task'>-</td>" in html(results, tmp_path)
    chosen = _results(tmp_path / "chosen", {**BOARD, "agents": agents, "scores": {
        **BOARD["scores"], "bootstraps": 20, "aggregate_tasks": ["cartpole"]}})
    assert chosen["aggregates"]["tasks"] == ["cartpole"] and chosen["aggregates"]["agents"] == ["random", "ref", "mid"]
    assert chosen["aggregates"]["aggregates"]["mid"]["mean"]["value"] == pytest.approx(0.5) and not chosen["warnings"]
