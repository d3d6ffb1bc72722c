"""Action masks on the substrate's policies and losses: illegal actions get probability 0 and the rest are
renormalized per component (softmax over the legal actions, uniform over them, argmax among them);
the agents' losses then ignore the advantages of illegal actions altogether, and an all-legal mask
changes nothing, bit for bit."""

import math

import pytest
import torch
from loss_reference import ACTIONS, ROWS, SEQS, FixedNet, batch, leaves
from zoo_dice.behavior import x_of_tau
from zoo_dice.loss import DiCELoss, centered, tau_scaled_log_prob
from zoo_gdi.loss import GDILoss
from zoo_lbc.behavior import hybrid_log_probs
from zoo_lbc.loss import LBCLoss
from zoo_learner.policy import boltzmann_log_probs, legal_or_all, masked_log_softmax, mixture_log_probs

A = torch.tensor([[0.3, -1.2, 2.0, 0.5], [1.0, 1.0, -3.0, 0.0]])
LEGAL = torch.tensor([[True, True, False, True], [False, True, True, False]])


def restricted_softmax(logits, legal, beta):
    """softmax(beta * logits) over the legal entries of one row, 0 elsewhere (the definition, by hand)."""
    out = torch.zeros_like(logits)
    out[legal] = torch.softmax(beta * logits[legal], -1)
    return out


@pytest.mark.parametrize("beta", [0.0, 0.5, 3.0])
def test_masked_softmax_is_the_softmax_over_the_legal_actions(beta):
    probs = boltzmann_log_probs(A, torch.full((2,), beta), LEGAL).exp()
    for row in range(2):
        assert torch.allclose(probs[row], restricted_softmax(A[row], LEGAL[row], beta), atol=1e-6)
    assert torch.equal(probs[~LEGAL], torch.zeros(int((~LEGAL).sum())))


