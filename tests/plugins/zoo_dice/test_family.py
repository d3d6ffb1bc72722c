"""The closed-form behavior family pi_tau = softmax(A / tau) on x = log(1 + 1/tau) (DiCE Section 3.1)."""

import math

import numpy as np
import pytest
import torch
from zoo_dice.behavior import TAU_ONE, TILES, X_MAX, X, behavior_space, inverse_temperature, tau_of_x, x_of_tau
from zoo_dice.loss import DiCELoss


def pi(adv, tau, dtype=torch.float32):
    """pi_tau through the agent's behavior policy."""
    loss = DiCELoss(burn_in=0, gamma=0.99, rho_bar=1.05, c_bar=1.05, scales=(1, 10, 10))
    adv = torch.as_tensor(adv, dtype=dtype).reshape(1, 1, -1)
    return loss.behavior_policy(adv, torch.zeros(1, 1), torch.tensor([[x_of_tau(tau)]])).exp()[0]


def test_known_answer_and_limits():
    e = math.e
    assert torch.allclose(pi([1.0, 0.0], 1.0), torch.tensor([e / (1 + e), 1 / (1 + e)]))
    assert pi([1.0, 0.0, 0.5], 0.02)[0] > 0.9999  # tau -> 0: argmax
    assert torch.allclose(pi([3.0, -1.0, 0.5], math.inf), torch.full((3,), 1 / 3), rtol=0, atol=1e-7)  # 1/tau = 0: exactly uniform
    assert pi([3.0, -1.0, 0.5], 1e6).max() - 1 / 3 < 1e-5


def test_every_tau_ranks_actions_alike():
    adv = np.random.default_rng(0).normal(size=6)
    for tau in (0.02, 0.3, 1.0, 7.0, 50.0):
        assert np.array_equal(np.argsort(pi(adv, tau).numpy()), np.argsort(adv))


def entropy(adv, tau):
    p = pi(adv, tau, torch.float64)
    return float(-torch.xlogy(p, p).sum())


def test_entropy_is_monotone_and_bisection_reaches_a_target():
    rng = np.random.default_rng(1)
    for _ in range(5):
        adv = rng.normal(size=5)
        values = [entropy(adv, tau) for tau in np.geomspace(0.02, 50, 40)]
        assert all(b >= a - 1e-6 for a, b in zip(values, values[1:]))
        target, low, high = 0.5 * math.log(5), 1e-3, 1e3
        for _ in range(100):
            mid = math.sqrt(low * high)
            low, high = (mid, high) if entropy(adv, mid) < target else (low, mid)
        assert abs(entropy(adv, math.sqrt(low * high)) - target) < 1e-6


def test_x_tau_round_trip_and_range():
    for tau in (0.02, 1.0, 50.0):
        assert tau_of_x(x_of_tau(tau)) == pytest.approx(tau, rel=1e-12)
    assert tau_of_x(0.0) == math.inf and x_of_tau(math.inf) == 0.0
    for x in np.linspace(-3.0, 4.0, 29):  # x_of_tau inverts tau_of_x on the whole line, x < 0 being tau < -1
        assert x_of_tau(tau_of_x(x)) == pytest.approx(x, rel=1e-12, abs=1e-15)
    assert x_of_tau(0.02) == pytest.approx(X_MAX) and X_MAX == pytest.approx(math.log(51))
    assert float(inverse_temperature(np.array([[X_MAX]]))[0]) == pytest.approx(50.0, rel=1e-5)
    space = behavior_space()
    assert space.coordinates == (X,) and X.blocks == TILES == 50 and space.default == (TAU_ONE,)
    assert tau_of_x(TAU_ONE) == pytest.approx(1.0)
    assert (X.block_of(-1.0), X.block_of(X_MAX), X.block_of(10.0)) == (0, 49, 49)  # clipped; x = r -> K - 1
