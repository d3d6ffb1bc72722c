"""The ``random`` agent: uniform actions over any gymnasium action space, the floor of a board's normalization.

Discrete spaces are sampled among the legal actions when the env tells them, by an ``action_masks()``
method (sb3-contrib's convention) or by ``info["action_mask"]`` (gymnasium's); every other space is
sampled by its own ``sample()``. All randomness comes from one numpy generator seeded by the trial, and
each episode resets with a seed of its own, so a trial resumed from a checkpoint (taken between
episodes) ends exactly as an uninterrupted one. The agent never learns: its returns measure the task
played by chance.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from zoo import Agent, NoParams, TrialContext

STATE = "random_agent.json"


def legal_mask(env, info: dict[str, Any]) -> np.ndarray | None:
    """The env's mask of legal actions (a boolean array), or None when it tells none."""
    mask = env.action_masks() if hasattr(env, "action_masks") else info.get("action_mask")
    return None if mask is None else np.asarray(mask, dtype=bool)


def random_action(space, mask: np.ndarray | None, rng: np.random.Generator):
    """A uniform action of `space` drawn with `rng` (among the legal ones of a discrete space with a mask)."""
    import gymnasium

    if isinstance(space, gymnasium.spaces.Discrete):
        if mask is not None and mask.any():
            return int(space.start + rng.choice(np.flatnonzero(mask)))
        return int(space.start + rng.integers(space.n))
    space.seed(int(rng.integers(2**32)))  # any other space samples itself, from a seed the generator draws
    return space.sample()


class RandomAgent(Agent):
    """Plays whole episodes of uniform actions; each `train_step` is one episode, logged as training."""

    exact_resume = True

    def __init__(self, params: NoParams, context: TrialContext):
        self.context = context
        self.env = context.make_env(context.seed)
        self.rng = np.random.default_rng(context.seed)

    def _play(self, env, seed: int | None, rng: np.random.Generator) -> tuple[float, int]:
        """One episode: (return, steps)."""
        _, info = env.reset(seed=seed)
        total, steps, done = 0.0, 0, False
        while not done:
            action = random_action(env.action_space, legal_mask(env, info), rng)
            _, reward, terminated, truncated, info = env.step(action)
            total, steps, done = total + float(reward), steps + 1, terminated or truncated
        return total, steps

    def train_step(self) -> None:
        seed = int(np.random.SeedSequence([self.context.seed, self.episodes]).generate_state(1)[0])
        total, steps = self._play(self.env, seed, self.rng)
        self._steps += steps
        self.episodes += 1
        self.context.logger.log(self._steps, episode_return=total, episode_length=steps)

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        env, rng = self.context.make_env(seed), np.random.default_rng(seed)
        try:
            return [self._play(env, seed if k == 0 else None, rng)[0] for k in range(episodes)]
        finally:
            env.close()

    def save(self, directory: Path) -> None:
        self.save_state(directory, STATE, rng=self.rng)

    def load(self, directory: Path) -> None:
        self.load_state(directory, STATE, rng=self.rng)

    def close(self) -> None:
        self.env.close()
