"""The linear DQN's defining mechanisms, each pinned so that removing it fails a test.

* the target's refresh cadence, counted in moves or in episodes;
* truncation at the horizon is not terminal (the target's bootstrap is kept), clearing the board is;
* one whole update against a slow reference: brute-force phi . theta, a max over the next state's
  actions of phi . theta_target, the printed loss's (or Huber's) gradient by central differences,
  and Adam's first step;
* the empty-cell features reach the agent as the params choose them;
* epsilon-greedy moves, when updates begin, what an episode logs, which boards episodes play, what
  the replay stores, a trial's independence of its batch, and resuming from a checkpoint.

Numpy only (torch's Adam is checked against LinearQ in test_linear_dqn.py), so that the file runs
in a few seconds: scripts/mutation.py runs it once per mutant of the agent.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from zoo_dqn.agent import LinearDQNAgent
from zoo_dqn.params import LinearDQNParams
from zoo_gohr.engine.constants import BUCKETS, CELLS
from zoo_gohr.plugin import GohrEnvParams, make_env

from zoo.agent import TrialContext
from zoo.metrics import MetricLogger

ONE_PIECE = {"min_objects": 1, "min_shapes": 1, "min_colors": 1}


def _agent(tmp_path, params, *, horizon=100, board=None, seeds=(5,)) -> LinearDQNAgent:
    env_params = GohrEnvParams(rule="paper/b3_then_b1", horizon=horizon, board=board or {})
    contexts = [TrialContext(seed=seed, trial=i, directory=tmp_path / str(i), env_params=env_params,
                             make_env=lambda s: make_env(env_params, s),
                             logger=MetricLogger(tmp_path / str(i)), budget=None)
                for i, seed in enumerate(seeds)]
    return LinearDQNAgent(params, contexts)


def _logged(agent, trial=0) -> list[dict]:
    agent.contexts[trial].logger.flush()
    return [json.loads(line) for line in agent.contexts[trial].logger.path.read_text().splitlines()]


@pytest.mark.parametrize("unit, period, horizon, count, board", [
    ("moves", 40, 100, 130, None), ("episodes", 3, 10, 10, None),
    ("moves", 3, 10, 60, ONE_PIECE),  # episodes end at any move: a refresh by episode would show
])
def test_the_target_is_the_online_weights_at_each_refresh_and_stays_put_between(tmp_path, unit, period, horizon, count,
                                                                                board):
    agent = _agent(tmp_path, LinearDQNParams(batch_size=8, replay_size=100, target_period=period, target_unit=unit,
                                             mask_actions=board is not None), horizon=horizon, board=board)
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
    """The loss gradient and theta after one update on transitions `picks` of trial 0, by brute force:
    the loss of theta (the printed mean squared TD error, or SmoothL1), its gradient by central
    differences, and the first step of Kingma and Ba's Adam.

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
    phis, ys = np.array(phis), np.array(ys)
    delta = phis @ agent.q.theta[0] - ys
    assert (delta < -1).any() and (abs(delta) < 1).any() and (delta > 1).any()  # each piece of Huber's gradient

    def value(weights):
        delta = phis @ weights - ys
        return np.mean(delta ** 2 if loss == "mse" else np.where(np.abs(delta) < 1, delta ** 2 / 2, np.abs(delta) - 0.5))

    theta, h = agent.q.theta[0], 1e-5
    gradient = np.zeros_like(theta)
    for i in np.flatnonzero(phis.any(0)):  # the loss does not depend on the other weights
        shift = np.zeros_like(theta)
        shift[i] = h
        gradient[i] = (value(theta + shift) - value(theta - shift)) / (2 * h)
    (b1, b2), eps = p.adam_betas, p.adam_eps
    m, v = (1 - b1) * gradient, (1 - b2) * gradient ** 2
    return gradient, theta - p.lr * (m / (1 - b1)) / (np.sqrt(v / (1 - b2)) + eps)


@pytest.mark.parametrize("loss", ["mse", "huber"])
@pytest.mark.parametrize("board, moves, mask", [(None, 60, False), (ONE_PIECE, 40, True)])
def test_one_update_matches_a_slow_reference_with_the_bootstrap_kept_at_truncation(tmp_path, loss, board, moves, mask):
    params = LinearDQNParams(batch_size=16, replay_size=100, learning_starts=100, gamma=0.9, loss=loss, mask_actions=mask)
    agent = _agent(tmp_path, params, horizon=5, board=board)
    agent.learn(moves)  # fewer moves than learning_starts: no update yet, theta and Adam's moments are 0
    assert not agent.q.updates.any()
    rng = np.random.default_rng(3)
    agent.q.theta[0, :-1] = rng.normal(size=agent.q.width - 1) / 10  # a small target: TD errors of both signs
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
    assert np.allclose(found, gradient, rtol=0, atol=1e-7) and np.abs(gradient).sum() > 0
    assert np.allclose(agent.q.theta[0], theta, rtol=0, atol=1e-9)


