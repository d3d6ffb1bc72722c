"""LBC's behavior space and hybrid mapping mu = sum_i omega_i softmax(tau_i A_i) (Section 4.1, Eq. 10;
docs/algorithms/lbc.md).

tau_i is an inverse temperature. The bandits see it as x_i = log(1 + tau_i) over [0, 4] in blocks of
0.2 (20 arms; tau = e^x - 1 in [0, 53.6]); omega_i lies in [0, 1] in blocks of 0.1 and is normalized
onto the simplex inside the mapping (all zero: uniform weights). Point layout: (x_1, omega_1, ..., x_N,
omega_N); the reduce_H_and_Psi ablation has the single coordinate x (softmax(tau A_1)).
"""

from __future__ import annotations

import math

import torch
from zoo_learner.policy import boltzmann_log_probs

from zoo import BehaviorSpace, Coordinate

TAU_ONE = math.log(2.0)


def behavior_space(members: int, ablation: str) -> BehaviorSpace:
    """2N coordinates, or one for reduce_H_and_Psi; the default point is softmax(A_1) (tau_1 = 1, omega = e_1)."""
    if ablation == "reduce_H_and_Psi":
        return BehaviorSpace((Coordinate("x", 0.0, 4.0, 0.2),), (TAU_ONE,))
    coordinates, default = [], []
    for i in range(1, members + 1):
        coordinates += [Coordinate(f"x{i}", 0.0, 4.0, 0.2), Coordinate(f"omega{i}", 0.0, 1.0, 0.1)]
        default += [TAU_ONE, 1.0 if i == 1 else 0.0]
    return BehaviorSpace(tuple(coordinates), tuple(default))


def normalized_weights(raw: torch.Tensor) -> torch.Tensor:
    """omega / sum(omega) per row of (B, N); rows summing to 0 get uniform weights."""
    total = raw.sum(-1, keepdim=True)
    positive = total > 0
    return torch.where(positive, raw / torch.where(positive, total, 1.0), torch.full_like(raw, 1.0 / raw.shape[-1]))


def hybrid_log_probs(adv: torch.Tensor, behavior: torch.Tensor, legal: torch.Tensor | None = None) -> torch.Tensor:
    """log sum_i omega_i softmax(tau_i A_i) for adv (..., B, N, A) and behavior points (B, 2N) or (B, 1);
    each softmax over the `legal` actions (..., B, A) when given.

    With one coordinate it is log softmax(tau A_1).
    """
    behavior = behavior.to(adv.dtype)
    if behavior.shape[-1] == 1:
        return boltzmann_log_probs(adv[..., 0, :], torch.expm1(behavior[:, 0]).expand(adv.shape[:-2]), legal)
    tau = torch.expm1(behavior[:, 0::2]).expand(adv.shape[:-1])
    weights = normalized_weights(behavior[:, 1::2]).expand(adv.shape[:-1])
    members = None if legal is None else legal.unsqueeze(-2)
    components = torch.log(weights).unsqueeze(-1) + boltzmann_log_probs(adv, tau, members)
    return torch.logsumexp(components, dim=-2)
