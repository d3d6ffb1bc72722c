"""The ALE baselines from specs, and the Atari report and comparison over their runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from zoo_atari.baseline_set import agents, baseline_sets
from zoo_atari.report import score_row
from zoo_report.report import compare, report

from zoo import execute_run, prepare_run
from zoo.registry import get_registry

SPEC = """
name: {name}
env: {{type: atari, game: Pong, protocol: {{name: ale2013, max_episode_frames: 600}}}}
agent: {{type: ale-baseline, policy: {policy}, action: {action}}}
budget: {{episodes: 1, eval_episodes: 1}}
trials: 3
logging: {{tensorboard: false, progress: false}}
"""


def train(tmp_path: Path, name: str, policy: str, action="0"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(SPEC.format(name=name, policy=policy, action=action))
    registry = get_registry()
    folder = prepare_run(path, registry, tmp_path / "runs")
    assert execute_run(folder, registry, progress=False) == "finished"
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("atari-report")
    return train(tmp, "random", "random"), train(tmp, "const", "const", "per_trial")


def test_const_plays_one_action_per_trial_and_the_report_normalises(runs, tmp_path):
    random_run, const_run = runs
    results = [json.loads((const_run.trial_dir(t) / "result.json").read_text()) for t in range(3)]
    assert [r["trial"] for r in results] == [0, 1, 2] and all(len(r["eval_returns"]) == 1 for r in results)
    report(get_registry(), list(runs), tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    rows = {row["run"]: row for row in summary["runs"]}
    pong = (-20.7, 14.6)  # random and human scores of the Atari-57 table
    for row in rows.values():
        assert row["game"] == "pong" and row["protocol"]["max_episode_frames"] == 600
        assert row["hns"] == pytest.approx((row["score"] - pong[0]) / (pong[1] - pong[0]))
    assert set(summary["aggregates"]) == {"ale-baseline/random", "ale-baseline/const"}  # keyed by policy
    assert summary["inter_algorithm"] == {}  # no learning agent among them
    best = max(range(3), key=lambda t: rows[const_run.manifest()["id"]]["trial_scores"][t])
    assert summary["best_policies"]["ale-baseline/const"]["pong"]["best_policy"] == f"action {best}"
    text = (tmp_path / "report.md").read_text()
    assert "ale2013 (max_episode_frames=600)" in text and "mean HNS" in text and "IQM HNS" in text
    assert f"| ale-baseline/const | Pong | action {best} | 3 |" in text
    assert "ale-baseline/random" not in text.split("## Const and Perturb")[1]  # Random plays no fixed action
    # the baseline set of pong: the random agent, and one const agent per trial (trial t plays action t)
    random_row, const_row = rows[random_run.manifest()["id"]], rows[const_run.manifest()["id"]]
    members = [np.mean(random_row["trial_scores"]), *const_row["trial_scores"]]
    assert summary["baseline_sets"]["pong"]["scores"] == pytest.approx(members)
    assert summary["baseline_sets"]["pong"]["protocols"] == ["ale2013 (max_episode_frames=600)"]
    low, high = min(members), max(members)
    for row in rows.values():
        expected = (row["score"] - low) / (high - low) if high > low else float("nan")
        assert row["baseline_normalised"] == pytest.approx(expected, nan_ok=True) and row["baseline_set"] == "4 agents, runs"
    assert "baseline-norm." in text


def test_baseline_agents_of_a_run():
    def facts(policy, action, scores):
        return {"agent": {"type": "ale-baseline", "policy": policy, "action": action}, "trial_scores": scores}

    assert agents(facts("const", "per_trial", [1.0, 3.0])) == [1.0, 3.0]
    assert agents(facts("perturb", 4, [2.0, 4.0])) == [3.0] == agents(facts("random", "per_trial", [2.0, 4.0]))
    assert agents({"agent": {"type": "sarsa"}, "trial_scores": [5.0]}) == []


def _facts(game, agent, scores, run=None):
    agent = {"type": "ale-baseline", **agent} if "type" not in agent else agent
    features = agent.get("features", {}).get("type")
    from zoo_atari import reference_agents

    algorithm = reference_agents.algorithm(agent) or agent["type"] + (f"/{features}" if features else "")
    return {"run": run or f"{algorithm}-{game}", "game": game, "protocol": {"name": "ale2013"}, "agent": agent,
            "algorithm": algorithm, "source": "eval", "trial_scores": scores}


# A hand-made report: two learners, Random, Const and Perturb (3 actions each, one per trial) on two games.
# Const's best action differs per game (1 on pong, 2 on freeway) and from its best action over both (2).
HAND_MADE = [
    _facts("pong", {"type": "sarsa", "features": {"type": "basic"}}, [2.0, 2.0, 2.0]),
    _facts("pong", {"type": "sarsa", "features": {"type": "bass"}}, [4.0, 4.0, 4.0]),
    _facts("freeway", {"type": "sarsa", "features": {"type": "basic"}}, [10.0, 10.0, 10.0]),
    _facts("freeway", {"type": "sarsa", "features": {"type": "bass"}}, [30.0, 30.0, 30.0]),
    _facts("pong", {"policy": "random"}, [-2.0, 0.0]),
    _facts("freeway", {"policy": "random"}, [0.0, 0.0]),
    _facts("pong", {"policy": "const", "action": "per_trial"}, [0.0, 6.0, 3.0]),
    _facts("freeway", {"policy": "const", "action": "per_trial"}, [12.0, 1.0, 25.0]),
    _facts("pong", {"policy": "perturb", "action": "per_trial"}, [2.0, 5.0, 1.0]),
    _facts("freeway", {"policy": "perturb", "action": "per_trial"}, [11.0, 0.5, 24.0]),
]


def test_the_report_keys_baselines_by_policy_and_scores_const_and_perturb_by_the_best_action_per_game():
    from zoo_atari.report import summarise

    _, groups, summary = summarise(HAND_MADE)
    assert set(groups) == {"sarsa/basic", "sarsa/bass", "ale-baseline/random", "ale-baseline/const",
                           "ale-baseline/perturb"}
    best = summary["best_policies"]
    assert {game: (b["best_policy"], b["score"], b["policies"]) for game, b in best["ale-baseline/const"].items()} == {
        "pong": ("action 1", 6.0, 3), "freeway": ("action 2", 25.0, 3)}
    assert {game: b["best_policy"] for game, b in best["ale-baseline/perturb"].items()} == {
        "pong": "action 1", "freeway": "action 2"}
    const = {row["game"]: row for row in groups["ale-baseline/const"]}
    assert const["pong"]["trial_scores"] == [6.0] and const["freeway"]["score"] == 25.0


def test_a_fixed_action_run_is_one_policy_and_the_best_of_several_runs_is_kept():
    from zoo_atari.reference_agents import best_per_game

    runs = [_facts("pong", {"policy": "const", "action": a}, scores, run=f"const-{a}")
            for a, scores in ((0, [1.0, 3.0]), (4, [5.0, 1.0, 3.0]), (7, [2.0, 2.0]))]
    (best,) = best_per_game(runs)
    assert (best["run"], best["best_policy"], best["trial_scores"], best["policies"]) == ("const-4", "action 4",
                                                                                          [5.0, 1.0, 3.0], 3)


def test_the_reference_agents_make_the_baseline_set_and_stay_out_of_the_inter_algorithm_range():
    from zoo_atari.report import summarise

    rows, groups, summary = summarise(HAND_MADE)
    # baseline set of pong: Random's mean -1, Const 0 6 3, Perturb 2 5 1 (the learners are not in it)
    assert sorted(summary["baseline_sets"]["pong"]["scores"]) == [-1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 6.0]
    assert sorted(summary["baseline_sets"]["freeway"]["scores"]) == [0.0, 0.5, 1.0, 11.0, 12.0, 24.0, 25.0]
    normalised = {(r["algorithm"], r["game"]): r["baseline_normalised"] for group in groups.values() for r in group}
    assert normalised[("sarsa/bass", "freeway")] == pytest.approx(30 / 25)  # above every baseline agent
    assert normalised[("sarsa/bass", "pong")] == pytest.approx(5 / 7)
    assert normalised[("ale-baseline/const", "pong")] == pytest.approx(1.0)  # its best action is the set's maximum
    # inter-algorithm: the range of each game over the two learners only
    assert summary["inter_algorithm"] == {
        "sarsa/basic": {"games": 2, "mean": 0.0, "median": 0.0},
        "sarsa/bass": {"games": 2, "mean": 1.0, "median": 1.0}}
    assert summary["aggregates"]["ale-baseline/const"]["baseline_normalised"]["mean"] == pytest.approx(1.0)


def test_the_planners_stay_out_of_the_inter_algorithm_range_and_get_the_planning_table():
    from zoo_atari.report import summarise

    uct = [_facts(game, {"type": "uct"}, [score, score]) for game, score in (("pong", 50.0), ("freeway", 90.0))]
    _, groups, summary = summarise(HAND_MADE + uct)
    assert "uct" in groups  # aggregated beside the learners...
    assert summary["inter_algorithm"] == {  # ...but normalised over the learners only (Section 4.1.3)
        "sarsa/basic": {"games": 2, "mean": 0.0, "median": 0.0},
        "sarsa/bass": {"games": 2, "mean": 1.0, "median": 1.0}}
    planning = {entry["game"]: entry for entry in summary["planning"]}
    assert planning["pong"]["uct"] == 50.0 and planning["pong"]["bfs"] is None
    assert planning["freeway"]["best_learner"] == ("sarsa/bass", 30.0)


def test_without_baseline_runs_the_ale_table_gives_a_three_agent_proxy():
    sarsa = {"game": "freeway", "agent": {"type": "sarsa"}, "trial_scores": [11.0, 11.5], "protocol": {"name": "ale2013"}}
    sets = baseline_sets([sarsa])
    assert sets["freeway"]["scores"] == [0.0, 21.0, 22.5]  # random, best const, best perturb of the ALE paper
    row = score_row(sarsa, sets)
    assert row["baseline_normalised"] == pytest.approx(0.5) and row["baseline_set"] == "3 agents, ale-scores.csv (proxy)"


def test_compare_runs_a_welch_test(runs):
    text = compare(get_registry(), *runs)
    assert "Welch t =" in text and "HNS" in text


def test_the_atari_report_has_learning_curves_and_no_test_below_three_trials(runs, tmp_path):
    written = report(get_registry(), list(runs), tmp_path)
    assert tmp_path / "learning_curves.png" in written and (tmp_path / "learning_curves.png").stat().st_size > 1000
    two_trials = tmp_path / "copy"
    import shutil

    shutil.copytree(runs[0].path, two_trials)
    shutil.rmtree(two_trials / "trials" / "002")
    from zoo.store import RunFolder

    text = compare(get_registry(), RunFolder(two_trials), runs[1])
    assert "no test: a significance test needs at least 3 trials per run (here 2 and 3)" in text and "Welch" not in text


def test_perturb_keeps_its_action_at_rate_095():
    from types import SimpleNamespace

    from zoo_atari.baselines import BaselineAgent, BaselineParams

    env = SimpleNamespace(action_space=SimpleNamespace(n=18), close=lambda: None)
    context = SimpleNamespace(seed=0, trial=5, make_env=lambda seed: env)
    agent = BaselineAgent(BaselineParams(policy="perturb", action="per_trial"), context)
    rng = np.random.default_rng(0)
    actions = np.array([agent.act(rng) for _ in range(20_000)])
    kept = np.mean(actions == 5)  # 0.95 + 0.05 / 18 when the random draw lands on it
    expected = 0.95 + 0.05 / 18
    assert abs(kept - expected) < 3 * np.sqrt(expected * (1 - expected) / 20_000)
