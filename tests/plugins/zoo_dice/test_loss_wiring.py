"""DiCE's whole loss against a slow reference (tests/loss_reference.py): pi_tau at the stored tau, the
V-trace and Retrace traces cut by the clipped ratios pi_tau/mu, the paper's reward shape (literal or
symmetric), Retrace printed (sampled next Q) or textbook (E_pi Q), and the tau-scaled policy gradient
(DiCE Section 3.2 Eq. 8, Eq. 2-6, Table 5)."""

import pytest
import torch
from loss_reference import (
    FixedNet,
    actor_critic,
    assert_matches_reference,
    batch,
    diagnostics,
    h_log,
    leaves,
    softmax,
    taken,
)
from zoo_dice.behavior import x_of_tau
from zoo_dice.loss import DiCELoss

SCALES = (1.0, 10.0, 10.0)
GAMMA = 0.9
TAUS = (0.5, 3.0)


def symmetric(r):
    return torch.sign(r) * torch.log(r.abs() + 1.0)


def reference(adv, value, data, shape, retrace, bars, centering="none"):
    """xi L_V + alpha L_Q + beta L_pi with Q = V + A and the policy term A(a) - sum_b sg(pi_tau(b)) A(b), and the
    logged parts: the three losses, the entropy of pi_tau, the diagnostics of the ratios and the mean 1/tau."""
    a, v = adv[..., 0, :], value[..., 0]
    beta = torch.expm1(data["behavior"][:, 0].float()).to(a.dtype).unsqueeze(-1)  # 1/tau as DiCE stores it
    pi = softmax(beta * a)
    centre = {"none": 0.0, "mean": a.mean(-1, keepdim=True), "policy": (pi.detach() * a).sum(-1, keepdim=True)}[centering]
    q = a - centre + v.unsqueeze(-1)
    score = taken(a, data) - (pi.detach() * a).sum(-1)  # gradient of tau * log pi_tau(a)
    expected = None if retrace == "literal" else (pi.detach() * q).sum(-1)
    loss_v, loss_q, loss_pi = actor_critic(v, taken(q, data), score, taken(pi, data).detach(), data,
                                           shape(data["reward"][:-1]), GAMMA, expected_q=expected,
                                           rho_bar=bars[0], c_bar=bars[1])
    entropy = -(pi * torch.log(pi))[:-1].sum(-1)[data["train"][:-1]].mean()
    parts = {"loss_v": float(loss_v.detach()), "loss_q": float(loss_q.detach()), "loss_pi": float(loss_pi.detach()),
             "entropy": float(entropy.detach()), "inverse_tau": float(beta.mean())}
    rho = diagnostics(taken(pi, data), data, bars[0])
    del rho["mu_entropy"]  # DiCE does not log it
    return SCALES[0] * loss_v + SCALES[1] * loss_q + SCALES[2] * loss_pi, {**parts, **rho}


@pytest.mark.parametrize("reward_shape, shape", [("literal", h_log), ("symmetric", symmetric)])
@pytest.mark.parametrize("retrace", ["standard", "literal"])
@pytest.mark.parametrize("seed, bars", [(0, (1.05, 1.05)), (1, (1.3, 0.8))])
def test_loss_and_gradients_match_the_reference(reward_shape, shape, retrace, seed, bars):
    loss = DiCELoss(burn_in=0, gamma=GAMMA, rho_bar=bars[0], c_bar=bars[1], scales=SCALES,
                    reward_shape=reward_shape, retrace_variant=retrace)
    adv, value = leaves(heads=1, seed=seed)
    data = batch([[x_of_tau(tau)] for tau in TAUS], seed=seed)
    got = loss(FixedNet(adv, value), data)
    assert_matches_reference(got, reference(adv, value, data, shape, retrace, bars), (adv, value), rel=1e-6)


def test_the_batch_is_off_policy_and_clipped():
    adv, _ = leaves(heads=1)
    data = batch([[x_of_tau(tau)] for tau in TAUS])
    beta = torch.tensor([1 / tau for tau in TAUS], dtype=adv.dtype).unsqueeze(-1)
    ratio = taken(softmax(beta * adv[..., 0, :]), data) / taken(data["mu"], data)
    assert (ratio > 1.3).any() and (ratio < 0.8).any()


@pytest.mark.parametrize("centering", ["mean", "policy"])
def test_advantage_centering_options_match_the_reference(centering):
    """The advantage enters Q = V + A - c: c = mean_b A(b) or c = sum_b sg(pi_tau(b)) A(b) (the dueling form)."""
    loss = DiCELoss(burn_in=0, gamma=GAMMA, rho_bar=1.3, c_bar=0.8, scales=SCALES, advantage_centering=centering)
    adv, value = leaves(heads=1, seed=2)
    data = batch([[x_of_tau(tau)] for tau in TAUS], seed=2)
    got = loss(FixedNet(adv, value), data)
    expected = reference(adv, value, data, h_log, "standard", (1.3, 0.8), centering)
    assert_matches_reference(got, expected, (adv, value), rel=1e-6)
