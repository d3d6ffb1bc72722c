"""The study's measure and its reading: TCE on hand-computed trials, and harder means more errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml
from zoo_dqn.agent import LinearDQNAgent
from zoo_dqn.params import LinearDQNParams
from zoo_gohr.plugin import GohrEnvParams, make_env
from zoo_gohr_study.errors import read_run
from zoo_gohr_study.leaderboard.readout import read_cell
from zoo_gohr_study.leaderboard.scoring import cell_summary
from zoo_gohr_study.reporter import labelled, summarize

from zoo.agent import TrialContext
from zoo.metrics import MetricLogger
from zoo.store import RunFolder, create_run_folder


def _run(tmp_path, label: str, returns: list[list[float]]) -> RunFolder:
    """A finished GOHR run whose trial t logged the episode returns `returns[t]` (and a loss row between)."""
    spec = {"env": {"type": "gohr", "rule": "paper/clockwise", "board": {"min_objects": 9}}, "agent": {"type": "gohr-linear-dqn"}}
    folder = create_run_folder(tmp_path / label, {"spec.yaml": yaml.safe_dump(spec)},
                               {"env": "gohr", "agent": "gohr-linear-dqn", "status": "finished", "name": label})
    for t, trial in enumerate(returns):
        logger = MetricLogger(folder.trial_dir(t))
        for episode, value in enumerate(trial):
            logger.log(10 * episode + 5, loss=0.5)
            logger.log(10 * episode + 9, episode_return=value, episode_errors=-value)
        logger.close()
    return folder


def test_tce_of_hand_computed_trials(tmp_path):
    # errors per episode: trial 0 5, 2, 0, 1, 4 (the curves stop at the fourth episode, which every trial
    # finished; its TCE counts all five); trial 1 3, 3, 1, 0; trial 2 9, 0, 0, 0
    run = read_run(_run(tmp_path, "hand", [[-5, -2, 0, -1, -4], [-3, -3, -1, 0], [-9, 0, 0, 0]]))
    assert run.errors.tolist() == [[5, 2, 0, 1], [3, 3, 1, 0], [9, 0, 0, 0]]
    assert run.cumulative.tolist() == [[5, 7, 7, 8], [3, 6, 7, 7], [9, 9, 9, 9]]
    assert run.tce.tolist() == [12, 7, 9]
    assert summarize([run])["runs"][0]["median_tce"] == 9


@pytest.mark.parametrize("budget, expected", [({"steps": 25}, [7, 6, 9]), ({"episodes": 1}, [5, 3, 9]),
                                              ({"steps": 1000}, [12, 7, 9])])
def test_the_report_and_the_leaderboard_give_a_run_the_same_tce(tmp_path, budget, expected):
    # episodes end at moves 9, 19, 29, ...: a budget of 25 moves counts the first two of every trial
    folder = _run(tmp_path, "hand", [[-5, -2, 0, -1, -4], [-3, -3, -1, 0], [-9, 0, 0, 0]])
    spec = yaml.safe_load((folder.path / "spec.yaml").read_text())
    (folder.path / "spec.yaml").write_text(yaml.safe_dump({**spec, "budget": budget}))
    report = summarize(labelled([folder]))["runs"][0]
    cell = read_cell(folder, "agent", "paper/clockwise")
    assert read_run(folder).tce.tolist() == cell.tce.tolist() == expected
    assert report["median_tce"] == cell_summary(cell, resamples=10, seed=0)["median_errors"] == float(np.median(expected))


def test_the_agent_logs_each_episodes_rejected_moves_as_its_errors(tmp_path):
    params = GohrEnvParams(rule="paper/clockwise", horizon=4)
    context = TrialContext(seed=2, trial=0, directory=tmp_path, env_params=params, make_env=lambda s: make_env(params, s),
                           logger=MetricLogger(tmp_path), budget=None)
    agent = LinearDQNAgent(LinearDQNParams(batch_size=8, replay_size=100), [context])
    agent.learn(40)  # ten truncated episodes of four moves (nine pieces cannot be cleared in four)
    context.logger.close()
    logged = [row["episode_errors"] for row in map(json.loads, (tmp_path / "metrics.jsonl").read_text().splitlines())
              if "episode_errors" in row]
    rejected = (agent.replay.arrays["reward"][0, :40] < 0).reshape(10, 4).sum(1)
    assert logged == rejected.tolist() and 0 < sum(logged) < 40


def test_the_run_with_more_errors_is_the_harder_one(tmp_path):
    rng = np.random.default_rng(0)
    hard = [[-e for e in rng.poisson(6, 5)] for _ in range(12)]
    easy = [[-e for e in rng.poisson(2, 5)] for _ in range(12)]
    summary = summarize(labelled([_run(tmp_path, "easy", easy), _run(tmp_path, "hard", hard)]))
    rows = {row["label"]: row for row in summary["runs"]}
    assert rows["hard"]["median_tce"] > rows["easy"]["median_tce"]
    assert summary["difficulty_order"] == ["hard", "easy"]
    adjacent = summary["adjacent_u_tests"]
    assert [(t["harder"], t["easier"]) for t in adjacent] == [("hard", "easy")] and adjacent[0]["p"] < 1e-4
    assert summary["u_test_p_harder"]["easy"]["hard"] > 0.999
    # both rankings give the easier run the larger score
    assert rows["easy"]["perron"] > rows["hard"]["perron"] and rows["easy"]["hodge"] > rows["hard"]["hodge"]
    assert summary["ease_ratio"]["easy"]["hard"] > 1 > summary["ease_ratio"]["hard"]["easy"]


@pytest.mark.parametrize("order", [["easy", "hard"], ["hard", "easy"]])
def test_the_order_does_not_depend_on_the_order_runs_are_given(tmp_path, order):
    returns = {"hard": [[-4, -4], [-5, -3], [-6, -2]], "easy": [[-1, 0], [-2, 0], [0, -1]]}
    summary = summarize(labelled([_run(tmp_path, label, returns[label]) for label in order]))
    assert summary["difficulty_order"] == ["hard", "easy"]
