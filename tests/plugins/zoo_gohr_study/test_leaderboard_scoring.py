"""Leaderboard scoring against hand-computed ease ratios, an independent eigen-solver and known orders."""

from __future__ import annotations

import math

import numpy as np
import pytest
from zoo_gohr_study.leaderboard.scoring import (
    Cell,
    cell_summary,
    median_interval,
    p_fewer_errors,
    pooled_counts,
    rule_comparisons,
    tournament,
)
from zoo_report.stats.ranking import win_counts

# three agents of known skill on two rules: good < mid < bad in errors on both
RULE_1 = {"good": np.array([1.0, 2.0]), "mid": np.array([3.0, 4.0]), "bad": np.array([5.0, 6.0])}
RULE_2 = {"good": np.array([10.0, 30.0]), "mid": np.array([20.0, 40.0]), "bad": np.array([50.0, 60.0])}
INF = np.inf


def test_ease_ratios_of_one_rule_by_hand():
    # rule 2: good beats mid in 3 of 4 pairs (10<20, 10<40, 30<40), mid beats good in 1 (20<30)
    w = rule_comparisons(RULE_2)["ease_ratio"]
    assert w["good"]["mid"] == pytest.approx((3 + 1) / (1 + 1))
    assert w["mid"]["good"] == pytest.approx((1 + 1) / (3 + 1))
    assert w["good"]["bad"] == pytest.approx((4 + 1) / (0 + 1))


def test_tournament_pools_the_rules_and_ranks_the_known_order():
    players = ["bad", "good", "mid"]
    z = pooled_counts(players, [RULE_1, RULE_2])
    # good over mid: 4 pairs on rule 1 and 3 on rule 2; mid over good: 0 + 1
    assert z[1, 2] == 7 and z[2, 1] == 1
    assert z[1, 0] == 8 and z[2, 0] == 8 and z[0, 1] == 0
    result = tournament(players, [RULE_1, RULE_2], resamples=50, seed=0)
    assert [r["name"] for r in result["ranking"]] == ["good", "mid", "bad"]
    assert [r["perron_rank"] for r in result["ranking"]] == [1, 2, 3]
    # the Perron vector against numpy's eigen-solver on the pooled ease ratios
    w = (z + 1) / (z.T + 1)
    values, vectors = np.linalg.eig(w)
    reference = np.abs(np.real(vectors[:, np.argmax(np.real(values))]))
    reference /= reference.sum()
    scores = {r["name"]: r["perron"] for r in result["ranking"]}
    assert [scores[p] for p in players] == pytest.approx(reference, rel=1e-9)
    # Hodge on a complete graph: each rating is the mean of its row of log ease ratios
    hodge = {r["name"]: r["hodge"] for r in result["ranking"]}
    assert hodge["good"] == pytest.approx((math.log(4) + math.log(9)) / 3)
    assert hodge["mid"] == pytest.approx((math.log(9) - math.log(4)) / 3)
    assert hodge["bad"] == pytest.approx(-2 * math.log(9) / 3)


def test_bootstrap_intervals_hold_the_point_and_separate_clear_winners():
    rng = np.random.default_rng(1)
    rules = [{"good": rng.normal(100, 10, 20), "mid": rng.normal(200, 10, 20), "bad": rng.normal(300, 10, 20)}
             for _ in range(2)]
    result = tournament(["good", "mid", "bad"], rules, resamples=100, seed=3)
    for row in result["ranking"]:
        low, high = row["perron_ci95"]
        assert low <= row["perron"] <= high
        assert row["perron_rank_ci95"] == [row["perron_rank"], row["perron_rank"]]
    again = tournament(["good", "mid", "bad"], rules, resamples=100, seed=3)
    assert again == result


def test_cells_that_never_converge_tie_with_each_other_and_lose_to_every_converged_trial():
    stuck = Cell("stuck", "r", tce=np.array([900, 800]), converged=np.array([False, False]))
    also_stuck = Cell("also", "r", tce=np.array([100, 5000]), converged=np.array([False, False]))
    slow = Cell("slow", "r", tce=np.array([2000, 3000]), converged=np.array([True, True]))
    comparisons = rule_comparisons({c.agent: c.scores for c in (stuck, also_stuck, slow)})
    assert comparisons["ease_ratio"]["stuck"]["also"] == 1.0  # all four pairs are ties: (2 + 1) / (2 + 1)
    assert comparisons["ease_ratio"]["slow"]["stuck"] == 5.0  # converged beats C.N.M. although its TCE is larger
    summary = cell_summary(stuck, resamples=100, seed=0)
    assert summary["median"] == INF and summary["median_ci95"] == [INF, INF]
    assert summary["median_errors"] == 850 and summary["converged"] == 0


def test_a_missing_cell_removes_matches_instead_of_scoring_zero():
    partial = {k: v for k, v in RULE_2.items() if k != "bad"}
    z = pooled_counts(["bad", "good", "mid"], [RULE_1, partial])
    assert z[1, 0] == 4 and z[0, 1] == 0  # only rule 1's pairs between good and bad
    ranking = tournament(["bad", "good", "mid"], [RULE_1, partial], resamples=0, seed=0)["ranking"]
    assert {r["name"]: r["games"] for r in ranking} == {"good": 2, "mid": 2, "bad": 1}


def test_u_test_is_one_sided_and_treats_cnm_as_worst():
    good, bad = np.array([1.0, 2, 3, 4, 5, 6]), np.array([10.0, 11, 12, INF, INF, INF])
    assert p_fewer_errors(good, bad) < 0.01 < 0.99 < p_fewer_errors(bad, good)
    assert p_fewer_errors(bad, good) == pytest.approx(p_fewer_errors(np.array([10.0, 11, 12, 99, 99, 99]), good))


def test_median_interval_brackets_the_median_and_keeps_infinity():
    values = np.array([5.0, 6, 7, 8, 9, INF, INF])
    low, high = median_interval(values, resamples=500, seed=0)
    assert low <= np.median(values) <= high and high == INF


def test_ordering_cnm_trials_by_errors_tells_stuck_agents_apart_but_keeps_them_below_converged():
    fewer = Cell("fewer", "r", tce=np.array([100, 200]), converged=np.array([False, False]))
    more = Cell("more", "r", tce=np.array([300, 400]), converged=np.array([False, False]))
    slow = Cell("slow", "r", tce=np.array([5000, 6000]), converged=np.array([True, True]))
    tie = rule_comparisons({c.agent: c.ranked("tie") for c in (fewer, more, slow)})["ease_ratio"]
    by_errors = rule_comparisons({c.agent: c.ranked("errors") for c in (fewer, more, slow)})["ease_ratio"]
    assert tie["fewer"]["more"] == 1.0 and by_errors["fewer"]["more"] == 5.0
    assert tie["slow"]["fewer"] == by_errors["slow"]["fewer"] == 5.0


def test_win_counts_match_counting_every_pair():
    rng = np.random.default_rng(5)
    for _ in range(100):
        samples = [np.where(rng.random(n) < 0.2, INF, rng.integers(0, 6, n)).astype(float)
                   for n in rng.integers(1, 8, rng.integers(1, 5))]
        pairs = [[sum((a < b) + 0.5 * (a == b) for a in x for b in y) if i != j else 0.0
                  for j, y in enumerate(samples)] for i, x in enumerate(samples)]
        assert win_counts(samples).tolist() == pairs
