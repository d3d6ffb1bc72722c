"""The ALE paper's reference agents: Random, Const and Perturb (Bellemare et al. 2013, Section 3.1.2).

* random: a uniformly random action at every decision (the paper's Random acts on every frame:
  run it with ``protocol: {name: ale2013, frame_skip: 1}``);
* const: one fixed action for the whole trial (``action: per_trial`` gives trial t action t, so
  ``trials: 18`` runs all of them and the report takes the best);
* perturb: the fixed action with probability 1 - ``perturb``, else a uniform one (per decision).

Checkpoints fall between episodes; the first episode resets the env with a seed derived from the
trial seed, later ones reset unseeded (re-seeding an ALE env reloads its ROM), and loading a
checkpoint replays those resets on the fresh env.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field

from zoo import Agent, EpisodeResets, Params, TrialContext


class BaselineParams(Params):
    """A reference policy of the ALE paper."""

    policy: Literal["random", "const", "perturb"] = Field(
        default="random", description="uniform actions; one fixed action; or the fixed action with probability 1 - perturb")
    action: int | Literal["per_trial"] = Field(default=0, description="the fixed action of const and perturb")
    perturb: float = Field(default=0.05, ge=0.0, le=1.0, description="perturb's probability of a random action")


def episode_seed(seed: int, episode: int) -> int:
    """The reset seed of episode `episode` of a trial seeded `seed`."""
    return int(np.random.SeedSequence([seed, episode]).generate_state(1)[0])


class BaselineAgent(Agent):
    """Plays a fixed reference policy; `learn` only plays and logs episode returns."""

    def __init__(self, params: BaselineParams, context: TrialContext):
        self.params, self.context = params, context
        self.env = context.make_env(context.seed)
        actions = int(self.env.action_space.n)
        self.action = context.trial % actions if params.action == "per_trial" else int(params.action)
        if not 0 <= self.action < actions:
            raise ValueError(f"action {self.action} is outside the env's {actions} actions")
        self.rng = np.random.default_rng(context.seed)
        self.resets = EpisodeResets(episode_seed(context.seed, 0))

    def act(self, rng: np.random.Generator) -> int:
        n = int(self.env.action_space.n)
        if self.params.policy == "random" or (self.params.policy == "perturb" and rng.random() < self.params.perturb):
            return int(rng.integers(n))
        return self.action

    def play(self, env, seed: int | None, rng: np.random.Generator) -> tuple[float, int]:
        """One episode: (return, decisions)."""
        env.reset(seed=seed)
        total, steps, done = 0.0, 0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(self.act(rng))
            total, steps, done = total + float(reward), steps + 1, terminated or truncated
        return total, steps

    def train_step(self) -> None:
        """One episode."""
        total, steps = self.play(self.env, self.resets.next_seed(), self.rng)
        self._steps += steps
        self.episodes += 1
        self.context.logger.log(self._steps, episode_return=total, episode_length=steps)

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        env, rng = self.context.make_env(seed), np.random.default_rng(seed)
        try:
            return [self.play(env, seed if k == 0 else None, rng)[0] for k in range(episodes)]
        finally:
            env.close()

    def save(self, directory: Path) -> None:
        self.save_state(directory, "baseline.json", rng=self.rng, resets=self.resets.count)

    def load(self, directory: Path) -> None:
        state = self.load_state(directory, "baseline.json", rng=self.rng)
        self.resets.replay(self.env, state["resets"])

    def close(self) -> None:
        self.env.close()
