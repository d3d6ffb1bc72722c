"""A MinAtar game as a gymnasium env with channels-first float observations, for conv torsos."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from zoo import require_extra

from .params import MinAtarParams


class MinAtarEnv(gymnasium.Env):
    """Observations (channels, 10, 10) of 0.0/1.0; a seed given to `reset` fixes the game's randomness
    (its sticky actions and spawns) from then on; episodes longer than `max_episode_steps` are truncated.

    The game draws from a random state of its own, not from ``np_random``, so `get_state`/`set_state`
    carry it (with the action a sticky step repeats and the episode's clock): an agent that restores
    them before an unseeded reset replays the episode exactly (docs/plugins.md).
    """

    def __init__(self, params: MinAtarParams):
        require_extra("minatar", "minatar", "the minatar env")
        from minatar import Environment

        self.params = params
        self.game = Environment(params.game, sticky_action_prob=params.sticky_action_prob,
                                difficulty_ramping=params.difficulty_ramping)
        actions = self.game.minimal_action_set() if params.minimal_actions else range(self.game.num_actions())
        self.action_set = [int(a) for a in actions]
        height, width, channels = self.game.state_shape()
        self.observation_space = spaces.Box(0.0, 1.0, shape=(channels, height, width), dtype=np.float32)
        self.action_space = spaces.Discrete(len(self.action_set))
        self.steps = 0

    def _obs(self) -> np.ndarray:
        return np.ascontiguousarray(self.game.state().transpose(2, 0, 1), dtype=np.float32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.game.seed(int(self.np_random.integers(2**31)))
        self.game.reset()
        self.steps = 0
        return self._obs(), {}

    def step(self, action):
        reward, terminated = self.game.act(self.action_set[int(action)])
        self.steps += 1
        limit = self.params.max_episode_steps
        truncated = not terminated and limit is not None and self.steps >= limit
        return self._obs(), float(reward), bool(terminated), truncated, {}

    def get_state(self) -> dict[str, Any]:
        """The game's random state(s), its last action and the step count, as JSON-ready data."""
        game = self.game
        state = {"random": _random_state(game.random), "last_action": int(game.last_action), "steps": self.steps}
        if game.env.random is not game.random:  # not seeded yet: the game module draws from a state of its own
            state["module_random"] = _random_state(game.env.random)
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        game = self.game
        game.random = _restored_random(state["random"])
        game.env.random = _restored_random(state["module_random"]) if "module_random" in state else game.random
        game.last_action = int(state["last_action"])
        self.steps = int(state["steps"])


def _random_state(random: np.random.RandomState) -> dict[str, Any]:
    state = random.get_state(legacy=False)
    return {**state, "state": {"key": state["state"]["key"].tolist(), "pos": int(state["state"]["pos"])}}


def _restored_random(state: dict[str, Any]) -> np.random.RandomState:
    random = np.random.RandomState()
    random.set_state({**state, "state": {"key": np.array(state["state"]["key"], dtype=np.uint32),
                                         "pos": state["state"]["pos"]}})
    return random
