"""Same spec + same seed gives the same numbers, and an interrupted run resumes to them exactly.

The deterministic agent is the example plugin's tabular Q-learner (tests/thirdparty_plugin), whose
checkpoints hold its whole training state. Runs go through the ``zoo`` command in subprocesses,
which are interrupted with SIGKILL (kill -9) or SIGINT (Ctrl-C) once a checkpoint exists.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # runs in subprocesses, killed and resumed; pip-installs the example plugin

STEPS = 100_000

CORRIDOR = f"""\
env:
  type: corridor
  length: 12
  slip: 0.1
agent:
  type: tabular-q
  epsilon: 0.2
budget:
  steps: {STEPS}
  checkpoint_every: 10000
  eval_episodes: 5
trials: {{trials}}
seed: 7
backend:
  workers: {{workers}}
logging:
  tensorboard: false
  progress: false
  keep_checkpoints: 100
"""

PPO = """\
env:
  type: gym
  id: CartPole-v1
agent:
  type: ppo
  n_steps: 512
  batch_size: 128
  n_epochs: 4
budget:
  steps: 2048
  eval_episodes: 2
seed: 3
logging:
  tensorboard: false
  progress: false
"""

TIMING = ("wall_seconds", "cpu_seconds")


@pytest.fixture(scope="module")
def zoo_cli(example_plugin_site, zoo_cli_with):
    """``zoo`` with only the plugins these specs use: the runs, not plugin loading, are under test."""
    return zoo_cli_with(example_plugin_site, ZOO_PLUGINS="example,gym,sb3")


def write_spec(folder: Path, text: str, **fields) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "spec.yaml"
    path.write_text(text.format(**fields))
    return path


def train(zoo_cli, spec: Path, run: Path) -> Path:
    result = zoo_cli.run("train", spec, "--run-dir", run, "--no-progress")
    assert result.returncode == 0, result.stderr
    return run


def trial_dirs(run: Path) -> list[Path]:
    folder = run / "trials"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def outcome(run: Path) -> list[dict]:
    """Per trial: the metrics file, the result without timings and the final checkpoint's contents."""
    trials = []
    for trial in trial_dirs(run):
        result = json.loads((trial / "result.json").read_text())
        final = trial / "checkpoints" / f"step-{result['steps']:012d}" / "agent"
        entry = {
            "metrics": (trial / "metrics.jsonl").read_text(),
            "result": {k: v for k, v in result.items() if k not in TIMING},
        }
        if (final / "state.json").exists():
            with np.load(final / "q.npz", allow_pickle=False) as data:
                entry["q"] = data["q"].tobytes()
            entry["state"] = json.loads((final / "state.json").read_text())
        trials.append(entry)
    return trials


def status(run: Path) -> str:
    return json.loads((run / "run.json").read_text())["status"]


def checkpoints(run: Path) -> dict[str, int]:
    """Complete checkpoints of every trial, as {trial/step: inode}: a rewritten one gets a new inode."""
    return {
        f"{trial.name}/{step.name}": step.stat().st_ino
        for trial in trial_dirs(run) if (trial / "checkpoints").is_dir()
        for step in (trial / "checkpoints").iterdir() if step.name.startswith("step-") and (step / "COMPLETE").exists()
    }


def interrupt(zoo_cli, spec: Path, run: Path, trials: int, sig: signal.Signals) -> subprocess.CompletedProcess:
    """Start ``zoo train`` in its own process group; signal the group once each trial has a checkpoint.

    The whole group is signalled, as a terminal's Ctrl-C does (killing the parent alone is tested below).
    """
    process = zoo_cli.popen("train", spec, "--run-dir", run, "--no-progress", start_new_session=True)
    deadline = time.monotonic() + 60
    try:
        while not run.exists() or len({name.split("/")[0] for name in checkpoints(run)}) < trials:
            if process.poll() is not None:
                pytest.fail(f"zoo train ended (code {process.returncode}) before it could be interrupted:\n"
                            f"{process.stderr.read()}")
            if time.monotonic() > deadline:
                pytest.fail("no checkpoint within 60 s")
            time.sleep(0.01)
        os.killpg(process.pid, sig)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def resume(zoo_cli, run: Path, *, by_id: bool = False) -> None:
    """``zoo resume`` the run, and check that it continued from the checkpoints instead of restarting."""
    before = checkpoints(run)
    unfinished = [trial.name for trial in trial_dirs(run) if not (trial / "result.json").exists()]
    assert unfinished, "the run was not cut short"
    assert all(any(name.startswith(f"{trial}/") for name in before) for trial in unfinished)
    target = [run.name, "--runs-dir", run.parent] if by_id else [run]
    result = zoo_cli.run("resume", *target, "--no-progress")
    assert result.returncode == 0, result.stderr
    assert status(run) == "finished"
    after = checkpoints(run)
    assert {name: after.get(name) for name in before} == before, "checkpoints from before the interruption were rewritten"


