"""A player that moves uniformly at random among the legal moves: the floor of every GOHR leaderboard.

Legal moves are those the env's ``action_masks()`` marks (on GOHR: the 4 buckets of every occupied
cell); an env without masks gets uniform actions over its whole discrete action space. The player
never learns, so its errors measure how hard a rule is to satisfy by chance.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from zoo import Agent, NoParams, TrialContext


class RandomLegalPlayer(Agent):
    """Plays whole episodes of uniformly random legal moves; `learn` only plays and logs episode returns."""

    def __init__(self, params: NoParams, context: TrialContext):
        self.context = context
        self.env = context.make_env(context.seed)
        self.rng = np.random.default_rng(context.seed)
        self._steps = self.episodes = 0

    @property
    def steps(self) -> int:
        return self._steps

    def _move(self, env, rng: np.random.Generator) -> int:
        mask = env.action_masks() if hasattr(env, "action_masks") else None
        if mask is None or not np.any(mask):
            return int(rng.integers(env.action_space.n))
        return int(rng.choice(np.flatnonzero(mask)))

    def _play(self, env, seed: int | None, rng: np.random.Generator) -> tuple[float, int]:
        """One episode: (return, moves)."""
        env.reset(seed=seed)
        total, moves, done = 0.0, 0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(self._move(env, rng))
            total, moves, done = total + float(reward), moves + 1, terminated or truncated
        return total, moves

    def learn(self, steps: int) -> None:
        target = self._steps + steps
        while self._steps < target:
            self.learn_episodes(1)

    def learn_episodes(self, episodes: int) -> None:
        for _ in range(episodes):
            # every episode resets with a seed of its own, so a resumed trial replays the same boards
            seed = int(np.random.SeedSequence([self.context.seed, self.episodes]).generate_state(1)[0])
            total, moves = self._play(self.env, seed, self.rng)
            self._steps += moves
            self.episodes += 1
            self.context.logger.log(self._steps, episode_return=total, episode_length=moves)

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        env, rng = self.context.make_env(seed), np.random.default_rng(seed)
        try:
            return [self._play(env, seed if k == 0 else None, rng)[0] for k in range(episodes)]
        finally:
            env.close()

    def save(self, directory: Path) -> None:
        state = {"steps": self._steps, "episodes": self.episodes, "rng": self.rng.bit_generator.state}
        (Path(directory) / "random_player.json").write_text(json.dumps(state))

    def load(self, directory: Path) -> None:
        state = json.loads((Path(directory) / "random_player.json").read_text())
        self._steps, self.episodes = state["steps"], state["episodes"]
        self.rng.bit_generator.state = state["rng"]

    def close(self) -> None:
        self.env.close()
