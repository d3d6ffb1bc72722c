"""The linear DQN's parts, each against a slow reference: LinearQ's values, target maxima and Adam
steps, trial by trial and in any order of rows; the replay's ring buffers; both their checkpoints.

Numpy only and a small feature set (three shapes, three colors), so that each test takes milliseconds.
"""

from __future__ import annotations

import numpy as np
import pytest
from zoo_dqn.linear import LinearQ
from zoo_dqn.replay import Replay
from zoo_gohr.engine.constants import BUCKETS, CELLS
from zoo_gohr.vector.features import GohrPaperFeatures

# 1935 features and 9 piece types: odd counts, so that neither the padding column nor the empty type
# is a bit flip away from the next
FEATURES = GohrPaperFeatures(("STAR", "SQUARE", "CIRCLE"), ("RED", "BLUE", "BLACK"))
TABLE, PAD, EMPTY = FEATURES.index_table, FEATURES.pad, FEATURES.n_types


def _q_of(weights, last, kind, bucket) -> float:
    """theta . phi by brute force: the sum of the weights of the ones, the padding index left out."""
    return sum(weights[i] for i in TABLE[last, kind, bucket] if i != PAD)


def _random_q(trials, seed=0, **adam) -> LinearQ:
    q = LinearQ(trials, TABLE, lr=0.05, **adam)
    q.theta[:, :-1] = np.random.default_rng(seed).normal(size=(trials, q.width - 1))
    return q


def _states(rng, n):
    """n random states: a last-move key and the piece type of each cell (some cells empty)."""
    types = np.where(rng.random((n, CELLS)) < 0.3, EMPTY, rng.integers(0, EMPTY, (n, CELLS)))
    return types, rng.integers(0, FEATURES.n_last, n)


