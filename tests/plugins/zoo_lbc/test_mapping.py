"""The hybrid mapping and the members' reward shapings (LBC Eq. 10, Table 3)."""

import math

import pytest
import torch
from zoo_lbc.behavior import behavior_space, hybrid_log_probs, normalized_weights
from zoo_lbc.shaping import rs1, rs2, rs3

A = torch.tensor([[[1.0, 0.0, -1.0], [0.0, 2.0, 0.0], [0.5, 0.5, 0.5]]], dtype=torch.float64)  # (B=1, N=3, A=3)


def point(taus, omegas):
    return torch.tensor([[v for t, w in zip(taus, omegas) for v in (math.log1p(t), w)]], dtype=torch.float64)


def test_mixture_matches_a_hand_computation():
    mu = hybrid_log_probs(A, point([1.0, 0.5, 3.0], [0.2, 0.6, 0.2])).exp()[0]
    e = math.e
    first = [e / (e + 1 + 1 / e), 1 / (e + 1 + 1 / e), (1 / e) / (e + 1 + 1 / e)]  # softmax([1, 0, -1])
    second = [1 / (2 + e), e / (2 + e), 1 / (2 + e)]  # softmax(0.5 * [0, 2, 0])
    expected = [0.2 * f + 0.6 * s + 0.2 / 3 for f, s in zip(first, second)]  # member 3 is flat: uniform
    assert mu.tolist() == pytest.approx(expected, abs=1e-12) and float(mu.sum()) == pytest.approx(1.0)


def test_special_cases():
    one_hot = hybrid_log_probs(A, point([7.0, 2.0, 7.0], [0.0, 1.0, 0.0])).exp()[0]
    assert torch.allclose(one_hot, torch.softmax(2.0 * A[0, 1], -1))  # omega = e_2: softmax(tau_2 A_2)
    zero_tau = hybrid_log_probs(A, point([0.0, 0.0, 0.0], [0.3, 0.3, 0.3])).exp()[0]
    assert torch.allclose(zero_tau, torch.full((3,), 1 / 3, dtype=torch.float64))  # tau = 0: uniform components
    raw = torch.tensor([[0.2, 0.2, 0.4], [0.0, 0.0, 0.0]])
    assert torch.allclose(normalized_weights(raw), torch.tensor([[0.25, 0.25, 0.5], [1 / 3, 1 / 3, 1 / 3]]))
    tiny = torch.tensor([[1e-13, 0.0, 3e-13], [1e-30, 1e-30, 2e-30]], dtype=torch.float64)  # sums far below 1e-12
    assert torch.allclose(normalized_weights(tiny), torch.tensor([[0.25, 0.0, 0.75], [0.25, 0.25, 0.5]], dtype=torch.float64))
    single = hybrid_log_probs(A, torch.tensor([[math.log1p(3.0)]], dtype=torch.float64)).exp()[0]
    assert torch.allclose(single, torch.softmax(3.0 * A[0, 0], -1))  # reduce_H_and_Psi: softmax(tau A_1)


def test_every_member_is_used_unless_its_weight_is_zero():
    psi = point([1.0, 1.0, 1.0], [0.3, 0.4, 0.3])
    changed = A.clone()
    changed[0, 1] = torch.tensor([3.0, -3.0, 0.0])
    assert not torch.allclose(hybrid_log_probs(A, psi), hybrid_log_probs(changed, psi))
    psi_without_2 = point([1.0, 1.0, 1.0], [0.5, 0.0, 0.5])
    assert torch.allclose(hybrid_log_probs(A, psi_without_2), hybrid_log_probs(changed, psi_without_2))


