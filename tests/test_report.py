"""Reports and comparisons of runs (the generic reporter, and dispatch to a plugin's reporter)."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest

from zoo import ReporterEntry, hookimpl
from zoo.errors import ZooError
from zoo.registry import Registry
from zoo.report import compare, final_returns, report
from zoo.stats import bootstrap_ci, one_sided_u_tests
from zoo.store import create_run_folder


def fake_run(root, name, env, trials):
    """A run folder whose trials logged the given episode returns, one every 10 steps."""
    folder = create_run_folder(root / name, {}, {"id": name, "env": env, "agent": "x", "status": "finished"})
    for index, returns in enumerate(trials):
        trial = folder.trial_dir(index)
        trial.mkdir(parents=True)
        rows = [{"step": 10 * (k + 1), "episode_return": r} for k, r in enumerate(returns)]
        (trial / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


def test_final_return_is_the_mean_of_the_last_tenth(tmp_path):
    run = fake_run(tmp_path, "a", "gym", [list(range(20)), [5.0] * 10])
    assert final_returns(run).tolist() == [18.5, 5.0]


def test_generic_report_writes_table_summary_and_figure(tmp_path):
    runs = [fake_run(tmp_path, name, "gym", [[base + t] * 30 for t in range(5)]) for name, base in (("low", 0), ("high", 100))]
    written = report(Registry(), runs, tmp_path / "out")
    assert [p.name for p in written] == ["report.md", "summary.json", "learning_curves.png"]
    summary = json.loads((tmp_path / "out/summary.json").read_text())
    assert [row["final_return_median"] for row in summary] == [2.0, 102.0]
    low, high = summary[1]["final_return_ci95"]
    assert 100.0 <= low <= 102.0 <= high <= 104.0
    assert (tmp_path / "out/learning_curves.png").stat().st_size > 1000


def test_compare_runs_u_tests(tmp_path):
    worse = fake_run(tmp_path, "worse", "gym", [[float(t)] * 10 for t in range(8)])
    better = fake_run(tmp_path, "better", "gym", [[float(t + 20)] * 10 for t in range(8)])
    text = compare(Registry(), worse, better)
    assert "p(worse < better) = 0.000" in text
    assert one_sided_u_tests([1, 2, 3], [4, 5, 6])["u"] == 0.0
    other = fake_run(tmp_path, "other", "atari", [[1.0]])
    with pytest.raises(ZooError, match="different environments"):
        compare(Registry(), worse, other)


def test_a_plugin_reporter_takes_its_environments(tmp_path):
    seen = []

    def register_reporters(register):
        def write(runs, out):
            seen.append([run.manifest()["id"] for run in runs])
            path = out / "mine.txt"
            path.write_text("ok")
            return [path]

        register(ReporterEntry(name="mine", envs=("special",), report=write, compare=lambda a, b: "mine says"))

    registry = Registry()
    registry.add("mine", types.SimpleNamespace(register_reporters=hookimpl(register_reporters)))
    special = [fake_run(tmp_path, n, "special", [[1.0]]) for n in ("s1", "s2")]
    plain = fake_run(tmp_path, "p", "gym", [[1.0, 2.0]])
    written = report(registry, special + [plain], tmp_path / "out")
    assert seen == [["s1", "s2"]]
    assert tmp_path / "out/special/mine.txt" in written and tmp_path / "out/gym/report.md" in written
    assert compare(registry, *special) == "mine says"


def test_bootstrap_interval_of_constant_data_is_a_point():
    low, high = bootstrap_ci([3.0, 3.0, 3.0])
    assert low == high == 3.0
    low, high = bootstrap_ci(np.arange(100.0), statistic=np.mean, seed=1)
    assert 40 < low < 49.5 < high < 59
