"""LBC's learner against a slow reference (tests/loss_reference.py): every member trained off-policy on the
shared batch with its own gamma_i and RS_i, its own target policy softmax(A_i) and its ratio to the stored
mixture mu; the total is sum_i xi L_V + alpha L_Q + beta L_pi (LBC Section 5.1.2, Algorithm 2, Table 3)."""

import pytest
import torch
from loss_reference import (
    FixedNet,
    actor_critic,
    assert_matches_reference,
    batch,
    diagnostics,
    dueling,
    h_log,
    leaves,
    rs1,
    rs3,
    softmax,
    taken,
)
from zoo_lbc.loss import LBCLoss

MEMBERS = [(0.9, "rs1", rs1), (0.5, "rs2", h_log), (0.99, "rs3", rs3)]  # gammas far apart, so each one counts
SCALES = (1.0, 5.0, 5.0)
# (x_i, omega_i) per member: the stored psi only produced mu; the learners must not read it
PSI = [[0.7, 0.2, 2.0, 0.5, 0.1, 0.3], [1.5, 0.0, 0.3, 1.0, 3.0, 0.6]]


def reference(adv, value, data, members=MEMBERS):
    """The total, and the logged parts: each loss summed over the members, rho averaged over them, mu's entropy."""
    total, parts = 0.0, {"loss_v": 0.0, "loss_q": 0.0, "loss_pi": 0.0, "rho": 0.0}
    for i, (gamma, _, shape) in enumerate(members):
        a, v = adv[..., i, :], value[..., i]
        pi = softmax(a)
        q_taken = taken(dueling(a, v, pi), data)
        loss_v, loss_q, loss_pi = actor_critic(v, q_taken, torch.log(taken(pi, data)), taken(pi, data).detach(),
                                               data, shape(data["reward"][:-1]), gamma, expected_q=v)
        total = total + SCALES[0] * loss_v + SCALES[1] * loss_q + SCALES[2] * loss_pi
        for name, loss in zip(("loss_v", "loss_q", "loss_pi"), (loss_v, loss_q, loss_pi)):
            parts[name] += float(loss.detach())
        parts["rho"] += diagnostics(taken(pi, data), data)["rho"] / len(members)
    return total, {**parts, "mu_entropy": diagnostics(taken(pi, data), data)["mu_entropy"]}


def lbc_loss(members=MEMBERS):
    return LBCLoss(burn_in=0, gammas=[m[0] for m in members], shapings=[m[1] for m in members],
                   members=len(members), rho_bar=1.05, c_bar=1.05, scales=SCALES)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loss_and_gradients_match_the_reference(seed):
    adv, value = leaves(heads=3, seed=seed)
    data = batch(PSI, seed=seed)
    got = lbc_loss()(FixedNet(adv, value), data)
    assert_matches_reference(got, reference(adv, value, data), (adv, value), rel=1e-9)


def test_the_batch_is_off_policy_and_clipped():
    """The fixture exercises what the reference checks: ratios on both sides of 1.05, terminals inside."""
    adv, _ = leaves(heads=3)
    data = batch(PSI)
    ratio = taken(softmax(adv[..., 0, :]), data) / taken(data["mu"], data)
    assert (ratio > 1.05).any() and (ratio < 0.9).any()
    assert data["done"][:-1].sum() == 2



@pytest.mark.parametrize("networks", [3, 1])
def test_behavior_policy_is_the_members_mixture(networks):
    """mu_psi = sum_i omega_i softmax(tau_i A_i) (LBC Section 4.2), tau_i = e^{x_i} - 1 and omega normalized;
    reduce_H's one network supplies A_1 to every component."""
    loss = LBCLoss(burn_in=0, gammas=[0.9] * networks, shapings=["rs1"] * networks, members=3, rho_bar=1.05,
                   c_bar=1.05, scales=SCALES)
    adv = torch.randn(2, networks, 4, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    psi = torch.tensor(PSI, dtype=torch.float64)
    log_mu = loss.behavior_policy(adv, None, psi)
    for b in range(2):
        omega = psi[b, 1::2] / psi[b, 1::2].sum()
        mixture = sum(omega[i] * softmax(torch.expm1(psi[b, 2 * i]) * adv[b, i % networks]) for i in range(3))
        assert torch.allclose(log_mu[b].exp(), mixture, rtol=1e-12, atol=0.0)
