"""GDI's behavior spaces (one per ablation) and the map from a behavior point to (beta1, beta2, eps)."""

from __future__ import annotations

import math

import torch
from zoo_learner import BehaviorSpace, Coordinate

BETA1 = Coordinate("beta1", 0.0, 50.0, 1.0)  # 1 / tau1
BETA2 = Coordinate("beta2", 0.0, 50.0, 1.0)  # 1 / tau2
EPS = Coordinate("eps", 0.0, 1.0, 0.1)

#: Fixed Selection's point: 1/tau1 = 1, 1/tau2 = 0, eps = 1, i.e. pi = softmax(A) (Table 6)
SOFTMAX = (1.0, 0.0, 1.0)


def behavior_space(ablation: str) -> BehaviorSpace:
    """(1/tau1, 1/tau2, eps) for GDI and the selection ablations; one coordinate for Boltzmann and eps-greedy."""
    if ablation == "boltzmann_selection":
        return BehaviorSpace((Coordinate("beta", 0.0, 50.0, 1.0),), (1.0,))
    if ablation == "eps_greedy_selection":
        return BehaviorSpace((EPS,), (0.1,))
    return BehaviorSpace((BETA1, BETA2, EPS), SOFTMAX)


def mixture_coefficients(ablation: str, behavior: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(beta1, beta2, eps), each (B,), for behavior points (B, k) of `ablation`'s space.

    Boltzmann: softmax(beta * A1) (eps = 1); eps-greedy: eps * uniform + (1 - eps) * argmax A2.
    """
    if ablation == "boltzmann_selection":
        beta = behavior[:, 0]
        return beta, beta, torch.ones_like(beta)
    if ablation == "eps_greedy_selection":
        eps = behavior[:, 0]
        return torch.zeros_like(eps), torch.full_like(eps, math.inf), eps
    return behavior[:, 0], behavior[:, 1], behavior[:, 2]
