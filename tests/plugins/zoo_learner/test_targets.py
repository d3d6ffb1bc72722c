"""V-trace, Retrace and the policy-gradient advantage against hand-computed values and slow reference loops."""

import torch
from zoo_learner.targets import pg_advantage, retrace, retrace_expected, vtrace

V = torch.tensor([1.0, 2.0, 3.0])
R = torch.tensor([1.0, 1.0])
G = torch.tensor([0.5, 0.5])


def test_vtrace_by_hand():
    # vs_2 = 3; vs_1 = 2 + 0.5*(1 + 1.5 - 2) + 0 = 2.25; vs_0 = 1 + 1*(1 + 1 - 1) + 0.5*1*(2.25 - 2) = 2.125
    vs = vtrace(V, R, G, rho=torch.tensor([1.0, 0.5]), c=torch.tensor([1.0, 0.5]))
    assert torch.allclose(vs, torch.tensor([2.125, 2.25, 3.0]))


def test_pg_advantage_by_hand():
    vs = torch.tensor([2.125, 2.25, 3.0])
    adv = pg_advantage(vs, V, R, G, rho=torch.tensor([1.0, 0.5]))
    assert torch.allclose(adv, torch.tensor([1.0 + 0.5 * 2.25 - 1.0, 0.5 * (1.0 + 1.5 - 2.0)]))


def test_retrace_paper_form_by_hand():
    # qs_2 = 3; qs_1 = 1 + 0.5*(1*3 + 0*3) = 2.5; qs_0 = 1 + 0.5*(0.5*2.5 + 0.5*2) = 2.125
    qs = retrace(V, R, G, c=torch.tensor([9.0, 0.5, 1.0]))
    assert torch.allclose(qs, torch.tensor([2.125, 2.5, 3.0]))


def test_retrace_expected_form_by_hand():
    # qs_2 = EQ_2 = 3.5; qs_1 = 1 + 0.5*(3.5 + 1*(3.5 - 3)) = 3; qs_0 = 1 + 0.5*(2.5 + 0.5*(3 - 2)) = 2.5
    qs = retrace_expected(V, torch.tensor([1.5, 2.5, 3.5]), R, G, c=torch.tensor([9.0, 0.5, 1.0]))
    assert torch.allclose(qs, torch.tensor([2.5, 3.0, 3.5]))


def _random_case(steps=7, batch=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    values = torch.randn(steps + 1, batch, generator=g)
    rewards = torch.randn(steps, batch, generator=g)
    done = (torch.rand(steps, batch, generator=g) < 0.2).float()
    discounts = 0.9 * (1 - done)
    rho = torch.rand(steps, batch, generator=g) * 1.05
    c = torch.rand(steps + 1, batch, generator=g) * 1.05
    return values, rewards, discounts, rho, c


def test_vtrace_matches_the_sum_form():
    """vs_t = V_t + sum_k (prod_{i<k} g_{t+i} c_{t+i}) * g-weighted rho_{t+k} delta_{t+k}, per element."""
    values, rewards, discounts, rho, c = _random_case()
    vs = vtrace(values, rewards, discounts, rho, c[:-1])
    steps, batch = rewards.shape
    for b in range(batch):
        for t in range(steps):
            total, weight = values[t, b].item(), 1.0
            for k in range(t, steps):
                delta = rho[k, b] * (rewards[k, b] + discounts[k, b] * values[k + 1, b] - values[k, b])
                total += weight * delta.item()
                weight *= (discounts[k, b] * c[k, b]).item()
            assert abs(vs[t, b].item() - total) < 1e-5


def test_retrace_matches_the_sum_form():
    """Paper form: Q_t + sum_k g^k (c_{t+1}..c_{t+k}) (r_{t+k} + g Q_{t+k+1} - Q_{t+k}), with per-step discounts."""
    q, rewards, discounts, _, c = _random_case(seed=1)
    qs = retrace(q, rewards, discounts, c)
    steps, batch = rewards.shape
    for b in range(batch):
        for t in range(steps):
            total, weight = q[t, b].item(), 1.0
            for k in range(t, steps):
                if k > t:
                    weight *= (discounts[k - 1, b] * c[k, b]).item()
                total += weight * (rewards[k, b] + discounts[k, b] * q[k + 1, b] - q[k, b]).item()
            assert abs(qs[t, b].item() - total) < 1e-5


def test_on_policy_vtrace_is_the_n_step_return():
    values, rewards, discounts, _, _ = _random_case(seed=2)
    ones = torch.ones_like(rewards)
    vs = vtrace(values, rewards, discounts, ones, ones)
    steps = rewards.shape[0]
    expected = values[steps].clone()
    for t in range(steps - 1, -1, -1):
        expected = rewards[t] + discounts[t] * expected
        assert torch.allclose(vs[t], expected, atol=1e-5)


def test_retrace_with_unit_traces_telescopes_to_the_return():
    q, rewards, discounts, _, _ = _random_case(seed=3)
    qs = retrace(q, rewards, discounts, torch.ones(rewards.shape[0] + 1, rewards.shape[1]))
    expected = q[-1].clone()
    for t in range(rewards.shape[0] - 1, -1, -1):
        expected = rewards[t] + discounts[t] * expected
    assert torch.allclose(qs[0], expected, atol=1e-5)


def test_zero_traces_give_current_values_and_one_step_targets():
    q, rewards, discounts, _, _ = _random_case(seed=4)
    zeros = torch.zeros_like(rewards)
    assert torch.allclose(vtrace(q, rewards, discounts, zeros, zeros), q)
    qs = retrace(q, rewards, discounts, torch.zeros(rewards.shape[0] + 1, rewards.shape[1]))
    assert torch.allclose(qs[:-1], rewards + discounts * q[1:])


def test_terminal_cuts_the_bootstrap():
    values = torch.tensor([0.0, 0.0, 100.0])
    vs = vtrace(values, torch.tensor([1.0, 2.0]), torch.tensor([0.9, 0.0]), torch.ones(2), torch.ones(2))
    assert torch.allclose(vs, torch.tensor([1.0 + 0.9 * 2.0, 2.0, 100.0]))
