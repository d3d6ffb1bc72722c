"""Run folders that lose nothing: damaged metrics and checkpoints, an edited spec, claims and names.

The in-process runs use the ALE paper's random agent on SyntheticAtari Catch (fast, resumes exactly);
the concurrent ones go through the ``zoo`` command in subprocesses.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess

import pytest
from zoo_catalog.index import RunIndex

from zoo import Interrupted, execute_run, prepare_run, run_trials
from zoo.errors import ZooError
from zoo.metrics import read_metrics, scan_metrics
from zoo.registry import get_registry
from zoo.store import RunFolder, find_run

SPEC = """\
env: {type: synthetic-atari, game: catch}
agent: {type: ale-baseline, policy: random}
budget: {episodes: 40, checkpoint_every: 10}
seed: 4
logging: {tensorboard: false, progress: false, keep_checkpoints: 10}
"""


def new_run(tmp_path, name: str) -> RunFolder:
    source = tmp_path / f"{name}.yaml"
    source.write_text(SPEC)
    return prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / name)


def interrupted_run(tmp_path, name: str, chunks: int = 25) -> RunFolder:
    """A run stopped after `chunks` learn() calls (a chunk is one episode here; checkpoints every 10)."""
    folder = new_run(tmp_path, name)
    answers = iter([False] * (chunks - 1))
    with pytest.raises(Interrupted):
        run_trials(folder.path, [0], should_stop=lambda: next(answers, True))
    return folder


def metrics_path(folder: RunFolder):
    return folder.trial_dir(0) / "metrics.jsonl"


@pytest.fixture
def reference(tmp_path) -> list[dict]:
    folder = new_run(tmp_path, "reference")
    assert execute_run(folder, get_registry(), progress=False) == "finished"
    return read_metrics(metrics_path(folder))


def warnings(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)


def test_a_damaged_metrics_line_is_named_and_the_rows_after_it_are_read(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text('{"step": 1, "x": 1.0}\nnot json\n{"step": 3, "x": 3.0}\n["a list"]\n{"x": 5}\n'
                    '{"step": 6, "x": 6.0, "y": null}\n{"step": 7, "x": Infinity}\n{"step": 8.5}\n{"step": -1}\n'
                    '{"step": 10, "x": "1"}\n{"st')
    rows, damaged = scan_metrics(path)
    assert [row["step"] for row in rows] == [1, 3, 6]
    assert [(line.number, line.reason.split(":")[0]) for line in damaged] == [
        (2, "not JSON"), (4, "not a JSON object"), (5, "no integer 'step'"), (7, "non-finite 'x'"),
        (8, "no integer 'step'"), (9, "negative step -1"), (10, "'x' is '1', not a number")]
    assert str(damaged[0]).startswith(f"{path}:2: damaged metrics row")  # the torn last line is no damage


def test_resume_keeps_a_damaged_metrics_line_and_every_row(tmp_path, reference, caplog):
    folder = interrupted_run(tmp_path, "cut")
    lines = metrics_path(folder).read_text().splitlines()
    lines[3] = lines[3][:-5] + "#"  # row 4 of a stopped run, before its checkpoint
    metrics_path(folder).write_text("\n".join(lines) + "\n")
    assert execute_run(folder, get_registry(), progress=False) == "finished"
    kept = metrics_path(folder).read_text().splitlines()
    assert kept[3] == lines[3], "the line it could not read was deleted"
    with caplog.at_level(logging.WARNING, logger="zoo"):
        rows = read_metrics(metrics_path(folder))
    assert f"{metrics_path(folder)}:4: damaged metrics row skipped" in warnings(caplog)
    assert rows == reference[:3] + reference[4:]


@pytest.mark.parametrize("damage", ["truncated agent file", "garbage random states", "no progress.json"])
def test_resume_falls_back_to_the_newest_loadable_checkpoint(tmp_path, reference, caplog, damage):
    folder = interrupted_run(tmp_path, "cut")
    checkpoints = sorted((folder.trial_dir(0) / "checkpoints").glob("episode-*"))
    newest = checkpoints[-1]
    assert newest.name == "episode-000000000025" and len(checkpoints) == 3
    if damage == "truncated agent file":
        (newest / "agent" / "baseline.json").write_text("")
    elif damage == "garbage random states":
        (newest / "rng.pt").write_bytes(b"\x80" * (newest / "rng.pt").stat().st_size)
    else:
        (newest / "progress.json").unlink()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert execute_run(folder, get_registry(), progress=False) == "finished"
    text = warnings(caplog)
    assert f"checkpoint {newest} is damaged" in text or f"checkpoint {newest} could not be loaded" in text
    assert "weights_only" not in text and "trying an older checkpoint" in text
    assert json.loads(folder.manifest_path.read_text())["resumed"] == {"0": ["episode-000000000020"]}
    assert read_metrics(metrics_path(folder)) == reference


def test_a_spec_edited_after_the_run_was_created_is_refused(tmp_path):
    folder = interrupted_run(tmp_path, "cut")
    spec = folder.path / "spec.yaml"
    spec.write_text(spec.read_text().replace("seed: 4", "seed: 5"))
    with pytest.raises(ZooError, match="spec.yaml was edited after the run was created"):
        execute_run(folder, get_registry(), progress=False)


def test_a_claimed_run_is_refused_to_a_second_trainer(tmp_path):
    folder = interrupted_run(tmp_path, "cut")
    other = RunFolder(folder.path)
    with folder.claim():
        with pytest.raises(ZooError, match=r"being trained by process \d+ on "):
            execute_run(other, get_registry(), progress=False)
    assert execute_run(other, get_registry(), progress=False) == "finished"  # the claim ended with its holder


def test_a_run_marked_running_on_another_host_needs_force(tmp_path):
    folder = interrupted_run(tmp_path, "cut")
    folder.update(status="running", host="elsewhere", pid=123)
    with pytest.raises(ZooError, match="host elsewhere.*zoo resume --force"):
        execute_run(folder, get_registry(), progress=False)
    assert execute_run(folder, get_registry(), progress=False, force=True) == "finished"


def test_run_names_taken_get_a_suffix(tmp_path, monkeypatch):
    import datetime

    import zoo.run

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return cls(2026, 1, 2, 3, 4, 5)

    monkeypatch.setattr(zoo.run, "datetime", Frozen)
    source = tmp_path / "same.yaml"
    source.write_text(SPEC)
    runs = tmp_path / "runs"
    folders = [prepare_run(source, get_registry(), runs) for _ in range(3)]
    names = [folder.path.name for folder in folders]
    assert names == ["same-20260102-030405", "same-20260102-030405-2", "same-20260102-030405-3"]
    assert [json.loads(f.manifest_path.read_text())["id"] for f in folders] == names


def test_resume_by_an_id_that_copied_folders_share_names_every_match(tmp_path):
    folder = new_run(tmp_path, "original")
    copy = folder.path.with_name("copy")
    shutil.copytree(folder.path, copy)
    with pytest.raises(ZooError) as error:
        find_run("original", tmp_path / "runs")
    assert str(folder.path.resolve()) in str(error.value) and str(copy.resolve()) in str(error.value)
    assert find_run("copy", tmp_path / "runs") == copy.resolve()


@pytest.mark.slow  # pip-installs the example plugin; sixteen processes
def test_sixteen_concurrent_trains_of_one_spec_make_sixteen_runs(zoo_cli, tmp_path):
    source = tmp_path / "spec.yaml"
    source.write_text(SPEC.replace("episodes: 40", "episodes: 2"))
    runs = tmp_path / "runs"
    env = zoo_cli.env(ZOO_PLUGINS="atari")
    processes = [subprocess.Popen([str(zoo_cli.executable), "train", str(source), "--runs-dir", str(runs), "--no-progress"],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(16)]
    outputs = [process.communicate(timeout=300) for process in processes]
    for process, (_, err) in zip(processes, outputs):
        assert process.returncode == 0, err
    folders = sorted(path.parent for path in runs.glob("*/run.json"))
    assert len(folders) == 16
    assert all(json.loads((f / "run.json").read_text())["status"] == "finished" for f in folders)
    assert sorted(row["id"] for row in RunIndex(runs).query()) == sorted(f.name for f in folders)  # `zoo runs` sees all


def test_a_report_warns_of_an_unfinished_run_and_its_damaged_rows(tmp_path, caplog):
    from zoo_report.caveats import caveats
    from zoo_report.report import open_runs

    from zoo.returns import trial_returns

    folder = interrupted_run(tmp_path, "cut")
    with metrics_path(folder).open("a") as handle:
        handle.write('{"step": 999, "episode_return": NaN}\n')
    with caplog.at_level(logging.WARNING, logger="zoo"):
        (opened,) = open_runs([folder.path])
        (returns,) = trial_returns(opened)
    text = warnings(caplog)
    # stopped through run_trials, which leaves the status to execute_run
    assert caveats(opened) == ["run cut is created, not finished: trial 0 at 25 of 40 episodes (its last checkpoint)"]
    lines = metrics_path(folder).read_text().count("\n")
    assert f"{metrics_path(folder)}:{lines}: damaged metrics row skipped (non-finite 'episode_return')" in text
    assert len(returns) == 25 and all(step != 999 for step, _ in returns)


def test_with_every_checkpoint_damaged_the_trial_starts_over_and_keeps_damaged_lines(tmp_path, reference, caplog):
    folder = interrupted_run(tmp_path, "cut")
    for checkpoint in (folder.trial_dir(0) / "checkpoints").glob("episode-*"):
        (checkpoint / "rng.pt").write_bytes(b"")
    with metrics_path(folder).open("a") as handle:
        handle.write("{damaged\n")
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert execute_run(folder, get_registry(), progress=False) == "finished"
    assert "training starts from the beginning" in warnings(caplog)
    assert metrics_path(folder).read_text().splitlines()[0] == "{damaged"
    assert read_metrics(metrics_path(folder)) == reference


def test_unloadable_checkpoints_are_set_aside_so_a_second_stop_after_starting_over_resumes(tmp_path, reference):
    """Left in place, the unloadable newest checkpoint outranked the fresh start's: the next resume compared
    the restarted metrics with its row count and refused the run (seen on a board's SB3 DQN cell)."""
    folder = interrupted_run(tmp_path, "cut")
    checkpoints = folder.trial_dir(0) / "checkpoints"
    damaged = sorted(path.name for path in checkpoints.glob("episode-*"))
    for name in damaged:  # complete and of the listed sizes, but not loadable (as an agent's own load failing)
        rng = checkpoints / name / "rng.pt"
        rng.write_bytes(b"x" * rng.stat().st_size)
    answers = iter([False] * 14)  # starts over and stops again at episode 15, before the old checkpoints' 20
    with pytest.raises(Interrupted):
        run_trials(folder.path, [0], should_stop=lambda: next(answers, True))
    assert sorted(path.name for path in checkpoints.glob("unloadable-*")) == [f"unloadable-{n}" for n in damaged]
    assert execute_run(folder, get_registry(), progress=False) == "finished"
    assert read_metrics(metrics_path(folder)) == reference
