"""Every built-in agent with a tiny spec, and the readers of a run folder that resume tests compare: its
metrics rows and the agent's files in its last checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from zoo_testing import CARTPOLE, GOHR_COLOR_MATCH, TINY_SUBSTRATE

from zoo import prepare_run
from zoo.registry import get_registry

PENDULUM = "env: {type: gym, id: Pendulum-v1}\n"
SUBSTRATE = f"{TINY_SUBSTRATE}, pull_every: 3, push_every: 2"

#: agent -> (env block, agent params, budget): every built-in agent with a small spec
SPECS = {
    "ppo": (CARTPOLE, "n_steps: 64, batch_size: 32, n_epochs: 2", "steps: 768, checkpoint_every: 128"),
    "a2c": (CARTPOLE, "n_steps: 8", "steps: 600, checkpoint_every: 100"),
    "dqn": (CARTPOLE, "learning_starts: 50, buffer_size: 500", "steps: 600, checkpoint_every: 100"),
    "sarsa": (GOHR_COLOR_MATCH, "features: {type: gohr-paper}, reward_norm: none", "episodes: 12, checkpoint_every: 2"),
    "ale-baseline": ("env: {type: synthetic-atari, game: catch}\n", "policy: random", "episodes: 12, checkpoint_every: 2"),
    "bfs": ("env: {type: synthetic-atari, game: catch}\n", "max_frames: 40", "episodes: 8, checkpoint_every: 2"),
    "uct": ("env: {type: synthetic-atari, game: catch}\n", "simulations: 6, horizon_frames: 6", "episodes: 8, checkpoint_every: 2"),
    "maskable-ppo": (GOHR_COLOR_MATCH, "n_steps: 32, batch_size: 16, n_epochs: 2", "steps: 256, checkpoint_every: 64"),
    "recurrent-ppo": (CARTPOLE, "n_steps: 32, batch_size: 16, n_epochs: 2", "steps: 256, checkpoint_every: 64"),
    "qrdqn": (CARTPOLE, "learning_starts: 50, buffer_size: 500", "steps: 400, checkpoint_every: 100"),
    "sac": (PENDULUM, "learning_starts: 50, buffer_size: 500, batch_size: 16", "steps: 300, checkpoint_every: 100"),
    "td3": (PENDULUM, "learning_starts: 50, buffer_size: 500, batch_size: 16", "steps: 300, checkpoint_every: 100"),
    "random-legal": (GOHR_COLOR_MATCH, "", "episodes: 12, checkpoint_every: 2"),
    "random": (PENDULUM, "", "steps: 2000, checkpoint_every: 400"),
    "gohr-linear-dqn": (GOHR_COLOR_MATCH, "batch_size: 8", "steps: 200, checkpoint_every: 40"),
    "gohr-mlp-dqn": (GOHR_COLOR_MATCH, "batch_size: 8, replay_size: 200", "steps: 200, checkpoint_every: 40"),
    "gdi-i3": (GOHR_COLOR_MATCH, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
    "gdi-h3": (GOHR_COLOR_MATCH, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
    "dice": (GOHR_COLOR_MATCH, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
    "lbc": (GOHR_COLOR_MATCH, SUBSTRATE, "steps: 600, checkpoint_every: 100"),
}


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
