"""SB3 agents on a MinAtar game, stopped mid-episode and resumed, against the uninterrupted run.

MinAtar's games draw from a random state of their own; without the env's get_state/set_state a
resumed agent replays its episode on a different game and the rows part ways (or the replay runs into
an episode that already ended).
"""

from __future__ import annotations

import json

import pytest

from zoo import Interrupted, execute_run, prepare_run, run_trials
from zoo.registry import get_registry

SPEC = """env: {type: minatar, game: breakout}
agent: {type: AGENT}
budget: {steps: 900, checkpoint_every: 150}
seed: 3
logging: {tensorboard: false, progress: false, keep_checkpoints: 100}
"""
AGENTS = {"dqn": "learning_starts: 100, buffer_size: 1000", "ppo": "n_steps: 64, batch_size: 32, n_epochs: 1"}


def new_run(tmp_path, agent, name):
    source = tmp_path / f"{name}.yaml"
    source.write_text(SPEC.replace("AGENT", f"{agent}, {AGENTS[agent]}"))
    return prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / name)


def rows(folder):
    return [json.loads(line) for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_stopped_mid_episode_and_resumed_gives_the_same_rows(agent, tmp_path):
    registry = get_registry()
    whole = new_run(tmp_path, agent, "whole")
    assert execute_run(whole, registry, progress=False) == "finished"

    cut = new_run(tmp_path, agent, "cut")
    checkpoints = cut.trial_dir(0) / "checkpoints"
    with pytest.raises(Interrupted):  # stopped once a checkpoint at step 450 or later is written
        run_trials(cut.path, [0], registry=registry,
                   should_stop=lambda: any(int(p.name[5:]) >= 450 for p in checkpoints.glob("step-*")))
    checkpoint = max(checkpoints.glob("step-*"))
    recording = json.loads((checkpoint / "agent" / "rollout.json").read_text())
    assert any(env["start"]["seed"] is None and env["actions"] for env in recording["envs"])  # mid-episode, unseeded
    assert execute_run(cut, registry, progress=False) == "finished"

    assert json.loads(cut.manifest_path.read_text())["resumed"] == {"0": [checkpoint.name]}
    assert rows(cut) == rows(whole)
