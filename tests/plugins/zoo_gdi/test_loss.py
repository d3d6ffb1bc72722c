"""GDI's learner really uses the stored behavior: ratios from stored mu and lambda, clipped weights,
the dueling identity, and the loss scales (docs/algorithms/gdi.md)."""

import math

import numpy as np
import torch
from zoo_gdi.behavior import SOFTMAX, behavior_space, mixture_coefficients
from zoo_gdi.builder import GDIBuilder
from zoo_gdi.loss import dueling_q
from zoo_gdi.params import GDIParams
from zoo_learner.learner import time_major

ACTIONS, OBS = 4, 3


def setup(heads=1, **overrides):
    params = GDIParams(burn_in=2, length=4, network={"hidden": [16], "lstm": 8}, **overrides)
    builder = GDIBuilder(params, heads)
    torch.manual_seed(0)
    return builder, builder.make_network((OBS,), ACTIONS)


def make_batch(net, builder, behaviors, seed=0):
    """A batch whose mu is the behavior policy of `net` with the given lambdas (one per sequence)."""
    rng = np.random.default_rng(seed)
    size, rows = len(behaviors), builder.params.burn_in + builder.params.length + 1
    obs = rng.normal(size=(size, rows, OBS)).astype(np.float32)
    behavior = np.array(behaviors, np.float32)
    state = torch.zeros(size, net.state_size)
    mus = []
    for t in range(rows):
        with torch.no_grad():
            (adv, value), state = net.step(torch.as_tensor(obs[:, t]), state)
            mus.append(builder.behavior_policy()(adv, value, torch.as_tensor(behavior)).exp().numpy())
    mu = np.stack(mus, 1)
    action = np.array([[rng.choice(ACTIONS, p=p / p.sum()) for p in row] for row in mu])
    train = np.zeros((size, rows), bool)
    train[:, builder.params.burn_in:-1] = True
    return {"obs": obs, "action": action, "reward": rng.normal(size=(size, rows)).astype(np.float32),
            "done": np.zeros((size, rows), np.float32), "mu": mu, "valid": np.ones((size, rows), bool),
            "train": train, "state": np.zeros((size, net.state_size), np.float32), "behavior": behavior,
            "arm": np.zeros(size, np.int64)}


def corrections(builder, net, batch):
    b = time_major(batch)
    adv, _ = net.unroll(b["obs"], b["state"], b["valid"], builder.params.burn_in)
    return builder.loss.corrections(adv, b)


def test_on_policy_ratio_is_one_and_lambda_is_per_sequence():
    builder, net = setup()
    batch = make_batch(net, builder, [[0.0, 0.0, 1.0], [40.0, 45.0, 0.1]])
    log_pi, ratio, rho, c = corrections(builder, net, batch)
    assert torch.allclose(ratio, torch.ones_like(ratio), atol=1e-4)  # same weights, same lambda
    assert torch.allclose(log_pi[:, 0].exp(), torch.full((5, ACTIONS), 0.25))  # sequence 0 is uniform
    assert (log_pi[:, 1].exp().max(-1).values > 0.5).all()  # sequence 1 is near greedy


def test_stored_mu_drives_the_weights_and_the_loss():
    builder, net = setup()
    batch = make_batch(net, builder, [[3.0, 20.0, 0.3]] * 3)
    loss = builder.loss(net, time_major(batch))[0].item()
    other = dict(batch, mu=batch["mu"] ** 2 / (batch["mu"] ** 2).sum(-1, keepdims=True))
    _, ratio, rho, _ = corrections(builder, net, other)
    assert not torch.allclose(ratio, torch.ones_like(ratio))
    assert rho.max() <= 1.05 + 1e-6 and (ratio > 1.05).any()
    assert builder.loss(net, time_major(other))[0].item() != loss


def test_lagging_actor_weights_make_real_corrections():
    """A batch acted by older weights gives ratios != 1 and other targets than pretending mu = pi."""
    builder, old = setup()
    batch = make_batch(old, builder, [[2.0, 8.0, 0.5]] * 4)
    torch.manual_seed(1)
    new = builder.make_network((OBS,), ACTIONS)
    _, ratio, rho, c = corrections(builder, new, batch)
    assert (ratio - 1).abs().max() > 0.01
    pretend = make_batch(new, builder, [[2.0, 8.0, 0.5]] * 4)
    pretend = dict(batch, mu=pretend["mu"])
    assert builder.loss(new, time_major(batch))[0].item() != builder.loss(new, time_major(pretend))[0].item()


def test_stored_lambda_not_the_current_one_is_used():
    builder, net = setup()
    batch = make_batch(net, builder, [[2.0, 8.0, 0.5]] * 2)
    swapped = dict(batch, behavior=np.array([[30.0, 1.0, 0.9]] * 2, np.float32))
    assert not torch.allclose(corrections(builder, net, swapped)[1], torch.ones(5, 2), atol=1e-3)


def test_dueling_identity():
    adv, value = torch.randn(6, ACTIONS), torch.randn(6)
    pi = torch.softmax(torch.randn(6, ACTIONS), -1)
    assert torch.allclose((pi * dueling_q(adv, value, pi)).sum(-1), value, atol=1e-6)


def test_total_loss_is_1_v_plus_10_q_plus_10_pi_without_entropy():
    for heads in (1, 2):
        parts = []
        for scales in [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 10, 10)]:
            builder, net = setup(heads=heads, loss_scales=scales)
            batch = make_batch(net, builder, [[2.0, 8.0, 0.5], [1.0, 0.0, 1.0]])
            parts.append(builder.loss(net, time_major(batch))[0].item())
        v, q, p, total = parts
        assert math.isclose(total, v + 10 * q + 10 * p, rel_tol=1e-5)


def test_h3_policy_terms_reach_only_their_own_head():
    builder, _ = setup(heads=2)
    behavior = torch.tensor([[2.0, 8.0, 0.5]])
    for own in (0, 1):
        adv = torch.randn(1, 2, ACTIONS, requires_grad=True)
        builder.loss.policy(adv, behavior, detach_head=1 - own)[0, 1].backward()
        assert adv.grad[0, own].abs().sum() > 0 and adv.grad[0, 1 - own].abs().sum() == 0


def test_ablation_spaces_and_mixtures():
    assert behavior_space("none").default == SOFTMAX
    adv = torch.randn(3, 1, ACTIONS)
    fixed = GDIBuilder(GDIParams(ablation="fixed_selection"), 1).behavior_policy()
    assert torch.allclose(fixed(adv, None, torch.tensor([SOFTMAX] * 3)).exp(), torch.softmax(adv[:, 0], -1), atol=1e-6)
    beta1, beta2, eps = mixture_coefficients("boltzmann_selection", torch.tensor([[7.0]]))
    assert (beta1.item(), beta2.item(), eps.item()) == (7.0, 7.0, 1.0)
    beta1, beta2, eps = mixture_coefficients("eps_greedy_selection", torch.tensor([[0.5]]))
    assert (beta1.item(), beta2.item(), eps.item()) == (0.0, math.inf, 0.5)
    assert behavior_space("boltzmann_selection").names == ("beta",)
    assert behavior_space("eps_greedy_selection").names == ("eps",)