def test_masked_greedy_is_the_argmax_among_the_legal_actions():
    # row 0's overall argmax (action 2) is illegal: the greedy policy takes action 3, the best legal one
    greedy = boltzmann_log_probs(A, torch.full((2,), math.inf), LEGAL).exp()
    assert torch.equal(greedy, torch.tensor([[0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]))


def test_masked_eps_greedy_explores_uniformly_among_the_legal_actions():
    probs = mixture_log_probs(A, A, torch.zeros(2), torch.full((2,), math.inf), torch.full((2,), 0.3), LEGAL).exp()
    expected = torch.tensor([[0.1, 0.1, 0.0, 0.8], [0.0, 0.85, 0.15, 0.0]])
    assert torch.allclose(probs, expected)


def test_masked_mixture_masks_each_component():
    a2 = torch.randn(2, 4, generator=torch.Generator().manual_seed(0))
    probs = mixture_log_probs(A, a2, torch.full((2,), 2.0), torch.full((2,), 0.7), torch.full((2,), 0.4), LEGAL).exp()
    for row in range(2):
        expected = (0.4 * restricted_softmax(A[row], LEGAL[row], 2.0)
                    + 0.6 * restricted_softmax(a2[row], LEGAL[row], 0.7))
        assert torch.allclose(probs[row], expected, atol=1e-6)


def test_a_row_without_legal_actions_counts_every_action_legal():
    none = torch.zeros(2, 4, dtype=torch.bool)
    assert torch.equal(legal_or_all(none), torch.ones(2, 4, dtype=torch.bool))
    assert torch.equal(legal_or_all(LEGAL), LEGAL)
    beta = torch.full((2,), 1.5)
    assert torch.equal(boltzmann_log_probs(A, beta, none), boltzmann_log_probs(A, beta))
    assert torch.equal(masked_log_softmax(A, none), torch.log_softmax(A, -1))


def test_masked_log_softmax_and_lbc_mixture_are_zero_on_illegal_actions():
    probs = masked_log_softmax(A, LEGAL).exp()
    for row in range(2):
        assert torch.allclose(probs[row], restricted_softmax(A[row], LEGAL[row], 1.0), atol=1e-6)
    adv = torch.stack([A, A.flip(-1)], dim=-2)  # (B, N = 2, A)
    psi = torch.tensor([[math.log1p(2.0), 0.3, math.log1p(0.5), 0.7], [math.log1p(1.0), 1.0, 0.0, 0.0]])
    mixed = hybrid_log_probs(adv, psi, LEGAL).exp()
    assert torch.equal(mixed[~LEGAL], torch.zeros(int((~LEGAL).sum())))
    assert torch.allclose(mixed.sum(-1), torch.ones(2), atol=1e-6)
    single = hybrid_log_probs(adv, psi[:, :1], LEGAL).exp()
    assert torch.allclose(single[0], restricted_softmax(A[0], LEGAL[0], 2.0), atol=1e-6)


@pytest.mark.parametrize("beta", [0.0, 2.0, math.inf])
def test_an_all_legal_mask_changes_no_probability(beta):
    everything = torch.ones(2, 4, dtype=torch.bool)
    betas = torch.full((2,), beta)
    assert torch.equal(boltzmann_log_probs(A, betas, everything), boltzmann_log_probs(A, betas))
    assert torch.equal(mixture_log_probs(A, A, betas, torch.full((2,), 1.0), torch.full((2,), 0.5), everything),
                       mixture_log_probs(A, A, betas, torch.full((2,), 1.0), torch.full((2,), 0.5)))
    assert torch.equal(masked_log_softmax(A, everything), torch.log_softmax(A, -1))


def test_dice_terms_over_the_legal_actions():
    beta = torch.full((2,), 2.0)
    action = torch.tensor([[0], [2]])
    pi = torch.stack([restricted_softmax(A[r], LEGAL[r], 2.0) for r in range(2)])
    expected = A.gather(-1, action).squeeze(-1) - (pi * A).sum(-1)
    assert torch.allclose(tau_scaled_log_prob(A, beta, action, LEGAL), expected, atol=1e-6)
    mean = torch.stack([A[r][LEGAL[r]].mean() for r in range(2)]).unsqueeze(-1)
    assert torch.allclose(centered(A, pi, "mean", LEGAL), A - mean)
    assert torch.equal(centered(A, pi, "mean", torch.ones_like(LEGAL)), centered(A, pi, "mean"))
    assert torch.equal(centered(A, pi, "policy", LEGAL), A - (pi * A).sum(-1, keepdim=True))


# The agents' losses: a masked batch stores its legal actions (ROWS, SEQS, ACTIONS) beside mu, which
# the actor computed over them; every taken action is legal.

def masked_batch(behavior, seed=0):
    data = batch(behavior, seed)
    g = torch.Generator().manual_seed(7 + seed)
    legal = torch.rand(ROWS, SEQS, ACTIONS, generator=g) < 0.6
    legal.scatter_(-1, data["action"].unsqueeze(-1), True)
    legal[-1, 1] = False  # a row with no legal action (padding)
    mu = data["mu"] * legal_or_all(legal)
    data.update(legal=legal, mu=mu / mu.sum(-1, keepdim=True))
    return data


GDI_ARGS = dict(burn_in=0, gamma=0.9, rho_bar=1.05, c_bar=1.05, scales=(1.0, 10.0, 10.0))
LBC_MEMBERS = dict(gammas=[0.9, 0.95, 0.85], shapings=["rs1", "rs2", "rs3"])
PSI = [[0.7, 0.2, 2.0, 0.5, 0.1, 0.3], [1.5, 0.0, 0.3, 1.0, 3.0, 0.6]]
LOSSES = {  # name: (loss, heads, behavior of the two sequences)
    "gdi-i3": (GDILoss(ablation="none", shapings=("log",), **GDI_ARGS), 1, [[2.0, 7.0, 0.3], [0.0, 40.0, 0.8]]),
    "gdi-i3-expected": (GDILoss(ablation="none", shapings=("log",), retrace_form="expected", **GDI_ARGS), 1,
                        [[2.0, 7.0, 0.3], [0.0, 40.0, 0.8]]),
    "gdi-h3": (GDILoss(ablation="none", shapings=("log", "pow"), **GDI_ARGS), 2, [[2.0, 7.0, 0.3], [0.5, 40.0, 0.8]]),
    "gdi-eps-greedy": (GDILoss(ablation="eps_greedy_selection", shapings=("log",), **GDI_ARGS), 1, [[0.2], [0.6]]),
    "dice": (DiCELoss(**GDI_ARGS), 1, [[x_of_tau(0.5)], [x_of_tau(3.0)]]),
    "dice-mean": (DiCELoss(advantage_centering="mean", **GDI_ARGS), 1, [[x_of_tau(0.5)], [x_of_tau(3.0)]]),
    "dice-policy-literal": (DiCELoss(advantage_centering="policy", retrace_variant="literal", entropy=0.1, **GDI_ARGS),
                            1, [[x_of_tau(0.5)], [x_of_tau(3.0)]]),
    "lbc": (LBCLoss(burn_in=0, members=3, rho_bar=1.05, c_bar=1.05, scales=(1.0, 10.0, 10.0), **LBC_MEMBERS), 3, PSI),
}


@pytest.mark.parametrize("name", LOSSES)
def test_masked_losses_ignore_the_advantages_of_illegal_actions(name):
    """Nothing the learner computes (policy, ratios, Q of the taken action, E_pi Q, the traces) reads an
    illegal action's advantage: changing those leaves the loss as it is and their gradient is 0."""
    loss, heads, behavior = LOSSES[name]
    data = masked_batch(behavior)
    adv, value = leaves(heads)
    total, _ = loss(FixedNet(adv, value), data)
    (grad,) = torch.autograd.grad(total, adv)
    illegal = ~legal_or_all(data["legal"]).unsqueeze(-2).expand_as(adv)
    assert illegal.any() and torch.isfinite(total)
    assert torch.equal(grad[illegal], torch.zeros(int(illegal.sum()), dtype=grad.dtype))
    moved = adv.detach() + 5.0 * illegal
    assert torch.allclose(loss(FixedNet(moved, value.detach()), data)[0], total.detach(), rtol=1e-12, atol=1e-12)
    assert grad[~illegal].abs().sum() > 0


@pytest.mark.parametrize("name", LOSSES)
def test_an_all_legal_mask_leaves_every_loss_as_it_is(name):
    loss, heads, behavior = LOSSES[name]
    data = batch(behavior)
    adv, value = leaves(heads)
    plain, plain_parts = loss(FixedNet(adv, value), data)
    masked, masked_parts = loss(FixedNet(adv, value), {**data, "legal": torch.ones(ROWS, SEQS, ACTIONS, dtype=torch.bool)})
    assert torch.equal(masked, plain) and masked_parts == plain_parts
    assert all(torch.equal(a, b) for a, b in zip(torch.autograd.grad(masked, (adv, value)),
                                                 torch.autograd.grad(plain, (adv, value))))


def test_the_gdi_learning_policy_is_zero_on_illegal_actions_and_renormalized():
    loss, heads, behavior = LOSSES["gdi-i3"]
    data = masked_batch(behavior)
    adv, _ = leaves(heads)
    log_pi, *_ = loss.corrections(adv.detach(), data)
    legal = legal_or_all(data["legal"])
    assert torch.equal(log_pi.exp()[~legal], torch.zeros(int((~legal).sum()), dtype=log_pi.dtype))
    assert torch.allclose(log_pi.exp().sum(-1), torch.ones(ROWS, SEQS, dtype=log_pi.dtype))