@pytest.fixture(scope="module")
def reference(zoo_cli, tmp_path_factory) -> Path:
    """An uninterrupted one-trial run."""
    folder = tmp_path_factory.mktemp("reference")
    return train(zoo_cli, write_spec(folder, CORRIDOR, trials=1, workers=1), folder / "run")


@pytest.fixture(scope="module")
def parallel_reference(zoo_cli, tmp_path_factory) -> Path:
    """An uninterrupted run of two trials in two worker processes."""
    folder = tmp_path_factory.mktemp("parallel-reference")
    return train(zoo_cli, write_spec(folder, CORRIDOR, trials=2, workers=2), folder / "run")


def test_same_spec_and_seed_give_the_same_numbers(zoo_cli, reference, tmp_path):
    again = train(zoo_cli, write_spec(tmp_path, CORRIDOR, trials=1, workers=1), tmp_path / "run")
    first, second = outcome(reference), outcome(again)
    assert first == second
    assert first[0]["result"]["steps"] == STEPS and first[0]["metrics"].count("\n") > 1000


def test_trials_with_other_seeds_give_other_numbers(parallel_reference):
    one, two = outcome(parallel_reference)
    assert one["result"]["seed"] != two["result"]["seed"]
    assert one["metrics"] != two["metrics"] and one["q"] != two["q"]


def test_sb3_ppo_is_deterministic_on_cpu(zoo_cli, tmp_path):
    spec = write_spec(tmp_path, PPO)
    first = outcome(train(zoo_cli, spec, tmp_path / "first"))
    second = outcome(train(zoo_cli, spec, tmp_path / "second"))
    assert first == second
    assert "train/loss" in first[0]["metrics"] and len(first[0]["result"]["eval_returns"]) == 2


