"""SARSA(lambda) mechanics: replacing traces, the update against a dense reference, exploration."""

from __future__ import annotations

import numpy as np
import pytest
from zoo_sarsa.learner import SarsaLambda


def learner(actions=2, size=2, per_action=False, **overrides) -> SarsaLambda:
    settings = dict(alpha=0.5, gamma=0.9, lam=0.8, epsilon=0.0, trace_cutoff=1e-4, alpha_norm="max_so_far",
                    rng=np.random.default_rng(0), dtype=np.float64)
    settings.update(overrides)
    return SarsaLambda(actions, size, per_action, **settings)


def test_replacing_traces_never_exceed_one_and_clear_other_actions():
    sarsa = learner(actions=3, size=4)
    sarsa.mark(np.array([1, 2]), 0)
    sarsa.mark(np.array([1, 2]), 0)

    def traces():
        return sarsa.by_action(sarsa.traces())

    assert traces()[0, 1] == traces()[0, 2] == 1.0
    sarsa.mark(np.array([2, 3]), 1)
    assert traces()[0, 2] == 0 and traces()[1, 2] == traces()[1, 3] == 1 and traces()[0, 1] == 1
    sarsa.update(0.0)
    assert traces()[0, 1] == pytest.approx(0.72) and traces()[1, 3] == pytest.approx(0.72)  # decay gamma*lambda


def test_cutoff_drops_small_traces_from_the_live_set():
    sarsa = learner(gamma=0.5, lam=0.5, trace_cutoff=0.1)
    sarsa.mark(np.array([0]), 0)
    sarsa.update(0.0)
    assert sarsa.live.tolist() == [0]
    sarsa.update(0.0)  # 0.0625 < 0.1
    assert sarsa.live.tolist() == [] and sarsa.traces().max() == 0


def dense_reference(episode, actions, size, alpha, gamma, lam):
    """Sutton & Barto Fig. 8.8 with replacing traces, dense arrays, alpha / max |F| so far."""
    theta, e, biggest, history = np.zeros((actions, size)), np.zeros((actions, size)), 0, []
    (features, action), rest = episode[0], episode[1:]
    biggest = max(biggest, len(features))
    for reward, step in rest:
        e[:, features] = 0
        e[action, features] = 1
        delta = reward - theta[action, features].sum()
        if step is not None:
            next_features, next_action = step
            biggest = max(biggest, len(next_features))
            delta += gamma * theta[next_action, next_features].sum()
        theta += alpha / biggest * delta * e
        e *= gamma * lam
        history.append(theta.copy())
        if step is not None:
            features, action = step
    return history


def test_three_step_episode_matches_the_dense_reference():
    # (features, action) of s0, then (reward, next (features, action) or None at the terminal)
    episode = [([0], 0), (1.0, ([0, 1], 1)), (0.0, ([1], 0)), (2.0, None)]
    expected = dense_reference(episode, 2, 2, 0.5, 0.9, 0.8)
    sarsa = learner()
    (features, action) = episode[0]
    features = np.array(features)
    sarsa.observe(features)
    for (reward, step), theta in zip(episode[1:], expected):
        delta = reward - sarsa.mark(features, action)
        if step is not None:
            next_features = np.array(step[0])
            sarsa.observe(next_features)
            delta += sarsa.gamma * sarsa.q_values(next_features)[step[1]]
            features, action = next_features, step[1]
        sarsa.update(delta)
        assert np.allclose(sarsa.by_action(sarsa.weights()), theta, atol=1e-9)
    assert expected[0][0, 0] == pytest.approx(0.25)  # alpha 0.5 / max |F| = 2, delta 1
    assert expected[-1][0, 1] != 0  # the terminal delta reached s1's features through the trace


@pytest.mark.parametrize("gamma, lam, cutoff", [(0.9, 0.7, 0.05), (0.99, 0.95, 1e-4), (1.0, 1.0, 0.0), (0.9, 0.0, 1e-4)])
def test_long_random_episode_matches_a_dense_implementation(gamma, lam, cutoff):
    # many epochs of deferred updates; rho = gamma * lambda from 0 (one-step traces) to 1 (traces never decay)
    rng = np.random.default_rng(4)
    actions, size = 3, 40
    sarsa = learner(actions=actions, size=size, gamma=gamma, lam=lam, trace_cutoff=cutoff)
    theta, e, biggest = np.zeros((actions, size)), np.zeros((actions, size)), 0
    for t in range(300):
        features = np.sort(rng.choice(size, size=int(rng.integers(1, 8)), replace=False))
        action, delta = int(rng.integers(actions)), float(rng.normal())
        biggest = max(biggest, len(features))
        sarsa.observe(features)
        q = sarsa.mark(features, action)
        assert np.allclose(sarsa.q_values(features), theta[:, features].sum(axis=1), atol=1e-12)  # reads see
        assert q == pytest.approx(theta[action, features].sum(), abs=1e-12)  # every pending share
        sarsa.update(delta)
        e[:, features] = 0
        e[action, features] = 1
        theta += 0.5 / biggest * delta * e
        e *= gamma * lam
        e[e < cutoff] = 0
        assert np.allclose(sarsa.by_action(sarsa.traces()), e, atol=1e-12)
        if t % 7 == 0:
            assert np.allclose(sarsa.by_action(sarsa.weights()), theta, atol=1e-12)
    assert sarsa.live.tolist() == np.flatnonzero(e.T).tolist()
    sarsa.clear_traces()
    assert np.allclose(sarsa.by_action(sarsa.theta), theta, atol=1e-12) and not sarsa.traces().any()


def test_epochs_forget_ended_traces():
    sarsa = learner(actions=2, size=1000, gamma=0.5, lam=0.5, trace_cutoff=0.1)  # a trace counts for 2 updates
    for t in range(100):
        sarsa.mark(np.array([10 * t, 10 * t + 1]), t % 2)
        sarsa.update(1.0)
    assert sarsa.epoch == 3 and sarsa._count <= 2 * (sarsa.epoch + sarsa.reach)


def test_state_action_features_use_one_weight_vector():
    sarsa = learner(actions=3, size=5, per_action=True)
    active = [np.array([0, 1]), np.array([1, 2]), np.array([], np.int64)]
    sarsa.observe(active)
    sarsa.theta[:] = [1, 2, 3, 4, 5]
    assert sarsa.q_values(active).tolist() == [3, 5, 0]
    sarsa.mark(active, 1)
    assert sarsa.traces().tolist() == [0, 1, 1, 0, 0]
    sarsa.mark([np.array([0]), np.array([2]), np.array([4])], 0)
    assert sarsa.traces().tolist() == [1, 1, 0, 0, 0]  # the other actions' features of this state cleared


def test_epsilon_greedy_breaks_ties_uniformly_and_explores_at_rate_epsilon():
    sarsa = learner(actions=4, rng=np.random.default_rng(1))
    counts = np.bincount([sarsa.choose(np.array([1.0, 1.0, 0.0, 1.0])) for _ in range(6000)], minlength=4)
    assert counts[2] == 0
    chi2 = ((counts[[0, 1, 3]] - 2000) ** 2 / 2000).sum()
    assert chi2 < 13.8  # chi-square, 2 degrees of freedom, p = 0.001
    sarsa.epsilon = 0.2
    n = 20000
    explored = np.mean([sarsa.choose(np.array([0.0, 5.0, 0.0, 0.0])) != 1 for _ in range(n)]) / 0.75
    assert abs(explored - 0.2) < 3 * np.sqrt(0.2 * 0.8 / n) / 0.75
