"""Every built-in agent, interrupted at a random checkpoint and resumed, against its uninterrupted run.

An agent that records ``exact_resume`` in the manifest must reproduce every metrics row; one that
does not must still reproduce the rows up to its checkpoint and finish the budget. Budgets are tiny:
the point is the checkpoint, not the learning.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from zoo.registry import get_registry
from zoo.run import Interrupted, execute_run, prepare_run, run_unit

CARTPOLE = "env: {type: gym, id: CartPole-v1}\n"
GOHR = "env: {type: gohr, rule: paper/color_match, horizon: 30}\n"
PENDULUM = "env: {type: gym, id: Pendulum-v1}\n"
SUBSTRATE = "num_envs: 2, batch: 2, length: 5, burn_in: 2, pull_every: 3, push_every: 2, network: {hidden: [16], lstm: 8}"

#: agent -> (env block, agent params, budget): every built-in agent with a small spec
SPECS = {
    "ppo": (CARTPOLE, "n_steps: 64, batch_size: 32, n_epochs: 2", "steps: 768, checkpoint_every: 128"),
    "a2c": (CARTPOLE, "n_steps: 8", "steps: 600, checkpoint_every: 100"),
    "dqn": (CARTPOLE, "learning_starts: 50, buffer_size: 500", "steps: 600, checkpoint_every: 100"),
    "sarsa": (GOHR, "features: {type: gohr-paper}, reward_norm: none", "episodes: 12, checkpoint_every: 2"),
    "ale-baseline": ("env: {type: synthetic-atari, game: catch}\n", "policy: random", "episodes: 12, checkpoint_every: 2"),
    "bfs": ("env: {type: synthetic-atari, game: catch}\n", "max_frames: 40", "episodes: 8, checkpoint_every: 2"),
    "uct": ("env: {type: synthetic-atari, game: catch}\n", "simulations: 6, horizon_frames: 6", "episodes: 8, checkpoint_every: 2"),
    "maskable-ppo": (GOHR, "n_steps: 32, batch_size: 16, n_epochs: 2", "steps: 256, checkpoint_every: 64"),
    "recurrent-ppo": (CARTPOLE, "n_steps: 32, batch_size: 16, n_epochs: 2", "steps: 256, checkpoint_every: 64"),
    "qrdqn": (CARTPOLE, "learning_starts: 50, buffer_size: 500", "steps: 400, checkpoint_every: 100"),
    "sac": (PENDULUM, "learning_starts: 50, buffer_size: 500, batch_size: 16", "steps: 300, checkpoint_every: 100"),
    "td3": (PENDULUM, "learning_starts: 50, buffer_size: 500, batch_size: 16", "steps: 300, checkpoint_every: 100"),
    "random-legal": (GOHR, "", "episodes: 12, checkpoint_every: 2"),
    "random": (PENDULUM, "", "steps: 2000, checkpoint_every: 400"),
    "gohr-linear-dqn": (GOHR, "batch_size: 8", "steps: 200, checkpoint_every: 40"),
    "gohr-mlp-dqn": (GOHR, "batch_size: 8, replay_size: 200", "steps: 200, checkpoint_every: 40"),
    "gdi-i3": (GOHR, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
    "gdi-h3": (GOHR, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
    "dice": (GOHR, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
    "lbc": (GOHR, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
}


def test_every_built_in_agent_is_covered():
    # 'human' is people's recorded play, which zoo train refuses (tests/gohr_study/test_leaderboard_human.py)
    assert set(SPECS) | {"human"} == set(get_registry().names("agent"))


def new_run(tmp_path, agent: str, name: str):
    env, params, budget = SPECS[agent]
    source = tmp_path / f"{name}.yaml"
    source.write_text(f"{env}agent: {{type: {agent}{', ' + params if params else ''}}}\nbudget: {{{budget}}}\nseed: 5\n"
                      "logging: {tensorboard: false, progress: false, keep_checkpoints: 100}\n")
    return prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / name)


def rows(folder) -> list[dict]:
    return [json.loads(line) for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]


def checkpoint_root(folder, agent: str) -> Path:
    batched = get_registry().get("agent", agent).batched_trials
    return (folder.path / "batches" / "000-000" if batched else folder.trial_dir(0)) / "checkpoints"


def final_state(folder, agent: str) -> dict[str, object]:
    """The agent's files in the final checkpoint, as comparable values (wall-clock times left out)."""
    final = max(checkpoint_root(folder, agent).glob("*-*")) / "agent"
    state = {}
    for path in sorted(final.iterdir()):
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                state[path.name] = {k: data[k].tobytes() for k in data.files}
        elif path.suffix == ".pt":
            state[path.name] = repr(torch.load(path, weights_only=True))
        elif path.suffix == ".json" and path.name != "rollout.json":  # SB3's episode infos carry times
            state[path.name] = json.loads(path.read_text())
    return state


@pytest.mark.parametrize("agent", sorted(SPECS))
def test_interrupted_at_a_random_checkpoint_and_resumed(agent, tmp_path):
    registry = get_registry()
    whole = new_run(tmp_path, agent, "whole")
    assert execute_run(whole, registry, progress=False) == "finished"

    cut = new_run(tmp_path, agent, "cut")
    chunks = random.Random(agent).randint(1, 4)  # learn() calls before the stop: a checkpoint at an arbitrary point
    answers = iter([False] * (chunks - 1))
    with pytest.raises(Interrupted):
        run_unit(cut.path, [0], registry=registry, should_stop=lambda: next(answers, True))
    checkpoint = max(checkpoint_root(cut, agent).glob("*-*"))
    stopped_at = json.loads((checkpoint / "progress.json").read_text())["steps"][0]
    assert execute_run(cut, registry, progress=False) == "finished"

    manifest = json.loads(cut.manifest_path.read_text())
    assert manifest["resumed"] == {"0": [checkpoint.name]}
    resumed, reference = rows(cut), rows(whole)
    assert 0 < stopped_at < reference[-1]["step"]
    if manifest["exact_resume"]:
        assert resumed == reference
        assert final_state(cut, agent) == final_state(whole, agent)
    else:
        assert [r for r in resumed if r["step"] <= stopped_at] == [r for r in reference if r["step"] <= stopped_at]
        assert resumed[-1]["step"] >= stopped_at
