"""The GOHR report's numbers and tables on runs whose errors are known: summary.json, report.md and compare."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from gohr_runs import gohr_run
from scipy import stats
from zoo_gohr_study import figures, reporter
from zoo_gohr_study.reporter import compare, labelled, markdown, summarize
from zoo_report.stats import bootstrap_ci

# errors per episode of each trial; hard's TCEs are 8, 8, 10 and easy's 1, 2, 1, 0: every easy trial
# beats every hard one, so z[easy, hard] = 12, z[hard, easy] = 0 and the ease ratio of easy over hard is 13
HARD = [[4, 4], [5, 3], [6, 4]]
EASY = [[1, 0], [2, 0], [0, 1], [0, 0]]


@pytest.fixture
def two_runs(tmp_path):
    return labelled([gohr_run(tmp_path, "easy", EASY, rule="paper/color_match"), gohr_run(tmp_path, "hard", HARD)])


def test_the_summary_of_two_runs_by_hand(two_runs):
    summary = summarize(two_runs)
    easy, hard = summary["runs"]
    assert (easy["label"], easy["run"], easy["agent"], easy["rule"]) == ("easy", "easy", "gohr-linear-dqn", "paper/color_match")
    assert (hard["trials"], hard["episodes"], easy["trials"], easy["episodes"]) == (3, 2, 4, 2)
    assert (hard["median_tce"], hard["quartiles"], hard["max_tce"]) == (8.0, [8.0, 9.0], 10.0)
    assert (easy["median_tce"], easy["quartiles"], easy["max_tce"]) == (1.0, [0.75, 1.25], 2.0)
    # over the last two episodes a trial converges only without errors: easy's last trial
    assert (hard["not_converged"], easy["not_converged"]) == (3, 3)
    for row, tce in ((easy, [1, 2, 1, 0]), (hard, [8, 8, 10])):
        assert row["median_tce_ci95"] == [float(v) for v in bootstrap_ci(tce, resamples=50_000)]
    # Perron vector of [[1, 13], [1/13, 1]] is (13, 1) / 14; Hodge ratings are +-log(13) / 2, with no cycle
    assert easy["perron"] == pytest.approx(13 / 14) and hard["perron"] == pytest.approx(1 / 14)
    assert easy["hodge"] == pytest.approx(math.log(13) / 2) and hard["hodge"] == pytest.approx(-math.log(13) / 2)
    assert summary["hodge_cyclic_share"] == pytest.approx(0, abs=1e-12)
    assert summary["ease_ratio"] == {"easy": {"easy": 1.0, "hard": 13.0}, "hard": {"easy": 1 / 13, "hard": 1.0}}
    assert summary["difficulty_order"] == ["hard", "easy"]
    p = stats.mannwhitneyu([8, 8, 10], [1, 2, 1, 0], alternative="greater", method="asymptotic").pvalue
    q = stats.mannwhitneyu([1, 2, 1, 0], [8, 8, 10], alternative="greater", method="asymptotic").pvalue
    assert summary["u_test_p_harder"] == {"easy": {"easy": None, "hard": q}, "hard": {"easy": p, "hard": None}}
    assert summary["adjacent_u_tests"] == [{"harder": "hard", "easier": "easy", "p": p}]
    json.dumps(summary, allow_nan=False)  # plain JSON: no NaN, no numpy scalars


def test_adjacent_tests_follow_the_difficulty_order_of_three_runs(tmp_path):
    runs = labelled([gohr_run(tmp_path, "mid", [[3, 0], [2, 2], [4, 1]]), gohr_run(tmp_path, "easy", EASY),
                     gohr_run(tmp_path, "hard", HARD)])
    summary = summarize(runs)
    assert summary["difficulty_order"] == ["hard", "mid", "easy"]
    pairs = [(t["harder"], t["easier"], t["p"]) for t in summary["adjacent_u_tests"]]
    assert pairs == [("hard", "mid", summary["u_test_p_harder"]["hard"]["mid"]),
                     ("mid", "easy", summary["u_test_p_harder"]["mid"]["easy"])]
    rows = {row["label"]: row for row in summary["runs"]}
    assert rows["easy"]["hodge"] > rows["mid"]["hodge"] > rows["hard"]["hodge"]
    assert rows["easy"]["perron"] > rows["mid"]["perron"] > rows["hard"]["perron"]


def test_runs_sharing_a_name_are_labelled_by_id(tmp_path):
    runs = [gohr_run(tmp_path, "first", HARD, name="same"), gohr_run(tmp_path, "second", EASY, name="same"),
            gohr_run(tmp_path, "third", EASY, name="other")]
    assert [run.label for run in labelled(runs)] == ["first", "second", "other"]


def test_a_name_equal_to_another_runs_id_does_not_merge_the_two_runs(tmp_path):
    runs = [gohr_run(tmp_path, "first", HARD, name="same"), gohr_run(tmp_path, "second", EASY, name="same"),
            gohr_run(tmp_path, "third", EASY, name="first")]
    data = labelled(runs)
    assert [run.label for run in data] == ["first", "second", "third"]
    assert [row["label"] for row in summarize(data)["runs"]] == ["first", "second", "third"]


def test_the_markdown_tables_of_two_runs(two_runs):
    summary = summarize(two_runs)
    text = markdown(summary)
    lines = text.splitlines()
    low, high = bootstrap_ci([1, 2, 1, 0], resamples=50_000)
    p = summary["u_test_p_harder"]["hard"]["easy"]
    q = summary["u_test_p_harder"]["easy"]["hard"]
    assert lines[0] == "# GOHR difficulty report"
    assert "| hard | gohr-linear-dqn | paper/clockwise | 3 x 2 | 8 | 8 to 10 | 8 to 9 | 10 | 3 | 0.071 | -1.28 |" in lines
    assert (f"| easy | gohr-linear-dqn | paper/color_match | 4 x 2 | 1 | {low:g} to {high:g} | 0.75 to 1.25 | 2 | 3 "
            "| 0.929 | +1.28 |") in lines
    assert f"| harder \\ easier | hard | easy |\n|---|---|---|\n| hard | - | {p:.3g} |\n| easy | {q:.3g} | - |" in text
    assert "| row \\ column | hard | easy |\n|---|---|---|\n| hard | - | 0.0769 |\n| easy | 13 | - |" in text
    share = [line for line in lines if line.startswith("Share of the ease-ratio flow that is cyclic (Hodge): ")]
    assert len(share) == 1 and float(share[0].rsplit(" ", 1)[1].rstrip(".")) < 1e-12
    assert text.endswith(f"\n\n{share[0]}\n")


def test_the_markdown_of_one_run_has_no_comparison(tmp_path):
    text = markdown(summarize(labelled([gohr_run(tmp_path, "hard", HARD)])))
    assert text.endswith("| hard | gohr-linear-dqn | paper/clockwise | 3 x 2 | 8 | 8 to 10 | 8 to 9 | 10 | 3 | 1.000 "
                         "| +0.00 |\n\nOne run: U-tests, ease ratios and rankings compare two runs or more.\n")
    assert "Mann-Whitney" not in text


def test_runs_of_fewer_than_three_trials_get_no_u_test_cell(tmp_path):
    runs = labelled([gohr_run(tmp_path, "hard", [*HARD, [7, 2]]), gohr_run(tmp_path, "pair", [[1, 1], [0, 1]]),
                     gohr_run(tmp_path, "easy", EASY)])
    summary = summarize(runs)
    p = summary["u_test_p_harder"]["hard"]["easy"]
    text = markdown(summary)
    assert f"| hard | - | n < 3 | {p:.3g} |" in text and "| pair | n < 3 | - | n < 3 |" in text
    assert "| harder \\ easier | hard | pair | easy |\n|---|---|---|---|\n" in text
    assert "| row \\ column | hard | pair | easy |\n|---|---|---|---|\n" in text


def test_compare_prints_the_medians_tests_and_ease_ratio(tmp_path):
    text = compare(gohr_run(tmp_path, "hard", HARD), gohr_run(tmp_path, "easy", EASY))
    greater = stats.mannwhitneyu([8, 8, 10], [1, 2, 1, 0], alternative="greater", method="asymptotic").pvalue
    less = stats.mannwhitneyu([8, 8, 10], [1, 2, 1, 0], alternative="less", method="asymptotic").pvalue
    assert text.splitlines() == [
        "hard: median TCE 8 over 3 trials x 2 episodes, 3 C.N.M.",
        "easy: median TCE 1 over 4 trials x 2 episodes, 3 C.N.M.",
        f"Mann-Whitney U = 12.0; p(hard harder) = {greater:.4g}; p(easy harder) = {less:.4g}",
        "ease ratio hard over easy = 0.07692",
    ]


def test_compare_refuses_a_test_of_two_trials(tmp_path):
    text = compare(gohr_run(tmp_path, "hard", HARD), gohr_run(tmp_path, "pair", [[1, 1], [0, 1]]))
    assert text.splitlines()[1] == "pair: median TCE 1.5 over 2 trials x 2 episodes, 2 C.N.M."
    assert "at least 3 trials per run (here 3 and 2)" in text and "Mann-Whitney" not in text


def test_report_writes_the_summary_the_tables_and_a_density_of_the_runs_with_three_trials(tmp_path, monkeypatch):
    drawn = {}

    def fake(name):
        def draw(runs, path, *args):
            drawn.setdefault(name, []).append(([run.label for run in runs] if isinstance(runs, list) else runs.label,
                                               args))
            path.write_text(name)
            return path
        return draw

    for name in ("cumulative_curves", "median_curves", "tce_boxes", "tce_densities"):
        monkeypatch.setattr(figures, name, fake(name))
    runs = [gohr_run(tmp_path, "hard run", HARD), gohr_run(tmp_path, "a-b_c", EASY), gohr_run(tmp_path, "pair", [[1, 1], [0, 1]])]
    out = tmp_path / "report"
    out.mkdir()
    written = reporter.report(runs, out)
    names = ["cumulative_errors_hard_run.png", "cumulative_errors_a-b_c.png", "cumulative_errors_pair.png",
             "median_cumulative_errors.png", "tce_boxplot.png", "tce_density.png", "summary.json", "report.md"]
    assert written == [out / name for name in names]
    assert drawn["median_curves"] == [(["hard run", "a-b_c", "pair"], (50_000,))]
    assert drawn["tce_densities"] == [(["hard run", "a-b_c"], ())]
    summary = summarize(labelled(runs))
    assert (out / "summary.json").read_text() == json.dumps(summary, indent=2) + "\n"
    assert (out / "report.md").read_text() == markdown(summary)
    # two trials per run is no density
    (out / "tce_density.png").unlink()
    assert out / "tce_density.png" not in reporter.report([runs[2]], out)
    assert not (out / "tce_density.png").exists()
    assert np.isclose(summary["runs"][0]["perron"] + summary["runs"][1]["perron"] + summary["runs"][2]["perron"], 1)
