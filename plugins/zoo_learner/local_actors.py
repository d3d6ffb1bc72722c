"""Checkpoints of the actors after the first when several step in the trial's process (``actors`` > 1, local backend).

Each is saved as the agent saves the first: its exact state (`Actor.state_dict`: envs' seed and
actions, episodes in progress, recurrent states, sequences being written), the weights it acts
with and its sampling generator, so that these actors resume exactly too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch


def save_local_actors(actors: list, directory: Path) -> None:
    """Write actors 1, 2, ...: ``actor-K.npz`` (state) and ``actors.pt`` (weights and generators)."""
    if not actors:
        return
    for k, actor in enumerate(actors, 1):
        np.savez(directory / f"actor-{k}.npz", **actor.state_dict())
    torch.save([{"net": a.net.state_dict(), "generator": a.generator.get_state()} for a in actors], directory / "actors.pt")


def load_local_actors(actors: list, directory: Path) -> None:
    """Restore what `save_local_actors` wrote into actors 1, 2, ..., each continuing where it was saved."""
    if not actors:
        return
    for k, (actor, saved) in enumerate(zip(actors, torch.load(directory / "actors.pt", weights_only=True)), 1):
        actor.generator.set_state(saved["generator"])
        with np.load(directory / f"actor-{k}.npz", allow_pickle=False) as data:
            actor.load_state_dict({name: data[name] for name in data.files}, saved["net"])
