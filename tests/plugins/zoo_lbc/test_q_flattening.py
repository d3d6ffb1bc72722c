"""Why LBC plays MinAtar's Freeway uniformly at the board's budget (docs/substrate.md, "LBC on MinAtar, the
cause"): before any reward, each member's Q loss, with Q centred under softmax(A_i) at temperature 1, pulls
the advantage of the action the behavior keeps taking down towards the others; without the Q loss nothing
moves it, and under GDI's near-greedy centring (test_soft_behaviors.py) the same pull vanishes."""

import pytest
import torch
from loss_reference import pull_on_a_repeated_action
from zoo_lbc.loss import LBCLoss

ADVANTAGES = [1.0, 0.0, 0.5, 0.2]  # action 0 is the greedy one, and the one taken


def pull_on_the_taken_action(scales: tuple[float, float, float]) -> float:
    """d loss / d A(taken) over a sequence with no reward and V = 0 (> 0: gradient descent lowers it)."""
    loss = LBCLoss(burn_in=0, gammas=[0.97], shapings=["rs1"], members=1, rho_bar=1.05, c_bar=1.05, scales=scales)
    # x_1 = log(1 + tau_1) = 3.9: tau_1 = 48, a near-greedy behavior
    return pull_on_a_repeated_action(loss, ADVANTAGES, 0.0, torch.tensor([[3.9, 1.0]]), 0.0)


def test_the_q_loss_pulls_the_greedy_advantage_down_before_any_reward():
    assert pull_on_the_taken_action((1.0, 5.0, 5.0)) > 1.0


def test_without_the_q_loss_nothing_pulls_it():
    assert pull_on_the_taken_action((1.0, 0.0, 5.0)) == pytest.approx(0.0, abs=1e-7)
