"""A resumed trial's result counts the CPU and wall seconds of every process that trained it, not only the last."""

from __future__ import annotations

import json

import pytest

import zoo.agent
from zoo import prepare_run
from zoo.registry import get_registry
from zoo.trials import Interrupted, run_trials

SPEC = "env: {type: gym, id: CartPole-v1}\nagent: {type: a2c}\nbudget: {steps: 200, checkpoint_every: 50}\n" \
       "logging: {tensorboard: false, progress: false}\n"


class Clock:
    """process_time and time for zoo.agent that move only when the test moves them."""

    def __init__(self):
        self.now = 0.0

    def process_time(self) -> float:
        return self.now

    def time(self) -> float:
        return 1000.0 + 2 * self.now


def test_cpu_seconds_add_up_over_an_interruption(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(zoo.agent, "time", clock)
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    folder = prepare_run(spec, get_registry(), tmp_path / "runs", tmp_path / "runs" / "run")

    def stop_after_a_chunk() -> bool:
        clock.now += 100.0  # the first process trains for 100 CPU-s, then is stopped at a checkpoint
        return True

    with pytest.raises(Interrupted):
        run_trials(folder.path, [0], should_stop=stop_after_a_chunk)
    chunks = []

    def keep_going() -> bool:
        clock.now += 5.0
        chunks.append(1)
        return False

    [result] = run_trials(folder.path, [0], should_stop=keep_going)
    assert result["steps"] >= 200 and len(chunks) > 1
    assert result["cpu_seconds"] == pytest.approx(100.0 + 5.0 * len(chunks))
    assert result["wall_seconds"] == pytest.approx(2 * (100.0 + 5.0 * len(chunks)))
    assert json.loads((folder.trial_dir(0) / "result.json").read_text())["cpu_seconds"] == result["cpu_seconds"]
