"""The cross-task aggregates against values computed by hand on small inputs."""

import numpy as np
import pytest
from zoo_board.aggregates import (
    aggregate_estimates,
    improvement_probabilities,
    normalized,
    performance_profiles,
    probability_of_improvement,
    too_few_runs,
)

# two agents, three runs (rows) on each of three tasks (columns), already normalized
SCORES = {
    "a": np.array([[0.0, 2.0, 1.0], [3.0, 4.0, 1.0], [6.0, 100.0, 1.0]]),
    "b": np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [2.0, 2.0, 1.0]]),
}


def test_normalization_maps_random_to_zero_and_reference_to_one():
    assert normalized(np.array([10.0, 30.0, 50.0]), random=10.0, reference=50.0).tolist() == [0.0, 0.5, 1.0]
    # a reference below random (a cost, not a reward) still maps random to 0 and the reference to 1
    assert normalized(np.array([-200.0, -100.0]), random=-200.0, reference=-100.0).tolist() == [0.0, 1.0]


def test_normalization_refuses_a_reference_equal_to_random():
    with pytest.raises(ValueError, match="equals random"):
        normalized(np.array([1.0]), random=3.0, reference=3.0)


def test_point_estimates_match_hand_computed_values():
    estimates = aggregate_estimates(SCORES, reps=200)
    a, b = estimates["a"], estimates["b"]
    # the IQM pools every run of every task and drops the lowest and highest 25% (two of nine scores each way):
    # a sorted is 0 1 1 1 2 3 4 6 100, so the mean of 1 2 3 4 ... is taken over 1 1 2 3 4
    assert a["iqm"].value == pytest.approx(11 / 5)
    assert b["iqm"].value == pytest.approx(1.0)  # 0 0 | 1 1 1 1 1 | 2 2
    # median and mean are taken over the tasks' mean scores: a's are 3, 35.33 and 1
    assert a["median"].value == pytest.approx(3.0) and b["median"].value == pytest.approx(1.0)
    assert a["mean"].value == pytest.approx((3 + 106 / 3 + 1) / 3) and b["mean"].value == pytest.approx(1.0)
    # optimality gap: 1 - mean(min(score, 1)) over every run; a falls short of 1 once (0), b twice (0, 0)
    assert a["optimality_gap"].value == pytest.approx(1 / 9)
    assert b["optimality_gap"].value == pytest.approx(2 / 9)


def test_intervals_contain_their_point_and_are_reproducible():
    rng = np.random.default_rng(3)
    varied = {"a": rng.normal(1.0, 1.0, (5, 4)), "b": rng.normal(0.5, 1.0, (5, 4))}  # no two resamples alike
    first = aggregate_estimates(varied, reps=300, seed=7)
    assert first == aggregate_estimates(varied, reps=300, seed=7)
    assert first != aggregate_estimates(varied, reps=300, seed=8)
    for estimates in first.values():
        for estimate in estimates.values():
            assert estimate.low <= estimate.value <= estimate.high
    assert first["a"]["iqm"].high > first["a"]["iqm"].low  # five runs per task: a real interval


def test_probability_of_improvement_counts_run_pairs_per_task():
    probabilities = improvement_probabilities(SCORES, reps=200)
    # task 0: a (0, 3, 6) against b (0, 1, 2): 0.5 + 3 + 3 of 9 pairs (a tie counts 1/2); task 1: a (2, 4, 100)
    # against b (1, 0, 2): 2.5 + 3 + 3 of 9 pairs; task 2: all equal, an even chance; the mean over tasks
    expected = (6.5 / 9 + 8.5 / 9 + 0.5) / 3
    assert probabilities[("a", "b")].value == pytest.approx(expected)
    assert probabilities[("b", "a")].value == pytest.approx(1 - expected)
    assert set(probabilities) == {("a", "b"), ("b", "a")}


def test_probability_of_improvement_is_rliables():
    from rliable import metrics

    rng = np.random.default_rng(5)
    for runs_x, runs_y, tasks in ((5, 5, 4), (3, 7, 2), (1, 4, 3)):
        x = rng.integers(0, 4, (runs_x, tasks)).astype(float)  # few values: many ties
        y = rng.integers(0, 4, (runs_y, tasks)).astype(float)
        assert probability_of_improvement(x, y) == pytest.approx(metrics.probability_of_improvement(x, y))
    assert probability_of_improvement(SCORES["a"], SCORES["a"]) == 0.5


def test_equal_agents_have_an_even_chance():
    probabilities = improvement_probabilities({"x": SCORES["a"], "y": SCORES["a"].copy()}, reps=100)
    assert probabilities[("x", "y")].value == pytest.approx(0.5)


def test_performance_profile_is_the_fraction_of_runs_above_each_threshold():
    profile = performance_profiles(SCORES, np.array([0.0, 1.0, 2.5]), reps=100)
    assert profile["a"]["fraction"] == pytest.approx([8 / 9, 5 / 9, 4 / 9])
    assert profile["b"]["fraction"] == pytest.approx([7 / 9, 2 / 9, 0.0])


def test_one_run_per_task_is_named_as_too_few_for_an_interval():
    single = {"a": SCORES["a"][:1], "b": SCORES["b"]}
    assert too_few_runs(single) == ["a"]
    estimate = aggregate_estimates(single, reps=100)["a"]["iqm"]
    assert estimate.low == estimate.value == estimate.high  # nothing to resample: the interval says nothing


def test_agents_must_share_the_tasks():
    with pytest.raises(ValueError, match="same tasks"):
        aggregate_estimates({"a": np.zeros((3, 2)), "b": np.zeros((3, 3))})