def test_q_of_every_action_and_of_stored_moves_is_theta_dot_phi_of_each_rows_trial():
    q, rng = _random_q(3), np.random.default_rng(1)
    types, last = _states(rng, 2)
    rows = np.array([2, 0])
    values = q.q_actions(rows, types, last)
    assert values.shape == (2, CELLS * BUCKETS)
    for i, t in enumerate(rows):
        assert np.allclose(values[i], [_q_of(q.theta[t], last[i], types[i, a // BUCKETS], a % BUCKETS)
                                       for a in range(CELLS * BUCKETS)])
    kind, bucket = rng.integers(0, EMPTY + 1, (2, 5)), rng.integers(0, BUCKETS, (2, 5))
    lasts = rng.integers(0, FEATURES.n_last, (2, 5))
    taken, idx = q.q_taken(rows, lasts, kind, bucket)
    assert np.array_equal(idx, TABLE[lasts, kind, bucket])
    assert np.allclose(taken, [[_q_of(q.theta[t], lasts[i, j], kind[i, j], bucket[i, j]) for j in range(5)]
                               for i, t in enumerate(rows)])


def _brute_target_max(weights, last, types, occupied_only):
    cells = [c for c in range(CELLS) if types[c] != EMPTY]
    if not occupied_only or not cells:
        cells = range(CELLS)
    return max(_q_of(weights, last, types[c], b) for c in cells for b in range(BUCKETS))


@pytest.mark.parametrize("occupied_only", [False, True])
def test_target_max_is_the_brute_force_max_over_the_next_states_actions(occupied_only):
    q, rng = _random_q(3, seed=2), np.random.default_rng(3)
    q.theta[:, :-1] -= 1.0  # an empty cell's one feature then tends to beat a piece's eighteen
    q.refresh_target(np.array([1, 2]))
    q.theta[:, :-1] += 1.0  # moving theta afterwards does not move the target
    types, last = _states(rng, 8)
    types[0] = EMPTY  # a cleared board: every action is the move of an empty cell
    types[1] = EMPTY
    types[1, 7] = 0  # one piece left
    rows, masked = np.array([2, 1]), 0
    best = q.target_max(rows, last.reshape(2, 4), types.reshape(2, 4, CELLS), occupied_only)
    assert best.shape == (2, 4)
    for i, t in enumerate(rows):
        for j in range(4):
            k = 4 * i + j
            assert np.isclose(best[i, j], _brute_target_max(q.target[t], last[k], types[k], occupied_only))
            masked += best[i, j] != _brute_target_max(q.target[t], last[k], types[k], not occupied_only)
    assert masked >= 4  # which cells count changes most maxima
    # trial 0's target was never refreshed: all its weights, and so every maximum, are 0
    assert not q.target_max(np.array([0]), last[None, :4], types[None, :4], occupied_only).any()


def _reference_adam(theta, grads, lr, b1=0.9, b2=0.999, eps=1e-8):
    """Kingma and Ba's Algorithm 1, step by step, for one parameter vector (a float per weight)."""
    theta, m, v = theta.copy(), np.zeros_like(theta), np.zeros_like(theta)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        theta = theta - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    return theta


def _gradient(width, idx, dq):
    """sum_j dq[j] * phi_j over the moves j of one trial, the padding index left out."""
    grad = np.zeros(width)
    for ones, d in zip(idx, dq):
        for i in ones:
            if i != PAD:
                grad[i] += d
    return grad


@pytest.mark.parametrize("adam", [{}, {"betas": (0.4, 0.3), "eps": 1e-3}])  # LinearQ's defaults are Adam's
def test_adam_steps_of_any_rows_in_any_order_match_kingma_and_ba_per_trial(adam):
    """Trials step at different times (so their bias corrections differ), through both ways of
    stepping: every trial in order, and a subset or a permutation of them."""
    q, rng = _random_q(3, seed=4, **adam), np.random.default_rng(5)
    start = q.theta.copy()
    grads = {t: [] for t in range(3)}
    for rows in ([0, 1, 2], [1], [2, 0], [0, 1, 2], [1, 0, 2], [0, 1], [2, 0, 1], [2]):
        rows = np.array(rows)
        kind, bucket = rng.integers(0, EMPTY + 1, (len(rows), 6)), rng.integers(0, BUCKETS, (len(rows), 6))
        kind[:, 0] = EMPTY  # an empty cell's row: its padding entries get no gradient
        kind[:, 1], bucket[:, 1] = kind[:, 2], bucket[:, 2]  # the same ones twice: their gradients add up
        lasts = rng.integers(0, FEATURES.n_last, (len(rows), 6))
        lasts[:, 1] = lasts[:, 2]
        _, idx = q.q_taken(rows, lasts, kind, bucket)
        dq = rng.normal(size=(len(rows), 6))
        q.step(rows, idx, dq)
        for i, t in enumerate(rows):
            grads[t].append(_gradient(q.width, idx[i], dq[i]))
    assert q.updates.tolist() == [6, 6, 6]
    b1, b2 = adam.get("betas", (0.9, 0.999))
    for t in range(3):
        expected = _reference_adam(start[t], grads[t], lr=0.05, b1=b1, b2=b2, eps=adam.get("eps", 1e-8))
        assert np.allclose(q.theta[t], expected, rtol=0, atol=1e-12) and q.theta[t, -1] == 0.0


def test_a_checkpoint_of_linear_q_restores_every_array_and_the_steps_after_it():
    q, rng = _random_q(2, seed=6), np.random.default_rng(7)

    def advance(model, times):
        for _ in range(times):
            kind, bucket = rng.integers(0, EMPTY, (2, 4)), rng.integers(0, BUCKETS, (2, 4))
            _, idx = model.q_taken(np.arange(2), rng.integers(0, FEATURES.n_last, (2, 4)), kind, bucket)
            model.step(np.arange(2), idx, rng.normal(size=(2, 4)))
        model.refresh_target(np.array([1]))

    advance(q, 3)
    arrays = {name: array.copy() for name, array in q.state().items()}
    copy = LinearQ(2, TABLE, lr=0.05)
    copy.load(arrays)
    for name, array in copy.state().items():
        assert np.array_equal(array, arrays[name]), name
    state = rng.bit_generator.state
    advance(q, 2)
    rng.bit_generator.state = state
    advance(copy, 2)
    assert np.array_equal(copy.theta, q.theta) and np.array_equal(copy.target, q.target)


def test_the_replay_is_a_ring_of_the_last_capacity_moves_of_each_trial():
    """Against a list of every move added: slot i holds the last move whose count is i modulo the capacity."""
    replay, rng = Replay(3, capacity=4, cells=2), np.random.default_rng(8)
    added = {t: [] for t in range(3)}
    for rows in ([0], [0, 2], [2, 0], [0], [0, 1], [0], [2]):
        rows = np.array(rows)
        values = {"last": rng.integers(0, 100, len(rows)), "kind": rng.integers(0, 17, len(rows)),
                  "bucket": rng.integers(0, 4, len(rows)), "reward": rng.normal(size=len(rows)).astype(np.float32),
                  "done": rng.random(len(rows)) < 0.5, "next_last": rng.integers(0, 100, len(rows)),
                  "next_types": rng.integers(0, 17, (len(rows), 2))}
        replay.add(rows, **values)
        for i, t in enumerate(rows):
            added[t].append({name: value[i] for name, value in values.items()})
    counts = [len(added[t]) for t in range(3)]
    assert counts == [6, 1, 3]
    assert replay.size.tolist() == [4, 1, 3] and replay.head.tolist() == [2, 1, 3]
    rows, picks = np.array([0, 2]), np.array([[0, 1, 3], [2, 0, 1]])
    batch = replay.gather(rows, picks)
    for i, t in enumerate(rows):
        for j, slot in enumerate(picks[i]):
            move = added[t][max(n for n in range(counts[t]) if n % 4 == slot)]
            for name, value in move.items():
                assert np.array_equal(batch[name][i, j], value), (t, slot, name)
    copy = Replay(3, capacity=4, cells=2)
    copy.load({name: array.copy() for name, array in replay.state().items()})
    for name, array in replay.state().items():
        assert np.array_equal(copy.state()[name], array), name


def test_a_trials_numbers_are_bitwise_the_same_alone_or_with_other_trials():
    """Each trial's sums add in the same order whatever rows share the call (a fancy index may lay a
    batch out transposed, and numpy orders a sum's additions by the layout)."""
    many, rng = _random_q(3, seed=9), np.random.default_rng(10)
    alone = LinearQ(1, TABLE, lr=0.05)
    alone.theta[0] = many.theta[1]
    many.refresh_target(np.array([2, 1, 0]))
    alone.refresh_target(np.array([0]))
    assert np.array_equal(many.state()["target_max"][1], alone.state()["target_max"][0])
    types, last = _states(rng, 3)
    kind, bucket, lasts = rng.integers(0, EMPTY + 1, (3, 8)), rng.integers(0, BUCKETS, (3, 8)), rng.integers(0, FEATURES.n_last, (3, 8))
    assert np.array_equal(many.q_actions(np.arange(3), types, last)[1], alone.q_actions(np.array([0]), types[1:2], last[1:2])[0])
    assert np.array_equal(many.q_taken(np.arange(3), lasts, kind, bucket)[0][1],
                          alone.q_taken(np.array([0]), lasts[1:2], kind[1:2], bucket[1:2])[0][0])
