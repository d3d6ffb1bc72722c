"""Fixtures of the substrate tests."""

import gymnasium
import pytest
from learner_stubs import CountingEnv


@pytest.fixture
def counting_envs():
    def make(num_envs=2, **kwargs):
        return gymnasium.vector.SyncVectorEnv(
            [lambda i=i: CountingEnv(offset=100 * i, **kwargs) for i in range(num_envs)])
    return make
