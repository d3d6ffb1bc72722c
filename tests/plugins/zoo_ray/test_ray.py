"""The ray backend: trial groups as Ray tasks on a local Ray with two CPUs.

The same spec gives the local backend's numbers, a worker killed mid-trial is replaced and its trial
continues from the checkpoint the driver holds, Ctrl-C leaves a run that resumes to the same numbers,
and bad input (an unreachable cluster, Ray missing, an error in the task) is reported as for local runs.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
import ray
from ray_runs import LOCAL, RAY, SPEC, numbers, train

from zoo import execute_run, prepare_run
from zoo.cli import main
from zoo.registry import get_registry

pytestmark = pytest.mark.slow  # starts Ray


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    yield
    ray.shutdown()


def test_trials_on_ray_give_the_local_numbers(tmp_path):
    local, local_status = train(tmp_path, "local", LOCAL, trials=3)
    remote, remote_status = train(tmp_path, "remote", RAY, trials=3)
    assert local_status == remote_status == "finished"
    assert numbers(remote.path) == numbers(local.path)
    assert len(numbers(local.path)["000"]["rows"]) > 0


def _train_group_pids() -> list[int]:
    """Processes running the ray backend's task, found by the title Ray gives a worker while it runs one."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and b"ray::_train_group" in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            continue
    return pids


def _when_checkpointed(folder, act) -> threading.Thread:
    """Call `act` once a checkpoint of trial 0 has reached the run folder (and before the trial ends)."""
    def watch():
        root = folder.trial_dir(0) / "checkpoints"
        deadline = time.time() + 60
        while time.time() < deadline and not (root.is_dir() and any(root.glob("episode-*"))):
            time.sleep(0.02)
        act()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_a_killed_worker_is_replaced_and_its_trial_ends_with_the_uninterrupted_numbers(tmp_path):
    # 300 episodes: long enough that the task is still running when its first checkpoint reaches the driver
    reference, _ = train(tmp_path, "reference", LOCAL, episodes=300, every=6)
    source = tmp_path / "killed.yaml"
    source.write_text(SPEC.format(backend=RAY, trials=1, episodes=300, every=6))
    folder = prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / "killed")
    killed = []
    watcher = _when_checkpointed(folder, lambda: killed.extend(os.kill(pid, signal.SIGKILL) or pid for pid in _train_group_pids()))
    assert execute_run(folder, get_registry(), progress=False) == "finished"
    watcher.join()
    assert killed, "no worker was running the trial when its first checkpoint arrived"
    assert folder.manifest()["resumed"].get("0"), "the trial did not continue from a checkpoint"
    assert numbers(folder.path) == numbers(reference.path)


def test_ctrl_c_stops_the_ray_tasks_at_a_checkpoint_and_resume_finishes_the_run(tmp_path):
    # long enough that the stop, sent when the first checkpoint reaches the driver, finds the task still
    # training even on a loaded machine (the stop travels through the stop actor, read every SCAN_SECONDS)
    reference, _ = train(tmp_path, "reference", LOCAL, episodes=300, every=6)
    source = tmp_path / "stopped.yaml"
    source.write_text(SPEC.format(backend=RAY, trials=1, episodes=300, every=6))
    folder = prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / "stopped")
    _when_checkpointed(folder, lambda: os.kill(os.getpid(), signal.SIGINT))
    assert execute_run(folder, get_registry(), progress=False) == "interrupted"
    assert not (folder.trial_dir(0) / "result.json").exists()
    assert execute_run(folder, get_registry(), progress=False) == "finished"
    assert folder.manifest()["resumed"].get("0")
    # the checkpoint written where the trial stopped stays beside the periodic ones
    assert numbers(folder.path, checkpoints=False) == numbers(reference.path, checkpoints=False)


def test_an_error_in_the_task_is_a_failed_run_with_its_traceback(tmp_path):
    backend = "{type: ray, scratch: " + str(tmp_path / "no-such-folder") + "}"
    source = tmp_path / "broken.yaml"
    source.write_text(SPEC.format(backend=backend, trials=1, episodes=4, every=2))
    folder = prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / "broken")
    with pytest.raises(Exception, match="failed"):
        execute_run(folder, get_registry(), progress=False)
    manifest = folder.manifest()
    assert manifest["status"] == "failed"
    assert "FileNotFoundError" in manifest["traceback"]


def _spec_file(tmp_path: Path) -> Path:
    source = tmp_path / "spec.yaml"
    source.write_text(SPEC.format(backend=LOCAL, trials=1, episodes=4, every=2))
    return source


def test_an_unreachable_cluster_is_refused_within_seconds_and_no_run_folder_is_made(tmp_path, capsys):
    started = time.time()
    code = main(["train", str(_spec_file(tmp_path)), "--address", "127.0.0.1:9", "--runs-dir", str(tmp_path / "runs")])
    assert code == 2 and time.time() - started < 10
    error = capsys.readouterr().err.strip()
    assert "backend.address '127.0.0.1:9'" in error and "ray start --head" in error and "\n" not in error
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_without_ray_the_error_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    code = main(["train", str(_spec_file(tmp_path)), "--backend", "ray", "--runs-dir", str(tmp_path / "runs")])
    assert code == 2
    assert capsys.readouterr().err.strip() == "error: the ray backend needs Ray, which is not installed: pip install 'zoo-rl[ray]'"
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_a_study_with_backend_ray_trains_every_run_on_ray(tmp_path):
    from zoo_gohr_study.study import run_study

    from zoo.overrides import Overrides

    study = tmp_path / "study.yaml"
    study.write_text("name: tiny\nbase:\n" + "".join(f"  {line}\n" for line in SPEC.format(
        backend=LOCAL, trials=2, episodes=4, every=2).splitlines()) + "runs:\n  a: {seed: 1}\n  b: {seed: 2}\n")
    _, folders, status = run_study(study, get_registry(), tmp_path / "runs", progress=False,
                                   overrides=Overrides(backend="ray"))
    assert status == "finished" and len(folders) == 2
    for path in folders:
        assert "type: ray" in (path / "spec.yaml").read_text()
        assert len(list(path.glob("trials/*/result.json"))) == 2
