"""Small environments for substrate agents' end-to-end tests (shared by tests/plugins/zoo_dice and tests/plugins/zoo_lbc)."""

from types import SimpleNamespace

import gymnasium
import numpy as np
from gymnasium import spaces

from zoo import TrialContext
from zoo.metrics import MetricLogger


class Corridor(gymnasium.Env):
    """Cells 0..length-1, one-hot observed; actions right, left, stay; +1 on reaching the last cell.

    Episodes are cut at `horizon` steps, so a uniformly random policy rarely scores (0.08 on average
    for length 8, horizon 20; measured over 4000 episodes) while walking right scores 1 in length - 1 steps.
    """

    def __init__(self, length: int = 8, horizon: int = 20):
        self.length, self.horizon = length, horizon
        self.observation_space = spaces.Box(0.0, 1.0, shape=(length,), dtype=np.float32)
        self.action_space = spaces.Discrete(3)

    def _obs(self):
        obs = np.zeros(self.length, np.float32)
        obs[self.cell] = 1.0
        return obs

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.cell, self.t = 0, 0
        return self._obs(), {}

    def step(self, action):
        self.cell = min(self.length - 1, max(0, self.cell + (1, -1, 0)[int(action)]))
        self.t += 1
        goal = self.cell == self.length - 1
        return self._obs(), float(goal), goal, self.t >= self.horizon and not goal, {}


def corridor_context(directory, seed: int, steps: int, **env) -> TrialContext:
    """A TrialContext on Corridor(**env) with a step budget, logging to `directory`."""
    return TrialContext(seed=seed, trial=0, directory=directory, env_params=None, make_env=lambda s: Corridor(**env),
                        logger=MetricLogger(directory),
                        budget=SimpleNamespace(unit="steps", amount=steps))
