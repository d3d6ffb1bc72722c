"""Checkpoints of the actors after the first when several step in the trial's process (``actors`` > 1, local backend)."""

from __future__ import annotations

from pathlib import Path

import torch

from .builder import actor_seed


def save_local_actors(actors: list, directory: Path) -> None:
    """The weights, lag, step count and sampling generator of actors after the first (the agent saves the first)."""
    if actors:
        torch.save([{"net": a.net.state_dict(), "version": a.version, "vector_steps": a.vector_steps,
                     "generator": a.generator.get_state()} for a in actors], directory / "actors.pt")


def load_local_actors(actors: list, directory: Path, seed: int) -> None:
    """Restore what `save_local_actors` wrote into actors 1, 2, ... and start them on new episodes, seeded from `seed`."""
    if not actors:
        return
    for k, (actor, state) in enumerate(zip(actors, torch.load(directory / "actors.pt", weights_only=True)), 1):
        actor.generator.set_state(state["generator"])
        actor.vector_steps = int(state["vector_steps"])
        actor.reset(seed=actor_seed(seed, k, actor.num_envs))
        actor.load_weights(state["net"], int(state["version"]))
