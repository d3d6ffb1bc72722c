"""Normalised scores: the seed papers' headline aggregates recomputed from their per-game tables."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats
from zoo_atari import games
from zoo_atari import scores as S
from zoo_report.stats import bootstrap_ci


def headline(table: str, column: str) -> dict[str, float]:
    refs, values = S.references(table), S.column(table, column)
    per_game = S.normalised(values, refs)
    out = {"games": len(values), "hwrb": S.breakthroughs(values, refs)}
    for metric in ("hns", "hwrns", "saber"):
        data = np.array([v[metric] for v in per_game.values()]) * 100
        out[f"mean_{metric}"], out[f"median_{metric}"] = data.mean(), np.median(data)
    return out


@pytest.mark.parametrize("table, column, expected", [
    # GDI Table 1 (the CSV recompute is 9620.95 for the printed 9620.98: rounding of per-game rows)
    ("gdi-scores.csv", "gdi_h3", dict(mean_hns=9620.98, median_hns=1146.39, mean_hwrns=154.27, median_hwrns=50.63,
                                      mean_saber=71.26, median_saber=50.63, hwrb=22)),
    ("gdi-scores.csv", "gdi_i3", dict(mean_hns=7810.6, median_hns=832.5, mean_hwrns=117.99, median_hwrns=35.78,
                                      mean_saber=61.66, hwrb=17)),
    # LBC Table 2 / section 5
    ("lbc-scores.csv", "lbc", dict(mean_hns=10077.52, median_hns=1665.60, hwrb=24)),
    ("lbc-scores.csv", "agent57", dict(mean_hns=4762.17, median_hns=1933.49, hwrb=18)),
    ("lbc-scores.csv", "muzero", dict(mean_hns=4994.97, median_hns=2041.12, hwrb=19)),
    # DiCE Table 3: SABER and the HNS medians from raw scores (two human-column misprints move the HNS means)
    ("dice-scores.csv", "dice", dict(median_hns=477.17, mean_saber=50.11, median_saber=13.90)),
    ("dice-scores.csv", "baseline", dict(median_hns=195.54, mean_saber=35.91, median_saber=8.73)),
])
def test_headline_aggregates_are_recomputed_from_the_per_game_tables(table, column, expected):
    got = headline(table, column)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=0.05), key


def test_dice_printed_percentages_give_the_printed_means():
    extra = S.column("dice-scores-extra.csv", "dice_hns_pct_reported")
    assert np.mean(list(extra.values())) == pytest.approx(6456.63, abs=0.005)


def test_ale_inter_algorithm_means_follow_the_papers_order():
    names = ["bass", "ram", "basic", "lsh", "disco"]
    columns = [S.column("ale-scores.csv", n) for n in names]
    games = sorted(columns[0])
    z = S.inter_algorithm(np.array([[c[g] for c in columns] for g in games]))
    means = np.nanmean(z, axis=0)
    assert list(np.round(means, 3)) == [0.683, 0.570, 0.534, 0.399, 0.197]
    assert list(means) == sorted(means, reverse=True)


def test_ale_row_maxima_are_the_sarsa_scores_dqn_quotes():
    # DQN's (Mnih et al. 2013) quoted "Sarsa" row equals the row maximum (learners and baselines)
    names = ["basic", "bass", "disco", "lsh", "ram", "random", "const", "perturb"]
    columns = [S.column("ale-scores.csv", n) for n in names]
    quoted = {"beam_rider": 996, "breakout": 5.2, "enduro": 129.1, "pong": -19, "qbert": 613.5,
              "seaquest": 664.8, "space_invaders": 270.5}
    for game, value in quoted.items():
        assert max(c[game] for c in columns) == pytest.approx(value, abs=0.05), game


def test_known_answers_of_the_ale_normalisations():
    assert S.random_normalised(30, -15) == 2
    assert np.isnan(S.random_normalised(5, 0))
    assert S.baseline_normalised(6, [2, 10, 4]) == 0.5
    assert S.inter_algorithm(np.array([[3.0, 7.0]])).tolist() == [[0.0, 1.0]]
    assert np.isnan(S.inter_algorithm(np.array([[2.0, 2.0]]))).all()
    assert S.score_distribution([0.5, 1.0, 2.0, np.nan], [0, 1, 3]).tolist() == [1.0, 2 / 3, 0.0]
    assert np.median([1, 4, 2, 3]) == 2.5


def test_hns_saber_cap_and_iqm():
    assert S.hns(150, 50, 150) == 1.0
    assert S.saber(1000, 0, 100) == 2.0 and S.hwrns(1000, 0, 100) == 10.0
    assert S.iqm(np.arange(8.0)) == pytest.approx(3.5)
    assert S.iqm(np.arange(16.0).reshape(8, 2)).tolist() == [7.0, 8.0]  # down the first axis: the middle four of each column
    agg = S.aggregate([0.0, 1.0, 2.0, 3.0, np.nan])
    assert agg["games"] == 4 and agg["excluded"] == 1 and agg["mean"] == 1.5
    assert agg["mean_ci95"][0] <= 1.5 <= agg["mean_ci95"][1]


def test_welch_matches_scipy_and_decides_at_alpha():
    a, b = [10.0, 11.0, 12.0, 11.5, 10.5], [1.0, 2.0, 1.5, 2.5, 3.0]
    result = S.welch(a, b)
    expected = stats.ttest_ind(a, b, equal_var=False)
    assert result["p"] == pytest.approx(expected.pvalue) and result["winner"] == 1
    # unequal sizes and spreads, where Welch's test and Student's differ
    wide, narrow = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [2.5, 2.6]
    welch = S.welch(wide, narrow)["p"]
    assert welch == pytest.approx(stats.ttest_ind(wide, narrow, equal_var=False).pvalue, rel=1e-9)
    assert welch != pytest.approx(stats.ttest_ind(wide, narrow).pvalue, rel=1e-3)
    assert S.welch([1.0, 2.0, 3.0], [1.5, 2.5, 2.0])["winner"] == 0
    table = S.paired_table({"x": {"g": a, "h": [1.0, 2.0]}, "y": {"g": b, "h": [1.5, 1.6]}})
    assert table[("x", "y")] == (1, 0)


def test_welch_on_runs_without_spread():
    assert S.welch([-21.0, -21.0], [-21.0, -21.0]) == {"t": 0.0, "p": 1.0, "winner": 0}
    assert S.welch([-20.0, -20.0], [-21.0, -21.0]) == {"t": math.inf, "p": 0.0, "winner": 1}
    assert S.welch([-21.0, -21.0], [-20.0, -20.0])["winner"] == -1
    one_constant = S.welch([-21.0, -21.0], [-20.0, -19.0])  # a finite test: b's spread gives the error
    assert one_constant["t"] == pytest.approx(-3.0) and one_constant["winner"] == 0
    other_constant = S.welch([-20.0, -19.0], [-21.0, -21.0])  # and the same with the spread on a's side
    assert other_constant["t"] == pytest.approx(3.0) and other_constant["winner"] == 0


def test_game_tables_and_names():
    assert len(games.atari57()) == 57 and len(games.ale_split()) == 55
    assert games.training_games() == ["asterix", "beam_rider", "freeway", "seaquest", "space_invaders"]
    assert len(games.test_games()) == 50 and not set(games.test_games()) & set(games.training_games())
    assert games.resolve_game("MontezumaRevenge") == games.resolve_game("montezuma_revenge") == "montezuma_revenge"
    with pytest.raises(ValueError, match="did you mean 'SpaceInvaders'"):
        games.resolve_game("SpaceInvader")


def test_a_score_equal_to_the_record_is_a_breakthrough():
    refs = {"pong": S.Reference(random=-20.7, human=9.3, record=21.0),
            "breakout": S.Reference(random=1.7, human=30.5, record=864.0)}
    assert S.breakthroughs({"pong": 21.0, "breakout": 863.9}, refs) == 1
    assert S.breakthroughs({"pong": 20.9, "breakout": 900.0}, refs) == 1
    per_game = S.normalised({"pong": 21.0, "breakout": 864.0 * 3}, refs)
    assert per_game["pong"] == {"hns": pytest.approx(41.7 / 30), "hwrns": 1.0, "saber": 1.0}
    assert per_game["breakout"]["hwrns"] == pytest.approx((2592 - 1.7) / 862.3) and per_game["breakout"]["saber"] == 2.0


def test_the_shipped_references_and_columns_by_rom_id():
    refs = S.references()  # GDI's table: Pong's random, human and record scores
    assert refs["pong"] == S.Reference(-20.7, 14.6, 21.0) and len(refs) == 57
    assert S.references("lbc-scores.csv")["montezuma_revenge"].record == 1219200.0
    with pytest.raises(dataclasses.FrozenInstanceError):  # the cached table is shared: nobody can change it
        refs["pong"].record = 0.0
    efficientzero = S.column("lbc-scores.csv", "efficientzero")  # the cells left empty are left out
    assert 0 < len(efficientzero) < 57 and all(math.isfinite(v) for v in efficientzero.values())


def test_aggregates_are_fixed_seed_bootstraps_and_nothing_of_no_games():
    values = [0.1, 0.4, 2.5, 0.9, 1.6, 0.3, np.nan, np.inf]
    agg = S.aggregate(values)
    data = np.array([0.1, 0.4, 2.5, 0.9, 1.6, 0.3])
    assert (agg["games"], agg["excluded"]) == (6, 2)
    assert (agg["mean"], agg["median"], agg["iqm"]) == (pytest.approx(5.8 / 6), 0.65, pytest.approx((0.3 + 0.4 + 0.9 + 1.6) / 4))
    for name, statistic in (("mean", np.mean), ("median", np.median), ("iqm", S.iqm)):
        assert agg[f"{name}_ci95"] == [float(v) for v in bootstrap_ci(data, statistic, resamples=2000, seed=0)]
    assert S.aggregate(values, seed=1)["mean_ci95"] != agg["mean_ci95"]
    empty = S.aggregate([np.nan])
    assert (empty["games"], empty["excluded"]) == (0, 1) and all(math.isnan(empty[k]) for k in ("mean", "median", "iqm"))
    assert "mean_ci95" not in empty


def test_ale_normalisations_of_arrays():
    assert S.random_normalised([30, -30, 7, 5], [-15, 15, -2, 0])[:3].tolist() == [2.0, -2.0, 3.5]
    assert S.range_normalised([2.0, 5.0, 1.0], [0.0, 5.0, 1.0], [4.0, 10.0, 1.0])[:2].tolist() == [0.5, 0.0]
    assert np.isnan(S.range_normalised([1.0, 2.0], 1.0, 1.0)).all()  # an empty range: NaN, not 0 / 0 or inf
    assert S.range_normalised([2.0, 4.0], 4.0, 0.0).tolist() == [0.5, 0.0]  # a reversed range maps low to 0 all the same
    z = S.inter_algorithm(np.array([[3.0, 7.0, 5.0], [10.0, 0.0, 2.0]]))
    assert z.tolist() == [[0.0, 1.0, 0.5], [1.0, 0.0, 0.2]]
    assert np.isnan(S.score_distribution([np.nan], [0.5])).all()


def test_welch_decides_only_below_alpha():
    # equal constants: p = 1, which is significant at no level up to 1; different ones: p = 0, not below 0
    assert S.welch([3.0, 3.0], [3.0, 3.0], alpha=1.0)["winner"] == 0
    assert S.welch([4.0, 4.0], [3.0, 3.0], alpha=0.0)["winner"] == 0
    assert S.welch([4.0], [3.0]) == {"t": math.inf, "p": 0.0, "winner": 1}
    assert S.welch([-5.0, -5.0], [3.0, 3.0]) == {"t": -math.inf, "p": 0.0, "winner": -1}


def test_the_winner_is_the_sign_of_t_whenever_p_is_below_alpha():
    a, b = [1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 2.5, 3.5]  # t = 0.16, p = 0.88
    result = S.welch(a, b, alpha=0.9)
    assert 0 < result["t"] < 1 and result["p"] < 0.9 and result["winner"] == 1
    result = S.welch(b, a, alpha=0.9)
    assert -1 < result["t"] < 0 and result["winner"] == -1


def test_paired_table_counts_games_won_and_lost_per_pair():
    samples = {
        "x": {"g": [10.0, 10.1], "h": [1.0, 1.1], "i": [5.0, 5.5, 6.0], "single": [9.0], "only_x": [1.0, 2.0],
              "none": [], "one_x": [2.0], "one_y": [2.0, 2.0], "none_y": [2.0, 2.0]},
        "y": {"g": [1.0, 1.1], "h": [10.0, 10.1], "i": [5.2, 5.4, 5.9], "single": [1.0], "none": [3.0, 4.0],
              "one_x": [1.0, 1.0], "one_y": [1.0], "none_y": []},
        "z": {"g": [0.0, 0.1], "h": [0.0, 0.1], "i": [0.0, 0.1, 0.2]},
    }
    # x beats y on g and loses on h; i is a draw; one trial or none is no test, and only_x has no opponent
    assert S.paired_table(samples) == {("x", "y"): (1, 1), ("x", "z"): (3, 0), ("y", "z"): (3, 0)}
