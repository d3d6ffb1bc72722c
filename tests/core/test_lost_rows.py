"""Metrics rows a checkpoint recorded and that are gone are named by resume and by every report of the run.

The run is the GOHR random player's, 2 trials x 20 episodes with a checkpoint every 10. It is left as
a kill between the last rows and the final checkpoint leaves it: both trials checkpointed at episode
10 with 20 rows written, the run marked interrupted. A resume keeps the rows up to the checkpoint;
each damage below takes some of those ten from trial 0's ``metrics.jsonl``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from zoo.cli import main

SPEC = """\
env: {type: gohr, rule: paper/clockwise, horizon: 60}
agent: {type: random-legal}
budget: {episodes: 20, checkpoint_every: 10}
trials: 2
seed: 1
logging: {tensorboard: false, progress: false}
"""
CHECKPOINT = "episode-000000000010"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("lost-rows")
    (home / "spec.yaml").write_text(SPEC)
    assert main(["train", str(home / "spec.yaml"), "--run-dir", str(home / "run"), "--no-progress"]) == 0
    return home / "run"


@pytest.fixture
def run(finished_run, tmp_path) -> Path:
    """A copy of the finished run, taken back to its state after a kill just before its final checkpoint."""
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    for trial in ("000", "001"):
        shutil.rmtree(run / "trials" / trial / "checkpoints" / "episode-000000000020")
        (run / "trials" / trial / "result.json").unlink()
    set_manifest(run, status="interrupted", id="damaged")
    return run


def set_manifest(run: Path, **fields) -> None:
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, **fields}))


def metrics(run: Path, trial: str = "000") -> Path:
    return run / "trials" / trial / "metrics.jsonl"


def delete(path: Path) -> None:
    path.unlink()


def tear_last_checkpointed_row(path: Path) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:9]) + lines[9][: len(lines[9]) // 2])


def cut_row_5(path: Path) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:4] + lines[5:]))


def cut_from_row_9(path: Path) -> None:
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:8]))


DAMAGES = [(delete, "file missing", 0), (tear_last_checkpointed_row, "torn last row", 9),
           (cut_row_5, "rows missing", 9), (cut_from_row_9, "rows missing", 8)]


def zoo(capsys, *args) -> tuple[int, str]:
    """Exit code, and stdout and stderr together."""
    capsys.readouterr()
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_checkpoint_records_the_rows_its_trial_had_written(run):
    progress = json.loads((run / "trials" / "000" / "checkpoints" / CHECKPOINT / "progress.json").read_text())
    rows = [json.loads(line) for line in metrics(run).read_text().splitlines()]
    assert len(rows) == 20 and progress["done"] == [10]
    assert progress["rows"] == [10] and progress["last_steps"] == [rows[9]["step"]] == progress["steps"]


def test_an_intact_run_resumes_and_reports_without_a_loss(run, capsys):
    with metrics(run).open("a") as handle:
        handle.write('{"step": 99999, "episode_ret')  # a kill while a row after the checkpoint was written
    code, err = zoo(capsys, "resume", run, "--no-progress")
    assert code == 0, err
    assert "lost" not in err and "lost_rows" not in json.loads((run / "run.json").read_text())
    assert len(metrics(run).read_text().splitlines()) == 20  # 10 kept, 10 trained again
    code, err = zoo(capsys, "report", run, "-o", run.parent / "report")
    assert code == 0 and "lost" not in err and "Not final" not in (run.parent / "report" / "report.md").read_text()


@pytest.mark.parametrize("damage, kind, found", DAMAGES, ids=[d[0].__name__ for d in DAMAGES])
def test_resume_refuses_lost_rows_names_them_and_records_them(run, capsys, damage, kind, found):
    damage(metrics(run))
    before = metrics(run).read_bytes() if metrics(run).exists() else None
    code, err = zoo(capsys, "resume", run, "--no-progress")
    assert code == 2
    named = f"{metrics(run)}: {kind}: checkpoint {CHECKPOINT} recorded 10 rows"
    assert named in err and f"), {found} found" in err and f"zoo resume {run} --accept-lost-rows" in err, err
    assert (metrics(run).read_bytes() if metrics(run).exists() else None) == before  # nothing trained, nothing cut
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "interrupted"
    [record] = manifest["lost_rows"]
    assert record["file"] == "trials/000/metrics.jsonl" and record["trial"] == 0 and record["kind"] == kind
    assert (record["expected"], record["found"], record["accepted"]) == (10, found, None)


@pytest.mark.parametrize("damage, kind, found", DAMAGES, ids=[d[0].__name__ for d in DAMAGES])
def test_every_report_of_the_run_names_the_loss_before_and_after_an_accepted_resume(run, finished_run, capsys, damage,
                                                                                   kind, found):
    damage(metrics(run))
    named = f"lost metrics rows: {metrics(run)}: {kind}: checkpoint {CHECKPOINT} recorded 10 rows"
    code, err = zoo(capsys, "report", run, "-o", run.parent / "before")
    assert code == 0 and named in err and f"), {found} found" in err
    assert named in (run.parent / "before" / "report.md").read_text()
    assert json.loads((run / "run.json").read_text())["lost_rows"][0]["found"] == found  # the report recorded it
    code, err = zoo(capsys, "resume", run, "--no-progress", "--accept-lost-rows")
    assert code == 0 and f"{metrics(run)}: {kind}" in err
    [record] = json.loads((run / "run.json").read_text())["lost_rows"]
    assert record["accepted"] is not None and record["found"] == found
    # the resumed trial holds the rows found and the ten trained again; nothing in the file shows a loss any more
    assert len([line for line in metrics(run).read_text().splitlines() if line.endswith("}")]) == found + 10
    code, err = zoo(capsys, "report", run, "-o", run.parent / "after")
    report = (run.parent / "after" / "report.md").read_text()
    assert code == 0 and named in err and named in report and "training continued over the loss" in report
    summary = json.loads((run.parent / "after" / "summary.json").read_text())
    assert any(named in note for note in summary["caveats"]["damaged"])
    code, out = zoo(capsys, "compare", run, finished_run)
    assert code == 0 and f"warning: {named}" in out


def test_accepting_marks_the_refusals_record_rather_than_adding_one(run, capsys):
    cut_row_5(metrics(run))
    assert zoo(capsys, "resume", run, "--no-progress")[0] == 2
    assert zoo(capsys, "resume", run, "--no-progress", "--accept-lost-rows")[0] == 0
    [record] = json.loads((run / "run.json").read_text())["lost_rows"]
    assert record["accepted"] is not None and record["noticed"] <= record["accepted"]


def test_resume_names_the_damaged_lines_it_keeps(run, capsys):
    lines = metrics(run).read_text().splitlines(keepends=True)
    metrics(run).write_text("".join(lines[:3] + ["not a row\n"] + lines[3:]))
    code, err = zoo(capsys, "resume", run, "--no-progress")
    assert f"{metrics(run)}:4: damaged metrics line kept (not JSON" in err
    # the damaged line stands for no row: the ten recorded rows are all there
    assert code == 0 and "lost" not in err
