"""The GOHR paper's linear DQN bootstraps from the max over all 144 actions of the next state (Algorithm 1),
moves of empty cells included, unless `mask_actions` restricts it to the occupied cells."""

import numpy as np
import pytest
from zoo_dqn.agent import LinearDQNAgent
from zoo_dqn.params import LinearDQNParams
from zoo_gohr.plugin import GohrEnvParams, make_env

from zoo.agent import TrialContext
from zoo.metrics import MetricLogger


def agent(tmp_path, mask):
    env_params = GohrEnvParams(rule="paper/b3_then_b1", horizon=5)
    context = TrialContext(seed=5, trial=0, directory=tmp_path, env_params=env_params,
                           make_env=lambda s: make_env(env_params, s), logger=MetricLogger(tmp_path),
                           budget=None)
    params = LinearDQNParams(batch_size=16, replay_size=100, learning_starts=100, gamma=0.9, loss="mse",
                             mask_actions=mask)
    return LinearDQNAgent(params, [context])


@pytest.mark.parametrize("mask", [False, True])
def test_the_bootstrap_is_the_max_over_all_actions_unless_masked(tmp_path, mask):
    dqn = agent(tmp_path, mask)
    dqn.learn(60)  # fewer moves than learning_starts: theta is still 0, so Q(s, a) = 0 and the TD error is -y
    rng = np.random.default_rng(0)
    empty_only = np.setdiff1d(dqn.features.index_table[:, dqn.empty].ravel(),
                              dqn.features.index_table[:, :dqn.empty].ravel())
    dqn.q.theta[0, :-1] = rng.normal(size=dqn.q.width - 1) / 10
    dqn.q.theta[0, empty_only] += 3.0  # the moves of empty cells look best to the target
    dqn.q.refresh_target(np.array([0]))
    dqn.q.theta[0] = 0.0
    found = []
    step = dqn.q.step
    dqn.q.step = lambda rows, idx, dq: found.append(dq[0]) or step(rows, idx, dq)
    state = dqn.rngs[0].bit_generator.state
    dqn._update(np.array([0]))
    dqn.rngs[0].bit_generator.state = state
    picks = dqn.rngs[0].choice(dqn.replay.size[0], 16, replace=False)
    batch = dqn.replay.gather(np.array([0]), picks[None])
    y = -found[0] * 16 / 2  # mse: dq = 2 (Q - y) / batch
    targets = {occupied: batch["reward"][0] + np.where(batch["done"][0], 0.0, 0.9 * dqn.q.target_max(
        np.array([0]), batch["next_last"], batch["next_types"], occupied)[0]) for occupied in (False, True)}
    assert np.allclose(y, targets[mask])
    assert not np.allclose(y, targets[not mask])  # the two maxima differ on these boards
