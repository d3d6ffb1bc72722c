"""DiCE's learner: the tau-scaled policy gradient, objective invariance, reward shape and loss assembly
(DiCE Section 3.2, Table 5; docs/algorithms/dice.md)."""

import math

import numpy as np
import pytest
import torch
from zoo_dice.behavior import x_of_tau
from zoo_dice.loss import DiCELoss, h_literal, h_symmetric, tau_scaled_log_prob
from zoo_learner.policy import boltzmann_log_probs

ACTIONS, ROWS, SEQS = 4, 6, 3


def test_tau_scaled_gradient_is_analytic_and_tau_free_in_size():
    adv0 = torch.tensor([0.3, -1.2, 2.0, 0.1], dtype=torch.float64)
    action = torch.tensor([1])  # a non-greedy action
    norms, unscaled = [], []
    for tau in (0.02, 1.0, 50.0, math.inf):
        adv = adv0.clone().requires_grad_()
        beta = torch.tensor(1.0 / tau, dtype=torch.float64)
        tau_scaled_log_prob(adv, beta, action).sum().backward()
        p = torch.softmax(adv0 * beta, -1)
        analytic = torch.nn.functional.one_hot(action[0], ACTIONS).double() - p  # grad A(a) - sum pi grad A
        assert torch.allclose(adv.grad, analytic, atol=1e-12)
        if math.isfinite(tau):
            direct = adv0.clone().requires_grad_()
            (tau * torch.log_softmax(direct / tau, -1)[1]).backward()
            assert torch.allclose(adv.grad, direct.grad, atol=1e-9)
            plain = adv0.clone().requires_grad_()
            torch.log_softmax(plain / tau, -1)[1].backward()
            unscaled.append(float(plain.grad.norm()))
        norms.append(float(adv.grad.norm()))
    assert max(norms) <= 2.0  # max ||grad A(a)|| = 1 here: no 1/tau blow-up
    assert unscaled[0] > 40 * unscaled[1]  # the unscaled gradient grows like 1/tau (tau 0.02 vs 1)


class FixedNet:
    """A 'network' whose advantages and values are given tensors (rows after burn-in = all rows here)."""

    def __init__(self, adv, value):
        self.adv, self.value = adv, value

    def unroll(self, obs, state, valid, burn_in):
        return self.adv.unsqueeze(-2), self.value.unsqueeze(-1)


def batch_for(adv, taus, seed=0, on_policy=True):
    """A time-major batch whose stored mu is pi_tau of `adv` (so the weights are 1 for every tau) or uniform."""
    rng = np.random.default_rng(seed)
    behavior = torch.tensor([[x_of_tau(t)] for t in taus], dtype=torch.float32)
    beta = torch.expm1(behavior[:, 0])
    mu = boltzmann_log_probs(adv.detach(), beta.expand(adv.shape[:-1])).exp() if on_policy else \
        torch.full(adv.shape, 1.0 / ACTIONS)
    action = torch.as_tensor(rng.integers(ACTIONS, size=(ROWS, SEQS)))  # the same actions for every tau
    train = torch.ones(ROWS, SEQS, dtype=torch.bool)
    train[-1] = False
    return {"obs": torch.zeros(ROWS, SEQS, 1), "state": torch.zeros(SEQS, 1), "valid": torch.ones(ROWS, SEQS, dtype=torch.bool),
            "action": action, "mu": mu,
            "reward": torch.as_tensor(rng.normal(size=(ROWS, SEQS)), dtype=torch.float32),
            "done": torch.zeros(ROWS, SEQS), "train": train, "behavior": behavior}


def loss_of(tau, entropy=0.0, seed=0, **kw):
    g = torch.Generator().manual_seed(seed)
    adv = torch.randn(ROWS, SEQS, ACTIONS, generator=g).requires_grad_()
    value = torch.randn(ROWS, SEQS, generator=g).requires_grad_()
    loss = DiCELoss(burn_in=0, gamma=0.9, rho_bar=1.05, c_bar=1.05, scales=(1.0, 10.0, 10.0), entropy=entropy, **kw)
    batch = batch_for(adv, [tau] * SEQS, seed)
    total, parts = loss(FixedNet(adv, value), batch)
    total.backward()
    return total, parts, adv.grad, value.grad, batch


