"""The linear DQN's defining mechanisms, each pinned so that removing it fails a test.

* the target's refresh cadence, counted in moves or in episodes;
* truncation at the horizon is not terminal (the target's bootstrap is kept), clearing the board is;
* one whole update against a slow reference: brute-force phi . theta, a max over the next state's
  actions of phi . theta_target, and torch's Adam on the printed loss (or Huber);
* the empty-cell features reach the agent as the params choose them.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from zoo_dqn.agent import LinearDQNAgent
from zoo_dqn.params import LinearDQNParams
from zoo_gohr.engine.constants import BUCKETS, CELLS
from zoo_gohr.plugin import GohrEnvParams, make_env

from zoo.agent import TrialContext
from zoo.metrics import MetricLogger

ONE_PIECE = {"min_objects": 1, "min_shapes": 1, "min_colors": 1}


def _agent(tmp_path, params, *, horizon=100, board=None, seed=5) -> LinearDQNAgent:
    env_params = GohrEnvParams(rule="paper/b3_then_b1", horizon=horizon, board=board or {})
    context = TrialContext(seed=seed, trial=0, directory=tmp_path, env_params=env_params,
                           make_env=lambda s: make_env(env_params, s),
                           logger=MetricLogger(tmp_path, tensorboard=False), budget=None)
    return LinearDQNAgent(params, [context])


@pytest.mark.parametrize("unit, period, horizon, count", [("moves", 40, 100, 130), ("episodes", 3, 10, 10)])
def test_the_target_is_the_online_weights_at_each_refresh_and_stays_put_between(tmp_path, unit, period, horizon, count):
    agent = _agent(tmp_path, LinearDQNParams(batch_size=8, replay_size=100, target_period=period, target_unit=unit),
                   horizon=horizon)
    advance, counter = (agent.learn, lambda: agent.steps[0]) if unit == "moves" else (agent.learn_episodes, lambda: agent.episodes[0])
    last_refresh, refreshes = np.zeros_like(agent.q.theta[0]), 0
    for _ in range(count):
        advance(1)
        theta, target = agent.q.theta[0], agent.q.target[0]
        if counter() % period == 0:
            assert np.array_equal(target, theta), f"no refresh at {unit} {counter()}"
            last_refresh, refreshes = theta.copy(), refreshes + 1
        else:
            assert np.array_equal(target, last_refresh), f"the target moved at {unit} {counter()}"
            if agent.steps[0] > agent.learning_starts:
                assert not np.array_equal(target, theta), f"the target follows theta at {unit} {counter()}"
    assert refreshes == count // period and np.abs(last_refresh).sum() > 0


def test_truncation_at_the_horizon_is_stored_as_non_terminal_and_clearing_the_board_as_terminal(tmp_path):
    nine = _agent(tmp_path / "nine", LinearDQNParams(batch_size=8, replay_size=100), horizon=4)
    nine.learn(40)  # 9 pieces cannot be cleared in 4 moves: every episode is truncated
    assert nine.episodes == [10] and not nine.replay.arrays["done"][0, :40].any()
    one = _agent(tmp_path / "one", LinearDQNParams(batch_size=8, replay_size=100), horizon=4, board=ONE_PIECE)
    one.learn(60)  # on a one-piece board an accepted move clears it
    reward, done = one.replay.arrays["reward"][0, :60], one.replay.arrays["done"][0, :60]
    assert done.any() and (~done).any() and np.array_equal(done, reward == 0)


def _reference_update(agent, picks, *, loss, one_piece) -> tuple[np.ndarray, np.ndarray]:
    """The loss gradient and theta after one update on transitions `picks` of trial 0, by brute
    force, torch's autograd and torch.optim.Adam.

    Whether a transition ends the episode is read from the board, not from the replay: on a
    one-piece board exactly the accepted moves clear it; on the nine-piece boards of these tests
    (horizon 5) no move does. With ``mask_actions`` the maximum runs over the occupied cells.
    """
    p, table, pad = agent.params, agent.features.index_table, agent.features.pad
    arrays = {name: array[0, picks] for name, array in agent.replay.arrays.items()}
    target = agent.q.target[0]
    phis, ys = [], []
    for j in range(len(picks)):
        ones = [i for i in table[arrays["last"][j], arrays["kind"][j], arrays["bucket"][j]] if i != pad]
        phi = np.zeros(len(target))
        phi[ones] = 1.0
        phis.append(phi)
        cleared = one_piece and arrays["reward"][j] == 0
        cells = [cell for cell in range(CELLS) if arrays["next_types"][j][cell] != agent.empty]
        if not p.mask_actions or not cells:
            cells = range(CELLS)
        best = max(sum(target[i] for i in table[arrays["next_last"][j], arrays["next_types"][j][cell], bucket] if i != pad)
                   for cell in cells for bucket in range(BUCKETS))
        ys.append(arrays["reward"][j] + (0.0 if cleared else p.gamma * best))
    weights = torch.tensor(agent.q.theta[0], dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.Adam([weights], lr=p.lr, betas=p.adam_betas, eps=p.adam_eps)
    q = torch.as_tensor(np.array(phis)) @ weights
    y = torch.as_tensor(np.array(ys))
    value = ((q - y) ** 2).mean() if loss == "mse" else torch.nn.functional.smooth_l1_loss(q, y)
    value.backward()
    gradient = weights.grad.numpy().copy()
    optimizer.step()
    return gradient, weights.detach().numpy()


@pytest.mark.parametrize("loss", ["mse", "huber"])
@pytest.mark.parametrize("board, moves, mask", [(None, 60, False), (ONE_PIECE, 40, True)])
def test_one_update_matches_a_slow_reference_with_the_bootstrap_kept_at_truncation(tmp_path, loss, board, moves, mask):
    params = LinearDQNParams(batch_size=16, replay_size=100, learning_starts=100, gamma=0.9, loss=loss, mask_actions=mask)
    agent = _agent(tmp_path, params, horizon=5, board=board)
    agent.learn(moves)  # fewer moves than learning_starts: no update yet, theta and Adam's moments are 0
    assert not agent.q.updates.any()
    rng = np.random.default_rng(3)
    agent.q.theta[0, :-1] = rng.normal(size=agent.q.width - 1)
    agent.q.refresh_target(np.array([0]))
    agent.q.theta[0, :-1] = rng.normal(size=agent.q.width - 1)
    picks = copy.deepcopy(agent.rngs[0]).choice(moves, params.batch_size, replace=False)
    if board is None:  # horizon 5, nine pieces: moves 4, 9, 14, ... end their episodes by truncation
        assert agent.episodes == [moves // 5] and ((picks + 1) % 5 == 0).any()
    else:
        assert (agent.replay.arrays["reward"][0, picks] == 0).any() and (agent.replay.arrays["reward"][0, picks] < 0).any()
    gradient, theta = _reference_update(agent, picks, loss=loss, one_piece=board is not None)
    steps = []
    step = agent.q.step
    agent.q.step = lambda rows, idx, dq: steps.append((idx[0], dq[0])) or step(rows, idx, dq)
    agent._update(np.array([0]))
    idx, dq = steps[0]  # Adam's first step only sees the gradient's sign: compare the gradient itself
    found = np.zeros(agent.q.width)
    np.add.at(found, idx, np.repeat(dq[:, None], idx.shape[-1], axis=1))
    found[-1] = 0.0
    assert np.allclose(found, gradient, atol=1e-12) and np.abs(gradient).sum() > 0
    assert np.allclose(agent.q.theta[0], theta, atol=1e-12)


def test_the_agent_builds_the_empty_cell_features_its_params_name(tmp_path):
    for reading, ones in (("coded", 1), ("printed", 2)):
        agent = _agent(tmp_path / reading, LinearDQNParams(empty_cells=reading))
        empty_rows = agent.q.table[:, agent.empty]
        assert ((empty_rows != agent.features.pad).sum(-1) == ones).all()
