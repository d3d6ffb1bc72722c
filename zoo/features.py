"""The contract of feature maps for linear agents (registered with ``register_features``).

A feature map turns the current state of an environment into sparse binary features, given as
the indices of the ones. It is either a state map, phi(s), for which a linear agent keeps one
weight vector per action, or a state-action map, phi(s, a), with one index array per action and a
single weight vector. Linear agents (SARSA(lambda), the GOHR linear DQN) accept either kind, so
any feature plugin can serve any linear agent.

A map whose features depend on earlier states of the episode (DISCO's velocities compare with the
previous screen) may also define ``reset()``; the SARSA agent calls it after every env reset.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class FeatureMap(Protocol):
    """Sparse binary features of an environment's current state."""

    #: the dimension of phi
    size: int
    #: True for phi(s, a): `active` returns one index array per action; False for phi(s)
    per_action: bool

    def active(self, env: Any) -> np.ndarray | list[np.ndarray]:
        """Indices of the ones of phi for `env`'s current state (per action when `per_action`)."""
        ...
