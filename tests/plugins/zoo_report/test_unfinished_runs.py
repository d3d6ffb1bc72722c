"""Reports and comparisons of a run that is still training, was interrupted or failed say so, with each trial's progress.

The runs are the GOHR random player's (2 trials x 20 episodes, a checkpoint every 10): one
finished, and copies of it taken back to episode 10, as a training process (or its kill) leaves them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from zoo_report import report as reports

from zoo.cli import main

SPEC = """\
env: {type: gohr, rule: paper/clockwise, horizon: 60}
agent: {type: random-legal}
budget: {episodes: 20, checkpoint_every: 10}
trials: 2
seed: 1
logging: {tensorboard: false, progress: false}
"""
PROGRESS = "trial 0 at 10 of 20 episodes (its last checkpoint), trial 1 at 20 of 20 episodes"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("unfinished")
    (home / "spec.yaml").write_text(SPEC)
    assert main(["train", str(home / "spec.yaml"), "--run-dir", str(home / "finished"), "--no-progress"]) == 0
    return home / "finished"


def unfinished_copy(finished: Path, folder: Path, status: str) -> Path:
    """The finished run with trial 0 back at its checkpoint of episode 10 and `status` in run.json."""
    run = folder / status
    shutil.copytree(finished, run)
    shutil.rmtree(run / "trials" / "000" / "checkpoints" / "episode-000000000020")
    (run / "trials" / "000" / "result.json").unlink()
    manifest = json.loads((run / "run.json").read_text())
    extra = {"error": "RuntimeError: simulated crash"} if status == "failed" else {}
    (run / "run.json").write_text(json.dumps({**manifest, "status": status, "id": status, **extra}))
    return run


def zoo(capsys, *args) -> tuple[int, str]:
    capsys.readouterr()
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("status", ["running", "interrupted", "failed"])
@pytest.mark.parametrize("reporter", ["gohr", "generic"])
def test_a_report_says_the_run_is_unfinished_and_how_far_each_trial_got(finished_run, tmp_path, capsys, monkeypatch,
                                                                        status, reporter):
    if reporter == "generic":  # the report of an environment no plugin reports on
        monkeypatch.setattr(reports, "reporter_for", lambda registry, env: None)
    run = unfinished_copy(finished_run, tmp_path, status)
    said = f"run {status} is {status}" + (" (RuntimeError: simulated crash)" if status == "failed" else "")
    said += f", not finished: {PROGRESS}"
    code, out = zoo(capsys, "report", run, "-o", tmp_path / "report")
    assert code == 0 and f"warning: {said}" in out
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert markdown.startswith("# ") and "> **Not final.**" in markdown and said in markdown
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    notes = summary["caveats"][status] if reporter == "gohr" else summary[0]["caveats"]
    assert notes == [said]


def test_a_report_of_finished_runs_carries_no_caveat(finished_run, tmp_path, capsys):
    code, out = zoo(capsys, "report", finished_run, "-o", tmp_path / "report")
    assert code == 0 and "warning" not in out
    assert "Not final" not in (tmp_path / "report" / "report.md").read_text()
    assert "caveats" not in json.loads((tmp_path / "report" / "summary.json").read_text())


@pytest.mark.parametrize("status", ["running", "interrupted"])
def test_a_comparison_says_which_side_is_unfinished(finished_run, tmp_path, capsys, status):
    run = unfinished_copy(finished_run, tmp_path, status)
    code, out = zoo(capsys, "compare", finished_run, run)
    assert code == 0
    assert out.startswith(f"warning: run {status} is {status}, not finished: {PROGRESS}\n")
    assert "run finished is" not in out