def test_kill_9_then_resume_ends_as_an_uninterrupted_run(zoo_cli, reference, tmp_path):
    run = tmp_path / "run"
    killed = interrupt(zoo_cli, write_spec(tmp_path, CORRIDOR, trials=1, workers=1), run, 1, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    assert status(run) == "running"  # the killed process recorded nothing more
    resume(zoo_cli, run)
    assert outcome(run) == outcome(reference)

    again = zoo_cli.run("resume", run, "--no-progress")
    assert again.returncode == 2 and "already finished" in again.stderr


def test_ctrl_c_leaves_a_resumable_run_that_ends_as_an_uninterrupted_one(zoo_cli, reference, tmp_path):
    run = tmp_path / "run"
    stopped = interrupt(zoo_cli, write_spec(tmp_path, CORRIDOR, trials=1, workers=1), run, 1, signal.SIGINT)
    assert stopped.returncode == 130, stopped.stderr
    assert status(run) == "interrupted"
    assert f"zoo resume {run}" in stopped.stderr
    resume(zoo_cli, run, by_id=True)
    assert outcome(run) == outcome(reference)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_parallel_trials_resume(zoo_cli, parallel_reference, tmp_path, sig):
    run = tmp_path / "run"
    stopped = interrupt(zoo_cli, write_spec(tmp_path, CORRIDOR, trials=2, workers=2), run, 2, sig)
    assert stopped.returncode == (130 if sig == signal.SIGINT else -signal.SIGKILL), stopped.stderr
    assert status(run) == ("interrupted" if sig == signal.SIGINT else "running")
    resume(zoo_cli, run)
    assert outcome(run) == outcome(parallel_reference)


def test_workers_end_when_their_parent_is_killed_alone(zoo_cli, tmp_path):
    """kill -9 of `zoo train` alone (not its process group) leaves no worker training on as an orphan."""
    run = tmp_path / "run"
    process = zoo_cli.popen("train", write_spec(tmp_path, CORRIDOR, trials=2, workers=2), "--run-dir", run,
                            "--no-progress", start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len({name.split("/")[0] for name in checkpoints(run)}) < 2 if run.exists() else True:
            assert process.poll() is None and time.monotonic() < deadline, "no checkpoints from both workers"
            time.sleep(0.01)
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        assert len(children) >= 2
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{child}").exists() for child in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [child for child in children if Path(f"/proc/{child}").exists()], "orphaned workers"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    resume(zoo_cli, run)


def test_sigterm_to_a_worker_pool_stops_at_checkpoints_and_exits_143(zoo_cli, parallel_reference, tmp_path):
    """docker stop, systemd and Slurm send SIGTERM to the whole process group."""
    run = tmp_path / "run"
    stopped = interrupt(zoo_cli, write_spec(tmp_path, CORRIDOR, trials=2, workers=2), run, 2, signal.SIGTERM)
    assert stopped.returncode == 143, stopped.stderr
    assert "Traceback" not in stopped.stderr and "Ctrl-C" not in stopped.stderr
    assert status(run) == "interrupted"
    assert json.loads((run / "run.json").read_text())["stopped_by"] == "SIGTERM"
    resume(zoo_cli, run)
    assert outcome(run) == outcome(parallel_reference)


def test_a_killed_worker_is_reported_and_the_run_resumes(zoo_cli, parallel_reference, tmp_path):
    """A worker killed alone (as the out-of-memory killer does) is named; the other trial goes on."""
    run = tmp_path / "run"
    process = zoo_cli.popen("train", write_spec(tmp_path, CORRIDOR, trials=2, workers=2), "--run-dir", run,
                            "--no-progress", start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len({name.split("/")[0] for name in checkpoints(run)}) < 2 if run.exists() else True:
            assert process.poll() is None and time.monotonic() < deadline, "no checkpoints from both workers"
            time.sleep(0.01)
        workers = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        trainers = [pid for pid in workers if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(trainers) == 2
        os.kill(int(trainers[-1]), signal.SIGKILL)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 1, err
    assert "killed by SIGKILL" in err and "Traceback" not in err
    assert status(run) == "failed"
    assert sum((trial / "result.json").exists() for trial in trial_dirs(run)) == 1  # the other trial finished
    resume(zoo_cli, run)
    assert outcome(run) == outcome(parallel_reference)


def test_two_resumes_at_once_train_the_run_once(zoo_cli, reference, tmp_path):
    run = tmp_path / "run"
    stopped = interrupt(zoo_cli, write_spec(tmp_path, CORRIDOR, trials=1, workers=1), run, 1, signal.SIGINT)
    assert stopped.returncode == 130, stopped.stderr
    both = [zoo_cli.popen("resume", run, "--no-progress") for _ in range(2)]
    ends = [process.communicate(timeout=120) + (process.returncode,) for process in both]
    codes = sorted(code for _, _, code in ends)
    assert codes == [0, 2], ends
    (_, refused, _), = [end for end in ends if end[2] == 2]
    # both start together (training takes seconds); the loser may read the claim before its holder is written
    assert "is being trained by" in refused, refused
    assert status(run) == "finished"
    assert outcome(run) == outcome(reference)


def test_sigterm_to_a_single_process_run_exits_143_and_resumes(zoo_cli, reference, tmp_path):
    run = tmp_path / "run"
    stopped = interrupt(zoo_cli, write_spec(tmp_path, CORRIDOR, trials=1, workers=1), run, 1, signal.SIGTERM)
    assert stopped.returncode == 143, stopped.stderr
    assert "SIGTERM: stopping at the next checkpoint" in stopped.stderr and status(run) == "interrupted"
    resume(zoo_cli, run)
    assert outcome(run) == outcome(reference)


def test_trials_that_fail_alike_are_named_together_and_a_lost_worker_on_its_own():
    from zoo.workers import WorkerFailed, _lost, _together

    same = "the zoo's essential plugins core, catalog are not installed"
    failures = [([1], WorkerFailed(same, "trace"), True), ([0], WorkerFailed(same, "trace"), True),
                ([3], _lost([3], -9), False), ([2, 4], WorkerFailed(same), True), ([5], WorkerFailed("other"), True)]
    error = _together(failures)
    assert str(error) == (f"trial(s) 0, 1, 2, 4: {same}; the worker of trial(s) 3 was killed by SIGKILL (as the "
                          "out-of-memory killer does); the other trials' checkpoints are intact, and 'zoo resume' "
                          "continues from them; trial(s) 5: other")
    assert error.details == "trace"
