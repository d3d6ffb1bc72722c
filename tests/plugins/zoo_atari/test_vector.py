"""ale-py's AtariVectorEnv and the gymnasium pipeline give the same observations, rewards and episode ends."""

from __future__ import annotations

import numpy as np
import pytest
from zoo_atari.env import make_atari_env, make_atari_vector_env
from zoo_atari.protocols import PRESETS, Protocol


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_vector_env_matches_the_wrapper_pipeline(name):
    # no-op counts and sticky repeats come from different random streams, so both are off here
    protocol = Protocol.model_validate({"name": name, "noop_max": 0, "sticky_actions": 0.0})
    single = make_atari_env("breakout", protocol)
    vector = make_atari_vector_env("breakout", protocol, 1)
    obs, _ = single.reset(seed=3)
    vobs, _ = vector.reset(seed=3)
    assert obs.shape == vobs.shape[1:] and np.array_equal(obs, vobs[0])
    rng = np.random.default_rng(0)
    ends = continued = 0
    for _ in range(700):
        action = int(rng.integers(single.action_space.n))
        obs, reward, terminated, truncated, _ = single.step(action)
        vobs, vreward, vterminated, vtruncated, _ = vector.step(np.array([action]))
        assert np.array_equal(obs, vobs[0]) and reward == vreward[0]
        assert (terminated, truncated) == (vterminated[0], vtruncated[0])
        if terminated or truncated:
            ends += 1
            obs, info = single.reset()
            if info.get("life_loss_continue"):
                continued += 1  # the vector env goes on with the next action, no reset step
                continue
            vobs, *_ = vector.step(np.array([0]))  # NEXT_STEP autoreset
            assert np.array_equal(obs, vobs[0])
    assert ends > 0
    assert (continued > 0) == protocol.life_loss_terminal


def test_vector_env_takes_run_seeds_beyond_int32():
    # run seeds go up to 2**32 (zoo's trial seeds); ALE's own vector reset refuses seeds >= 2**31
    protocol = Protocol.model_validate({"name": "agent57"})
    big = 3_757_552_657
    vector = make_atari_vector_env("breakout", protocol, 2, seed=big)
    folded = make_atari_vector_env("breakout", protocol, 2, seed=big % (2**31 - 2))
    assert np.array_equal(vector.reset(seed=big)[0], folded.reset(seed=big % (2**31 - 2))[0])
