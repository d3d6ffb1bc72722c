"""The random agent: uniform over the legal actions an env tells, seeded, over any action space."""

from __future__ import annotations

from types import SimpleNamespace

import gymnasium
import numpy as np
from gymnasium import spaces
from zoo_gym.random_agent import RandomAgent

from zoo import NoParams, TrialContext
from zoo.metrics import MetricLogger


class Recorder(gymnasium.Env):
    """Ten-step episodes that record every action; legal actions told by `action_masks()` or by info."""

    def __init__(self, space, mask=None, by_info: bool = False):
        self.action_space, self.observation_space = space, spaces.Box(0.0, 1.0, shape=(1,))
        self.mask, self.by_info, self.actions, self.t = mask, by_info, [], 0
        if mask is not None and not by_info:
            self.action_masks = lambda: np.array(self.mask)

    def _info(self):
        return {"action_mask": np.array(self.mask)} if self.by_info else {}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(1, np.float32), self._info()

    def step(self, action):
        assert self.action_space.contains(action)
        self.actions.append(action)
        self.t += 1
        return np.zeros(1, np.float32), float(np.sum(action)), self.t >= 10, False, self._info()


def _agent(tmp_path, env, seed: int = 0) -> RandomAgent:
    context = TrialContext(seed=seed, trial=0, directory=tmp_path, env_params=None, make_env=lambda s: env,
                           logger=MetricLogger(tmp_path), budget=SimpleNamespace(unit="steps", amount=100))
    return RandomAgent(NoParams(), context)


def test_a_mask_from_action_masks_or_from_info_limits_the_actions_to_the_legal_ones(tmp_path):
    by_method = Recorder(spaces.Discrete(5), mask=[0, 0, 1, 0, 1])
    _agent(tmp_path / "a", by_method).learn(200)
    assert set(by_method.actions) == {2, 4}
    by_info = Recorder(spaces.Discrete(5, start=10), mask=[0, 0, 0, 1, 0], by_info=True)
    _agent(tmp_path / "b", by_info).learn(50)
    assert set(by_info.actions) == {13}
    unmasked = Recorder(spaces.Discrete(5))
    _agent(tmp_path / "c", unmasked).learn(200)
    assert set(unmasked.actions) == {0, 1, 2, 3, 4}


def test_any_other_space_is_sampled_within_it_and_the_seed_fixes_every_action(tmp_path):
    def actions(seed: int, name: str) -> list:
        env = Recorder(spaces.Box(-2.0, 2.0, shape=(2,)))
        _agent(tmp_path / name, env, seed).learn(30)
        return [a.tolist() for a in env.actions]

    first, again, other = actions(3, "a"), actions(3, "b"), actions(4, "c")
    assert first == again and first != other
    assert np.all(np.abs(first) <= 2.0) and len({tuple(a) for a in first}) == len(first)
