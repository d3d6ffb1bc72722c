"""DiCE's behavior space: one coordinate x = log(1 + 1/tau) over [0, ln 51], i.e. 1/tau in [0, 50].

x = 0 is tau = inf (the uniform policy), x = ln 51 is tau = 0.02. The bandits tile x into 50 blocks
(docs/algorithms/dice.md). Temperatures are never divided by: the behavior is
softmax(beta * A) with beta = 1/tau = expm1(x), finite everywhere on the range.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from zoo_learner import BehaviorSpace, Coordinate

X_MAX = math.log(51.0)
TILES = 50
X = Coordinate("x", 0.0, X_MAX, X_MAX / TILES)

#: tau = 1 (the baseline's behavior softmax(A))
TAU_ONE = math.log(2.0)


def x_of_tau(tau: float) -> float:
    """x = log(1 + 1/tau); tau = inf gives 0."""
    return math.log1p(1.0 / tau)


def tau_of_x(x: float) -> float:
    """tau = 1 / expm1(x); x = 0 gives inf."""
    beta = math.expm1(x)
    return math.inf if beta == 0 else 1.0 / beta


def inverse_temperature(behavior: torch.Tensor | np.ndarray) -> torch.Tensor:
    """beta = 1/tau = expm1(x) for behavior points (B, 1)."""
    return torch.expm1(torch.as_tensor(behavior, dtype=torch.float32)[:, 0])


def behavior_space() -> BehaviorSpace:
    """The x coordinate; its default point is tau = 1."""
    return BehaviorSpace((X,), (TAU_ONE,))
