"""Reports and comparisons of runs (the generic reporter, and dispatch to a plugin's reporter)."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest
from zoo_report import plugin as report_plugin
from zoo_report.report import compare, report
from zoo_report.reporters import ReporterEntry
from zoo_report.stats import bootstrap_ci, one_sided_u_tests

from zoo import hookimpl
from zoo.errors import ZooError
from zoo.registry import Registry
from zoo.returns import final_returns
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
    registry.add("report", report_plugin)  # declares the kind 'reporter'
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


def test_compare_runs_no_test_below_three_trials_per_run(tmp_path):
    two = fake_run(tmp_path, "two", "gym", [[1.0] * 10, [2.0] * 10])
    three = fake_run(tmp_path, "three", "gym", [[float(t + 20)] * 10 for t in range(3)])
    text = compare(Registry(), two, three)
    assert "no test: a significance test needs at least 3 trials per run (here 2 and 3)" in text and "Mann-Whitney" not in text
    assert "Mann-Whitney U" in compare(Registry(), three, three)


def test_compare_warns_when_env_or_budget_settings_differ(tmp_path):
    a = fake_run(tmp_path, "a", "gym", [[1.0] * 10] * 3)
    b = fake_run(tmp_path, "b", "gym", [[2.0] * 10] * 3)
    (a.path / "spec.yaml").write_text("env: {type: gym, id: CartPole-v1}\nbudget: {steps: 100}\ntrials: 3\nseed: 1\n")
    (b.path / "spec.yaml").write_text("env: {type: gym, id: Acrobot-v1}\nbudget: {steps: 200}\ntrials: 3\nseed: 2\n")
    first = compare(Registry(), a, b).splitlines()[0]
    assert first == "warning: the runs differ in budget.steps (100 / 200); env.id (CartPole-v1 / Acrobot-v1)"
    (b.path / "spec.yaml").write_text("env: {type: gym, id: CartPole-v1}\nbudget: {steps: 100}\ntrials: 3\nseed: 2\n")
    assert "warning" not in compare(Registry(), a, b)


def test_report_and_compare_take_ids_and_run_study_and_runs_folders(tmp_path, capsys):
    from zoo.cli import main

    runs = tmp_path / "runs"
    for name, base in (("low", 0), ("high", 10)):
        fake_run(runs, name, "gym", [[base + t] * 10 for t in range(3)])
    study = runs / "my-study"
    study.mkdir()
    (study / "study.json").write_text(json.dumps({"name": "my-study", "runs": {"a": "low", "b": "high"}}))
    (tmp_path / "stray.txt").write_text("")
    assert main(["runs", "--runs-dir", str(runs), "--json"]) == 0  # makes the index, which a runs/* glob then holds
    everything = sorted(str(p) for p in runs.iterdir()) + [str(tmp_path / "stray.txt"), "low"]
    assert main(["report", *everything, "--runs-dir", str(runs), "-o", str(tmp_path / "out")]) == 0
    assert [row["run"] for row in json.loads((tmp_path / "out/summary.json").read_text())] == ["high", "low"]
    err = capsys.readouterr().err
    assert f"note: {runs / 'index.sqlite'}: skipped (the index of runs, not a run folder)" in err
    assert f"note: {tmp_path / 'stray.txt'}: skipped (a file, not a run folder)" in err
    assert main(["report", str(study), "-o", str(tmp_path / "study-out")]) == 0
    assert [row["run"] for row in json.loads((tmp_path / "study-out/summary.json").read_text())] == ["low", "high"]
    assert main(["compare", "low", str(runs / "high"), "--runs-dir", str(runs)]) == 0
    assert "Mann-Whitney U = 0.0; p(low > high) = 0.9855; p(low < high) = 0.04043" in capsys.readouterr().out
    assert main(["compare", "low", str(runs), "--runs-dir", str(runs)]) == 2
    assert "holds 2 runs; compare takes one run per side" in capsys.readouterr().err
    assert main(["report", "nosuch", "--runs-dir", str(runs)]) == 2
    assert "nosuch: no such run folder, and no run with that id in" in capsys.readouterr().err
    assert main(["report", str(runs / "index.sqlite"), "--runs-dir", str(runs)]) == 2
    assert "error: no runs in" in capsys.readouterr().err


def test_zoo_runs_shows_whole_ids_and_each_runs_result(tmp_path, capsys, monkeypatch):
    from zoo.cli import main

    runs = tmp_path / "runs"
    long_id = "a-run-with-a-name-long-enough-to-be-cut-at-eighty-columns-20261123-224852-12345"
    fake_run(runs, long_id, "gym", [[1.0] * 10, [3.0] * 10])
    done = fake_run(runs, "evaluated", "gym", [[1.0]])
    (done.trial_dir(0) / "result.json").write_text(json.dumps({"eval_mean": 7.25}))
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["runs", "--runs-dir", str(runs)]) == 0
    out = capsys.readouterr().out
    assert long_id in out and "final 2.00" in out and "eval 7.25" in out
    assert main(["runs", "--runs-dir", str(runs), "--json"]) == 0
    assert [row["result"] for row in json.loads(capsys.readouterr().out)] == ["final 2.00", "eval 7.25"]
