"""The loss kit's handling of rows, through the three agents' whole losses: burn-in rows, padding rows
as the replay stores them (mu = 0), and a batch with nothing to train (docs/algorithms/substrate.md)."""

import pytest
import torch
from loss_reference import FixedNet, batch, leaves
from zoo_dice.behavior import x_of_tau
from zoo_dice.loss import DiCELoss
from zoo_gdi.loss import GDILoss
from zoo_lbc.loss import LBCLoss

SCALES = (1.0, 10.0, 10.0)


def make_loss(agent: str, burn_in: int = 0):
    """(loss, heads, stored behavior per sequence) of one agent, with rho_bar != c_bar so that each clip shows."""
    bars = {"rho_bar": 1.3, "c_bar": 0.8, "scales": SCALES, "burn_in": burn_in}
    if agent == "gdi":
        return GDILoss(ablation="none", gamma=0.9, shapings=("log", "pow"), **bars), 2, [[2.0, 7.0, 0.3], [0.5, 3.0, 0.8]]
    if agent == "gdi_greedy":  # epsilon-greedy selection, sequence 1 purely greedy: pi(a) = 0 off the argmax
        return GDILoss(ablation="eps_greedy_selection", gamma=0.9, shapings=("log",), **bars), 1, [[0.3], [0.0]]
    if agent == "dice":
        return DiCELoss(gamma=0.9, **bars), 1, [[x_of_tau(0.5)], [x_of_tau(3.0)]]
    psi = [[0.7, 0.2, 2.0, 0.5], [1.5, 0.0, 0.3, 1.0]]
    return LBCLoss(gammas=[0.9, 0.5], shapings=["rs1", "rs3"], members=2, **bars), 2, psi


def loss_and_gradients(loss, adv, value, data):
    total, parts = loss(FixedNet(adv, value), data)
    return total, parts, torch.autograd.grad(total, (adv, value))


AGENTS = ["gdi", "dice", "lbc"]


@pytest.mark.parametrize("agent", AGENTS)
def test_burn_in_rows_are_skipped(agent):
    """Rows before burn_in only warm the recurrent state: the same batch behind two burn-in rows of other
    actions, rewards, terminals and mu gives the same loss, parts and gradients."""
    plain, heads, behavior = make_loss(agent)
    data = batch(behavior)
    adv, value = leaves(heads)
    rng = torch.Generator().manual_seed(7)
    burn = {"action": torch.randint(3, (2, 2), generator=rng), "reward": 5 * torch.randn(2, 2, generator=rng, dtype=data["reward"].dtype),
            "done": torch.ones(2, 2, dtype=data["done"].dtype), "mu": torch.full((2, 2, 3), 1 / 3, dtype=data["mu"].dtype),
            "train": torch.zeros(2, 2, dtype=torch.bool), "obs": torch.ones(2, 2, 1), "valid": torch.ones(2, 2, dtype=torch.bool)}
    longer = dict(data, **{name: torch.cat([rows, data[name]]) for name, rows in burn.items()})
    total, parts, grads = loss_and_gradients(plain, adv, value, data)
    burned, burned_parts, burned_grads = loss_and_gradients(make_loss(agent, burn_in=2)[0], adv, value, longer)
    assert burned.item() == pytest.approx(total.item(), rel=1e-12)
    assert burned_parts == pytest.approx(parts, rel=1e-12)
    for got, want in zip(burned_grads, grads):
        assert torch.allclose(got, want, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("agent", [*AGENTS, "gdi_greedy"])
def test_padding_rows_with_zero_mu_do_not_reach_the_loss(agent):
    """The replay leaves mu = 0 on the rows after a sequence's episode ended: the loss stays finite and
    equal to that of any other padding content, also where the learner's policy gives the padded
    action probability 0 too (a greedy pi; the padded action here is the worst one)."""
    loss, heads, behavior = make_loss(agent)
    data = batch(behavior)
    adv, value = leaves(heads)
    padding = ~data["train"]
    padding[-1] = False  # the bootstrap row of a full sequence is real
    worst = adv[..., 0, :].argmin(-1)
    zeroed = dict(data, mu=data["mu"].masked_fill(padding.unsqueeze(-1), 0.0), action=torch.where(padding, worst, data["action"]))
    total, parts, grads = loss_and_gradients(loss, adv, value, data)
    padded, padded_parts, padded_grads = loss_and_gradients(loss, adv, value, zeroed)
    assert torch.isfinite(padded) and all(torch.isfinite(g).all() for g in padded_grads)
    assert padded.item() == pytest.approx(total.item(), rel=1e-12)
    assert padded_parts == pytest.approx(parts, rel=1e-12)
    for got, want in zip(padded_grads, grads):
        assert torch.allclose(got, want, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_batch_without_trained_rows_has_zero_loss(agent):
    loss, heads, behavior = make_loss(agent)
    data = batch(behavior)
    data["train"][:] = False
    adv, value = leaves(heads)
    total, parts, grads = loss_and_gradients(loss, adv, value, data)
    assert total.item() == 0.0 and all(g.abs().sum() == 0 for g in grads)
    assert all(number == 0.0 for name, number in parts.items() if name != "inverse_tau")


@pytest.mark.parametrize("agent", AGENTS)
def test_padding_after_a_truncated_episode_does_not_reach_the_loss(agent):
    """A sequence whose episode stopped without a terminal (a time limit) bootstraps from the estimates
    (rho = c = 0 on padding): the padded rows' rewards change nothing."""
    loss, heads, behavior = make_loss(agent)
    data = batch(behavior)
    data["done"][2, 1] = 0.0  # sequence 1 ends at row 2 without a terminal; rows 3 on are padding
    adv, value = leaves(heads)
    other = dict(data, reward=data["reward"].clone())
    other["reward"][3:, 1] = torch.tensor([40.0, -25.0, 9.0], dtype=other["reward"].dtype)
    total, parts, grads = loss_and_gradients(loss, adv, value, data)
    changed, changed_parts, changed_grads = loss_and_gradients(loss, adv, value, other)
    assert changed.item() == pytest.approx(total.item(), rel=1e-12)
    assert changed_parts == pytest.approx(parts, rel=1e-12)
    for got, want in zip(changed_grads, grads):
        assert torch.allclose(got, want, rtol=1e-12, atol=0.0)
