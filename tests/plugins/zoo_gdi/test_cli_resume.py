"""Ctrl-C during ``zoo train`` of a GDI spec leaves an interrupted run that ``zoo resume`` finishes.

Runs the ``zoo`` command in its own process group and sends SIGINT to the group, as a terminal's
Ctrl-C does, once the trial has written a checkpoint.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

STEPS = 4000

SPEC = f"""\
env: {{type: gym, id: CartPole-v1}}
agent: {{type: gdi-h3, num_envs: 4, batch: 4, length: 10, burn_in: 4, network: {{hidden: [32], lstm: 16}}}}
budget: {{steps: {STEPS}, checkpoint_every: 500}}
seed: 5
logging: {{tensorboard: false, progress: false, keep_checkpoints: 100}}
"""


def checkpoints(run: Path) -> dict[str, int]:
    """Complete checkpoints as {name: inode}: a rewritten one gets a new inode."""
    folder = run / "trials" / "000" / "checkpoints"
    if not folder.is_dir():
        return {}
    return {p.name: p.stat().st_ino for p in folder.iterdir() if p.name.startswith("step-") and (p / "COMPLETE").exists()}


def status(run: Path) -> str:
    return json.loads((run / "run.json").read_text())["status"]


@pytest.mark.slow  # a GDI run in a subprocess, interrupted and resumed
def test_ctrl_c_then_zoo_resume_finishes_a_gdi_run(zoo_cli_with, tmp_path):
    zoo = zoo_cli_with(ZOO_PLUGINS="gym,learner,bandits,gdi")
    spec, run = tmp_path / "gdi.yaml", tmp_path / "run"
    spec.write_text(SPEC)
    process = zoo.popen("train", spec, "--run-dir", run, "--no-progress", start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while not checkpoints(run):
            if process.poll() is not None:
                pytest.fail(f"zoo train ended (code {process.returncode}) before a checkpoint:\n{process.stderr.read()}")
            assert time.monotonic() < deadline, "no checkpoint within 120 s"
            time.sleep(0.01)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert status(run) == "interrupted" and f"zoo resume {run}" in err
    trial = run / "trials" / "000"
    assert not (trial / "result.json").exists()
    before = checkpoints(run)
    stopped_at = max(int(name.split("-")[1]) for name in before)
    assert 0 < stopped_at < STEPS

    resumed = zoo.run("resume", run, "--no-progress")
    assert resumed.returncode == 0, resumed.stderr
    assert status(run) == "finished"
    assert {name: checkpoints(run).get(name) for name in before} == before  # continued, not restarted
    result = json.loads((trial / "result.json").read_text())
    assert result["steps"] >= STEPS
    rows = [json.loads(line) for line in (trial / "metrics.jsonl").read_text().splitlines()]
    steps = [row["step"] for row in rows]
    assert steps == sorted(steps) and steps[-1] >= STEPS
    assert any(stopped_at < row["step"] and "learner/loss" in row for row in rows)  # trained after the resume
