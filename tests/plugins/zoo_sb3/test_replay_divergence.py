"""An SB3 agent resumed on an env whose saved state misses some of its randomness: the replayed episode is not
the recorded one. The agent says so, records the resume as not exact and goes on from new episodes, instead
of pairing the saved observations with another episode's env (which it did before it compared them)."""

from __future__ import annotations

import json
import logging
import types
from pathlib import Path

import pytest
from zoo_testing import HiddenSlips

from zoo import EnvEntry, Interrupted, execute_run, hookimpl, prepare_run, run_trials
from zoo.registry import Registry

ROOT = Path(__file__).resolve().parents[3]
SPEC = """env: {type: hidden-corridor, length: 12, max_steps: 200}
agent: {type: ppo, n_steps: 64, batch_size: 32, n_epochs: 1}
budget: {steps: 512, checkpoint_every: 128}
seed: 4
logging: {tensorboard: false, progress: false, keep_checkpoints: 10}
"""


@pytest.fixture
def registry(monkeypatch) -> Registry:
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "thirdparty_plugin" / "src"))
    from zoo_example.corridor import CorridorEnv, CorridorParams

    class HiddenCorridor(HiddenSlips, CorridorEnv):
        pass

    plugin = types.SimpleNamespace(register_envs=hookimpl(lambda register: register(EnvEntry(
        name="hidden-corridor", params=CorridorParams, factory=lambda params, seed: HiddenCorridor(params)))))
    registry = Registry()
    registry.load_entry_points()
    registry.add("hidden", plugin)
    return registry


def test_a_replay_that_misses_the_recorded_episode_is_reported_and_not_counted_exact(registry, tmp_path, caplog):
    source = tmp_path / "spec.yaml"
    source.write_text(SPEC)
    folder = prepare_run(source, registry, tmp_path / "runs", tmp_path / "runs" / "cut")
    checkpoints = folder.trial_dir(0) / "checkpoints"
    with pytest.raises(Interrupted):
        run_trials(folder.path, [0], registry=registry,
                   should_stop=lambda: any(int(p.name[5:]) >= 256 for p in checkpoints.glob("step-*")))
    recording = json.loads((max(checkpoints.glob("step-*")) / "agent" / "rollout.json").read_text())
    assert any(env["start"]["seed"] is None and env["actions"] for env in recording["envs"])  # mid-episode, unseeded

    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert execute_run(folder, registry, progress=False) == "finished"
    assert "env(s) 0 of trial 0 did not replay their episode in progress exactly" in caplog.text
    resumes = [json.loads(line) for line in (folder.trial_dir(0) / "resumes.jsonl").read_text().splitlines()]
    assert [r["exact"] for r in resumes] == [False]
    steps = [json.loads(line)["step"] for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]
    assert steps == sorted(steps) and steps[-1] <= 512
