"""Why LBC plays MinAtar's Freeway uniformly at the board's budget (docs/substrate.md, "LBC on MinAtar, the
cause"): before any reward, each member's Q loss, with Q centred under softmax(A_i) at temperature 1, pulls
the advantage of the action the behavior keeps taking down towards the others; without the Q loss nothing
moves it, and under GDI's near-greedy centring (test_soft_behaviors.py) the same pull vanishes."""

import pytest
import torch
from zoo_lbc.loss import LBCLoss

ROWS, ACTIONS = 6, 4
ADVANTAGES = [1.0, 0.0, 0.5, 0.2]  # action 0 is the greedy one, and the one taken


def pull_on_the_taken_action(scales: tuple[float, float, float]) -> float:
    """d loss / d A(taken) over a sequence with no reward and V = 0 (> 0: gradient descent lowers it)."""
    loss = LBCLoss(burn_in=0, gammas=[0.97], shapings=["rs1"], members=1, rho_bar=1.05, c_bar=1.05, scales=scales)
    adv = torch.tensor(ADVANTAGES).repeat(ROWS, 1, 1, 1).requires_grad_()  # (T+1, B=1, members, A)
    value = torch.zeros(ROWS, 1, 1, requires_grad=True)
    behavior = torch.tensor([[3.9, 1.0]])  # x_1 = log(1 + tau_1): tau_1 = 48, a near-greedy behavior
    mu = loss.behavior_policy(adv.detach()[:, 0], None, behavior)[None].exp().reshape(ROWS, 1, ACTIONS)
    data = {"obs": torch.zeros(ROWS, 1, 1), "state": torch.zeros(1, 1), "valid": torch.ones(ROWS, 1, dtype=bool),
            "action": torch.zeros(ROWS, 1, dtype=torch.long), "mu": mu, "reward": torch.zeros(ROWS, 1),
            "done": torch.zeros(ROWS, 1), "train": torch.ones(ROWS, 1, dtype=bool), "behavior": behavior}
    data["train"][-1] = False

    class Net:
        def unroll(self, *args):
            return adv, value

    total, _ = loss(Net(), data)
    (grad,) = torch.autograd.grad(total, adv)
    return float(grad[:-1, 0, 0, 0].sum())


def test_the_q_loss_pulls_the_greedy_advantage_down_before_any_reward():
    assert pull_on_the_taken_action((1.0, 5.0, 5.0)) > 1.0


def test_without_the_q_loss_nothing_pulls_it():
    assert pull_on_the_taken_action((1.0, 0.0, 5.0)) == pytest.approx(0.0, abs=1e-7)