def test_the_agent_builds_the_empty_cell_features_its_params_name(tmp_path):
    for reading, ones in (("coded", 1), ("printed", 2)):
        agent = _agent(tmp_path / reading, LinearDQNParams(empty_cells=reading))
        empty_rows = agent.q.table[:, agent.empty]
        assert ((empty_rows != agent.features.pad).sum(-1) == ones).all()


def _reference_action(agent, rng) -> tuple[int, bool]:
    """Trial 0's next move by Algorithm 1's epsilon-greedy rule, drawn from `rng` (a copy of its stream),
    and whether it explores: it does when a uniform draw is below epsilon(moves so far), and then takes
    any action uniformly (any occupied cell's with masking); else the lowest action of highest
    theta . phi (over the occupied cells with masking), phi by brute force."""
    p, env = agent.params, agent.envs[0]
    occupied = np.flatnonzero(env.unwrapped.action_masks())
    allowed = occupied if p.mask_actions and len(occupied) else np.arange(CELLS * BUCKETS)
    if rng.random() < p.eps_end + (p.eps_start - p.eps_end) * np.exp(-agent.steps[0] / p.eps_decay):
        return int(allowed[rng.integers(len(allowed))]), True
    values = agent.features.dense(env).astype(float) @ agent.q.theta[0, :-1]
    return int(allowed[np.argmax(values[allowed])]), False


@pytest.mark.parametrize("mask, start, end, decay", [(False, 0.9, 0.001, 20.0), (True, 0.9, 0.001, 20.0),
                                                     (True, 0.0, 0.0, 1.0), (False, 1.0, 0.3, 5.0)])
def test_each_move_is_epsilon_greedy_on_theta_dot_phi_as_a_slow_reference_draws_it(tmp_path, mask, start, end, decay):
    params = LinearDQNParams(batch_size=8, replay_size=60, learning_starts=60, mask_actions=mask, eps_start=start,
                             eps_end=end, eps_decay=decay)
    agent = _agent(tmp_path, params, horizon=15)
    agent.q.theta[0, :-1] = np.random.default_rng(4).integers(-3, 4, agent.q.width - 1)  # integers: ties happen
    explored = 0
    for _ in range(45):  # no update before the 60th move: theta stays put, and the stream only picks moves
        if not agent.playing[0]:
            agent._begin(np.array([0]))  # deal the next board, for the reference to see it
        expected, exploring = _reference_action(agent, copy.deepcopy(agent.rngs[0]))
        agent.learn(1)
        assert agent.actions[0][-1] == expected
        explored += exploring
    assert not agent.q.updates.any() and agent.episodes[0] >= 2
    assert explored == 0 if start == 0 else 0 < explored < 45


@pytest.mark.parametrize("learning_starts, expected", [(None, 8), (20, 20)])
def test_updates_begin_once_the_replay_holds_learning_starts_moves_then_one_per_move(tmp_path, learning_starts, expected):
    agent = _agent(tmp_path, LinearDQNParams(batch_size=8, replay_size=30, learning_starts=learning_starts), horizon=7)
    assert agent.learning_starts == expected  # batch_size by default
    for moves in range(1, 41):
        agent.learn(1)
        assert agent.q.updates[0] == max(0, moves - expected + 1), moves
    assert agent.replay.size[0] == 30


def test_each_episode_logs_its_moves_and_rejected_moves_at_its_last_step(tmp_path):
    agent = _agent(tmp_path, LinearDQNParams(batch_size=8, replay_size=100, mask_actions=True), horizon=9)
    agent.learn(30)
    rows = _logged(agent)
    rejected = agent.replay.arrays["reward"][0, :30] < 0
    expected = [{"step": end, "episode_return": -float(rejected[end - 9:end].sum()),
                 "episode_errors": int(rejected[end - 9:end].sum()), "episode_moves": 9} for end in (9, 18, 27)]
    assert [{key: row[key] for key in expected[0]} for row in rows] == expected
    assert 0 < sum(row["episode_errors"] for row in rows) < 27 and agent.episodes == [3]


