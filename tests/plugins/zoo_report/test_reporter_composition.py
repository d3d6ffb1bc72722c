"""A plugin's reporter adds its files to the generic report; what it raises names it in one line."""

from __future__ import annotations

import json
import types

import pytest
from zoo_report import plugin as report_plugin
from zoo_report.report import report
from zoo_report.reporters import ReporterEntry

from zoo import hookimpl
from zoo.culprits import PluginFailed
from zoo.registry import Registry
from zoo.store import create_run_folder


def fake_run(root, name, env, returns):
    """A finished run of one trial that logged `returns`, one episode every 10 steps."""
    folder = create_run_folder(root / name, {}, {"id": name, "env": env, "agent": "x", "status": "finished"})
    folder.trial_dir(0).mkdir(parents=True)
    rows = [{"step": 10 * (k + 1), "episode_return": r} for k, r in enumerate(returns)]
    (folder.trial_dir(0) / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


def registry_with_reporter(write) -> Registry:
    registry = Registry()
    registry.add("report", report_plugin)  # declares the kind 'reporter'
    registry.add("mine", types.SimpleNamespace(register_reporters=hookimpl(
        lambda register: register(ReporterEntry(name="special-report", envs=("special",), report=write)))))
    return registry


def test_the_generic_report_is_kept_beside_a_reporters_files(tmp_path):
    def write(runs, out):
        (out / "mine.txt").write_text("ok")
        return [out / "mine.txt"]

    written = report(registry_with_reporter(write), [fake_run(tmp_path, "s1", "special", [1.0, 2.0])], tmp_path / "out")
    assert {path.name for path in written} >= {"mine.txt", "report.md", "summary.json"}
    assert (tmp_path / "out" / "report.md").read_text().startswith("# Runs")


def test_a_reporters_own_report_md_replaces_the_generic_one(tmp_path):
    def write(runs, out):
        (out / "report.md").write_text("# Special\n")
        return [out / "report.md"]

    written = report(registry_with_reporter(write), [fake_run(tmp_path, "s1", "special", [1.0])], tmp_path / "out")
    assert written.count(tmp_path / "out" / "report.md") == 1
    assert (tmp_path / "out" / "report.md").read_text().startswith("# Special")
    assert tmp_path / "out" / "summary.json" in written


def test_a_crashing_reporter_is_named(tmp_path):
    def write(runs, out):
        return [out / runs[3].path.name]

    with pytest.raises(PluginFailed, match=r"^plugin mine, reporter special-report, write: IndexError: list index out "
                                           rf"of range \({__file__}:\d+\)$"):
        report(registry_with_reporter(write), [fake_run(tmp_path, "s1", "special", [1.0])], tmp_path / "out")