@pytest.mark.parametrize("variant", ["standard", "literal"])
def test_objective_is_the_same_for_every_behavior_tau(variant):
    """On-policy data (mu = pi_tau) for any tau: the V-trace target and loss are identical (the critic
    learns the MDP return whatever tau explored; with the literal Retrace so does Q), and the policy
    gradient's size stays tau-free. The entropy ablation's objective does depend on tau."""
    taus = (0.1, 1.0, 50.0, math.inf)  # tau 0.02 would underflow pi_tau(a) of float32 weights to 0
    runs = {tau: loss_of(tau, retrace_variant=variant, seed=3) for tau in taus}
    assert len({round(runs[tau][1]["loss_v"], 5) for tau in taus}) == 1
    assert all(runs[tau][1]["rho"] == pytest.approx(1.0, abs=1e-5) for tau in taus)
    q_losses = {round(runs[tau][1]["loss_q"], 5) for tau in taus}
    assert len(q_losses) == (1 if variant == "literal" else len(taus))  # standard: E_{pi_tau} Q depends on tau
    pg_norms = [float(runs[tau][2].norm()) for tau in taus]
    assert max(pg_norms) < 3 * min(pg_norms)
    with_entropy = {tau: loss_of(tau, entropy=1.0, seed=3, retrace_variant=variant)[0].item() - runs[tau][0].item()
                    for tau in (0.1, 50.0)}
    assert with_entropy[50.0] < with_entropy[0.1] - 0.5  # minus H(pi_tau): more entropy, lower loss


def test_loss_is_xi_v_plus_alpha_q_plus_beta_pi_and_no_entropy_by_default():
    total, parts, *_ = loss_of(1.0, seed=1)
    assert total.item() == pytest.approx(parts["loss_v"] + 10 * parts["loss_q"] + 10 * parts["loss_pi"], rel=1e-5)
    with_entropy, parts_e, *_ = loss_of(1.0, entropy=1.0, seed=1)
    assert with_entropy.item() == pytest.approx(total.item() - parts_e["entropy"], rel=1e-5)
    assert parts_e["entropy"] > 0


def test_policy_gradient_reaches_advantages_only_and_matches_hand_value():
    """One trained row, tau = 0.5: d L / d A = -beta * rho * adv * (e_a - pi_tau) / rows, V untouched by L_pi."""
    adv = torch.tensor([[[1.0, 0.0, -1.0, 0.5]], [[0.0, 0.0, 0.0, 0.0]]], requires_grad=True)
    value = torch.tensor([[0.2], [0.7]], requires_grad=True)
    loss = DiCELoss(burn_in=0, gamma=0.9, rho_bar=1.05, c_bar=1.05, scales=(0.0, 0.0, 10.0))
    beta = torch.tensor([[x_of_tau(0.5)]])
    mu = torch.full((2, 1, 4), 0.25)
    batch = {"obs": torch.zeros(2, 1, 1), "state": torch.zeros(1, 1), "valid": torch.ones(2, 1, dtype=torch.bool),
             "action": torch.tensor([[2], [0]]), "mu": mu, "reward": torch.tensor([[1.0], [0.0]]),
             "done": torch.zeros(2, 1), "train": torch.tensor([[True], [False]]), "behavior": beta}
    total, _ = loss(FixedNet(adv, value), batch)
    total.backward()
    p = torch.softmax(2.0 * adv[0, 0].detach(), -1)
    rho = min(1.05, float(p[2] / 0.25))
    advantage = rho * (h_literal(torch.tensor(1.0)) + 0.9 * 0.7 - 0.2)  # vs_1 = V_1 (bootstrap row)
    expected = -10 * advantage * (torch.nn.functional.one_hot(torch.tensor(2), 4) - p)
    assert torch.allclose(adv.grad[0, 0], expected, atol=1e-5) and value.grad.abs().sum() == 0


def test_reward_shapes():
    r = torch.tensor([0.0, 1.0, -1.0, math.e - 1], dtype=torch.float64)
    assert torch.allclose(h_literal(r), torch.tensor([0.0, 2 * math.log(2), -math.log(2), 2.0], dtype=torch.float64))
    assert h_symmetric(torch.tensor(1.0)).item() == pytest.approx(math.log(2))
    assert h_symmetric(torch.tensor(-1.0)).item() == pytest.approx(-math.log(2))


def test_behavior_policy_is_the_softmax_of_the_advantages_over_each_rows_tau():
    adv = torch.tensor([[[0.5, -1.0, 2.0, 0.0]], [[1.0, 1.0, -3.0, 0.25]]])  # (B, 1 head, A)
    taus = (0.5, math.inf)
    behavior = torch.tensor([[x_of_tau(t)] for t in taus])
    log_mu = DiCELoss(burn_in=0, gamma=0.9, rho_bar=1.0, c_bar=1.0, scales=(1.0, 1.0, 1.0)).behavior_policy(
        adv, torch.zeros(2, 1), behavior)
    assert torch.allclose(log_mu[0], torch.log_softmax(adv[0, 0] / 0.5, -1), atol=1e-5)
    assert torch.allclose(log_mu[1], torch.full((ACTIONS,), -math.log(ACTIONS)), atol=1e-6)  # tau = inf: uniform