@pytest.mark.parametrize("stop", [27, 20])
def test_a_checkpoint_resumes_the_trial_exactly_within_an_episode_or_between_two(tmp_path, stop):
    """Stopped after move 27 (the third episode's seventh move of ten, some accepted) or 20, saved and
    loaded into a new agent, the trial goes on as an uninterrupted one: same weights, replay, streams,
    and logged episodes (the one in progress counts its moves and errors from before the stop)."""
    params = LinearDQNParams(batch_size=8, replay_size=50, target_period=7, mask_actions=True)
    straight = _agent(tmp_path / "straight", params, horizon=10)
    straight.learn(45)
    first = _agent(tmp_path / "first", params, horizon=10)
    first.learn(stop)
    (tmp_path / "checkpoint").mkdir()
    first.save(tmp_path / "checkpoint")
    second = _agent(tmp_path / "second", params, horizon=10)
    second.load(tmp_path / "checkpoint")
    within = stop % 10 > 0
    assert first.errors[0] < first.moves[0] or not within
    assert second.playing[0] == within and second.moves[0] == stop % 10 and second.errors[0] == first.errors[0] * within
    second.learn(45 - stop)
    assert LinearDQNAgent.exact_resume and second.steps == [45] and second.episodes == [4]
    for name, array in straight.q.state().items():
        assert np.array_equal(second.q.state()[name], array), name
    for name, array in straight.replay.state().items():
        assert np.array_equal(second.replay.state()[name], array), name
    assert second.rngs[0].bit_generator.state == straight.rngs[0].bit_generator.state
    assert _logged(second) == _logged(straight)[2:]  # the episodes ended at moves 30 and 40


def test_a_trial_gives_the_same_numbers_alone_or_in_a_batch(tmp_path):
    params = LinearDQNParams(batch_size=8, replay_size=40, target_period=9, mask_actions=True)
    alone = _agent(tmp_path / "alone", params, horizon=8, seeds=(11,))
    batch = _agent(tmp_path / "batch", params, horizon=8, seeds=(7, 11, 13))
    alone.learn_episodes(4)
    batch.learn_episodes(4)
    assert batch.episodes == [4, 4, 4] and batch.steps == [32, 32, 32]
    for name, array in alone.q.state().items():
        assert np.array_equal(batch.q.state()[name][1], array[0]), name
    assert _logged(batch, 1) == _logged(alone) and _logged(batch, 0) != _logged(alone)


def test_episodes_play_the_envs_boards_in_order_and_the_replay_holds_each_move_as_made(tmp_path):
    """A copy of the trial's env, replaying the agent's moves: the first episode is on the board make_env
    dealt, each next one on the next board, and each stored transition is (key, piece type, bucket) of
    the move, its reward, whether it cleared the board, and the next state's key and cell types."""
    params = LinearDQNParams(batch_size=8, replay_size=100, mask_actions=True)
    agent = _agent(tmp_path, params, horizon=6, board=ONE_PIECE | {"min_objects": 2})
    twin = make_env(agent.contexts[0].env_params, agent.contexts[0].seed)
    stored, moves = agent.replay.arrays, 0
    for episode in range(4):
        agent.learn_episodes(1)
        if episode:
            twin.reset()
        types, last = agent.features.keys(twin.observation())
        for action in agent.actions[0]:
            obs, reward, terminated, _, _ = twin.step(action)
            next_types, next_last = agent.features.keys(obs)
            found = {name: stored[name][0, moves] for name in stored}
            assert found == {**found, "last": last[0], "kind": types[0, action // BUCKETS], "bucket": action % BUCKETS,
                             "reward": reward, "done": terminated, "next_last": next_last[0]}
            assert np.array_equal(found["next_types"], next_types[0])
            types, last, moves = next_types, next_last, moves + 1
    assert agent.steps == [moves] and agent.boards[0] == 4 and stored["done"][0, :moves].sum() in range(1, 4)


def test_closing_the_agent_closes_every_trials_env(tmp_path):
    agent = _agent(tmp_path, LinearDQNParams(batch_size=8), seeds=(1, 2, 3))
    closed = []
    for t, env in enumerate(agent.envs):
        env.close = lambda t=t: closed.append(t)
    agent.close()
    assert closed == [0, 1, 2]


def test_a_trials_exploration_stream_is_its_own_not_its_seeds_plain_stream(tmp_path):
    """np.random.default_rng(seed), the stream other parts draw from the same seed (the order of
    predefined boards, for one), is not the one the agent explores and samples the replay with."""
    agent = _agent(tmp_path, LinearDQNParams(batch_size=8), seeds=(5, 6))
    for seed, rng in zip((5, 6), agent.rngs):
        assert rng.random(4).tolist() != np.random.default_rng(seed).random(4).tolist()