def test_behavior_space_grid():
    space = behavior_space(3, "none")
    assert space.names == ("x1", "omega1", "x2", "omega2", "x3", "omega3")
    x, omega = space.coordinates[:2]
    assert (x.blocks, omega.blocks) == (20, 10) and omega.block_of(1.0) == 9
    assert [math.expm1(x.edges(k)[0]) for k in (0, 1, 19)] == pytest.approx([0.0, math.exp(0.2) - 1, math.exp(3.8) - 1])
    grid = [(c.low, c.high, c.block) for c in space.coordinates]
    assert grid == [(x.low, x.high, x.block), (omega.low, omega.high, omega.block)] * 3  # every member alike
    (single,) = behavior_space(3, "reduce_H_and_Psi").coordinates
    assert single.name == "x" and (single.low, single.high, single.block) == (x.low, x.high, x.block)


@pytest.mark.parametrize("members,ablation", [(2, "none"), (3, "none"), (3, "reduce_H_and_Psi")])
def test_default_point_is_softmax_of_the_first_member(members, ablation):
    space = behavior_space(members, ablation)
    assert all(c.low <= v <= c.high for c, v in zip(space.coordinates, space.default, strict=True))  # a point of it
    default = torch.tensor([space.default], dtype=torch.float64)
    mu = hybrid_log_probs(A[:, :members], default).exp()
    assert torch.allclose(mu, torch.softmax(A[:, 0], -1), rtol=0, atol=1e-12)


def test_each_row_of_a_time_major_batch_uses_its_own_point():
    """adv (T, B, N, A) with B = 2 behavior points: each row is the mixture of its own point, at every step."""
    adv = torch.randn(4, 2, 3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    points = torch.cat([point([2.0, 0.5, 6.0], [0.1, 0.7, 0.4]), point([0.3, 4.0, 1.0], [0.0, 0.0, 0.0])])
    weights = [[0.1 / 1.2, 0.7 / 1.2, 0.4 / 1.2], [1 / 3, 1 / 3, 1 / 3]]  # the second row's omegas are all 0
    taus = [[2.0, 0.5, 6.0], [0.3, 4.0, 1.0]]
    expected = torch.stack([torch.stack([sum(w * torch.softmax(tau * adv[t, b, i], -1)
                                             for i, (w, tau) in enumerate(zip(weights[b], taus[b])))
                                         for b in range(2)]) for t in range(4)])
    assert torch.allclose(hybrid_log_probs(adv, points).exp(), expected, rtol=0, atol=1e-12)
    single = torch.tensor([[math.log1p(2.0)], [math.log1p(0.25)]], dtype=torch.float64)
    expected = torch.stack([torch.softmax(2.0 * adv[:, 0, 0], -1), torch.softmax(0.25 * adv[:, 1, 0], -1)], 1)
    assert torch.allclose(hybrid_log_probs(adv, single).exp(), expected, rtol=0, atol=1e-12)


def test_reward_shapings_reference_values():
    r = torch.tensor([1.0, -1.0, 100.0, 0.0], dtype=torch.float64)
    assert rs1(r).tolist() == pytest.approx([0.415214, -0.415214, 9.149876, 0.0], abs=1e-6)
    assert rs2(r).tolist() == pytest.approx([1.386294, -0.693147, 9.230241, 0.0], abs=1e-6)
    assert rs3(torch.tensor([1.0, -1.0, 10.0, 0.0], dtype=torch.float64)).tolist() == pytest.approx(
        [3.807971, -0.228478, 5.0, 0.0], abs=1e-6)


@pytest.mark.parametrize("leading", [(), (4,), (2, 3)])
@pytest.mark.parametrize("coordinates", [1, 6])
def test_one_distribution_per_row_and_step(leading, coordinates):
    """adv (..., B, N, A) gives log mu (..., B, A) for both point layouts, whatever the leading axes."""
    adv = torch.randn(*leading, 2, 3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    points = torch.rand(2, coordinates, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    log_mu = hybrid_log_probs(adv, points)
    assert log_mu.shape == (*leading, 2, 5)
    assert torch.allclose(log_mu.exp().sum(-1), torch.ones(*leading, 2, dtype=torch.float64))
