"""GDI's whole loss against a slow reference (tests/loss_reference.py): the learning policy pi_lambda at the
stored lambda, the V-trace and Retrace traces cut by the clipped ratios pi/mu, each head's reward shaping
(h_log; H3: h_log and h_pow) and H3's per-head policy gradient with the other head detached (GDI App. B,
App. F Eq. 9-12, Algorithms 2 and 3, Table 6). Also: H3's two heads are two networks."""

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
    h_pow,
    leaves,
    softmax,
    taken,
)
from zoo_gdi.builder import GDIBuilder
from zoo_gdi.params import GDIParams

SCALES = (1.0, 10.0, 10.0)
GAMMA = 0.9
LAMBDAS = [[2.0, 7.0, 0.3], [0.5, 3.0, 0.8]]  # (1/tau1, 1/tau2, eps) per sequence


def mixture(a1, a2, behavior):
    beta1, beta2, eps = (behavior[:, k].unsqueeze(-1) for k in range(3))
    return eps * softmax(beta1 * a1) + (1 - eps) * softmax(beta2 * a2)


def reference(adv, value, data, retrace="paper", bars=(1.05, 1.05)):
    """sum over heads of xi L_V + alpha L_Q + beta L_pi (one head for I3, two for H3), and the logged parts:
    each loss summed over the heads, and the diagnostics of the ratios and of mu."""
    heads = adv.shape[-2]
    pi = mixture(adv[..., 0, :], adv[..., -1, :], data["behavior"])
    shapings = [h_log] if heads == 1 else [h_log, h_pow]
    total, parts = 0.0, {"loss_v": 0.0, "loss_q": 0.0, "loss_pi": 0.0}
    for i in range(heads):
        v, q = value[..., i], dueling(adv[..., i, :], value[..., i], pi)
        if heads == 1:
            own = pi
        else:  # the other head's advantages as constants
            own = mixture(adv[..., 0, :] if i == 0 else adv[..., 0, :].detach(),
                          adv[..., 1, :] if i == 1 else adv[..., 1, :].detach(), data["behavior"])
        expected = None if retrace == "paper" else (pi.detach() * q).sum(-1)
        loss_v, loss_q, loss_pi = actor_critic(v, taken(q, data), torch.log(taken(own, data)),
                                               taken(pi, data).detach(), data, shapings[i](data["reward"][:-1]),
                                               GAMMA, expected_q=expected, rho_bar=bars[0], c_bar=bars[1])
        total = total + SCALES[0] * loss_v + SCALES[1] * loss_q + SCALES[2] * loss_pi
        for name, loss in zip(parts, (loss_v, loss_q, loss_pi)):
            parts[name] += float(loss.detach())
    return total, {**parts, **diagnostics(taken(pi, data), data, bars[0])}


@pytest.mark.parametrize("heads", [1, 2])
@pytest.mark.parametrize("retrace", ["paper", "expected"])
@pytest.mark.parametrize("seed, bars", [(0, (1.05, 1.05)), (1, (1.3, 0.8))])
def test_loss_and_gradients_match_the_reference(heads, retrace, seed, bars):
    params = GDIParams(burn_in=0, gamma=GAMMA, loss_scales=SCALES, retrace=retrace, rho_bar=bars[0], c_bar=bars[1])
    builder = GDIBuilder(params, heads)
    adv, value = leaves(heads, seed=seed)
    data = batch(LAMBDAS, seed=seed)
    got = builder.loss(FixedNet(adv, value), data)
    assert_matches_reference(got, reference(adv, value, data, retrace, bars), (adv, value), rel=1e-9)


def test_the_batch_is_off_policy_and_clipped():
    adv, _ = leaves(heads=1)
    data = batch(LAMBDAS)
    ratio = taken(mixture(adv[..., 0, :], adv[..., 0, :], data["behavior"]), data) / taken(data["mu"], data)
    assert (ratio > 1.05).any() and (ratio < 0.9).any()


def parameters_reached(net, head: int, obs: torch.Tensor) -> set[str]:
    """Names of the parameters that head `head`'s advantages and value depend on."""
    net.zero_grad()
    adv, value = net.unroll(obs, torch.zeros(obs.shape[1], net.state_size), torch.ones(obs.shape[:2], dtype=torch.bool), 0)
    (adv[..., head, :].sum() + value[..., head].sum()).backward()
    return {name for name, p in net.named_parameters() if p.grad is not None and p.grad.abs().sum() > 0}


@pytest.mark.parametrize("shared_torso", [False, True])
def test_h3_heads_are_two_networks_unless_the_torso_is_shared(shared_torso):
    """GDI-H3 learns two parameter sets theta_1, theta_2 (Eq. 11, Algorithm 3): nothing is shared between
    its heads; the shared_torso option shares the torso and LSTM."""
    params = GDIParams(shared_torso=shared_torso, network={"hidden": [8], "lstm": 4})
    net = GDIBuilder(params, 2).make_network((3,), 4)
    obs = torch.randn(4, 2, 3)
    first, second = parameters_reached(net, 0, obs), parameters_reached(net, 1, obs)
    assert first and second
    assert (first & second == set()) != shared_torso
