"""Stub environments and controllers for substrate tests."""

import gymnasium
import numpy as np
from gymnasium import spaces

from zoo import Choice


class CountingEnv(gymnasium.Env):
    """obs = [episode id, step]; reward = 10 * episode id + step; episodes last `lengths[k]` steps (cycled)."""

    def __init__(self, lengths=(5,), actions=3, truncate=False, offset=0):
        self.observation_space = spaces.Box(-1e6, 1e6, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(actions)
        self.lengths, self.truncate, self.episode, self.offset = lengths, truncate, offset - 1, offset

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.episode += 1
        self.t = 0
        return self._obs(), {}

    def _obs(self):
        return np.array([self.episode, self.t], np.float32)

    def step(self, action):
        reward = 10.0 * self.episode + self.t
        self.t += 1
        end = self.t >= self.lengths[self.episode % len(self.lengths)]
        return self._obs(), reward, end and not self.truncate, end and self.truncate, {}


class RecordingController:
    """Hands out behaviors 0, 1, 2, ... and records (behavior, return) updates."""

    def __init__(self):
        self.count, self.updates = 0, []

    def sample(self):
        self.count += 1
        return Choice(np.array([float(self.count - 1)]), arm=self.count - 1)

    def update(self, choice, episode_return):
        self.updates.append((float(choice.value[0]), episode_return))

    def state_dict(self):
        return {"count": self.count}

    def load_state_dict(self, state):
        self.count = state["count"]


class PixelEnv(gymnasium.Env):
    """Random uint8 frames (1, 6, 6); episodes of 4 steps."""

    observation_space = spaces.Box(0, 255, (1, 6, 6), np.uint8)
    action_space = spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self.np_random.integers(0, 256, (1, 6, 6), dtype=np.uint8), {}

    def step(self, action):
        self.t += 1
        return self.np_random.integers(0, 256, (1, 6, 6), dtype=np.uint8), 1.0, self.t >= 4, False, {}
