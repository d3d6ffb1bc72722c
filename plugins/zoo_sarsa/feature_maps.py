"""Feature maps: the kind of entry ``feature``, sparse binary features of a state for the ``sarsa`` agent.

The SARSA plugin declares the kind (``register_kinds``), and plugins contribute feature maps
(``FeatureMap``) through its ``register_features`` hook: the ALE paper's sets in this plugin,
the GOHR paper's ``gohr-paper`` in the GOHR plugin. A spec names one in the agent's block,
``agent: {type: sarsa, features: {type: NAME, ...}}``::

    from zoo import hookimpl
    from zoo_sarsa.feature_maps import FeatureEntry

    @hookimpl
    def register_features(register):
        register(FeatureEntry(name="one-hot", params=OneHotParams, factory=make_one_hot))
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from zoo import Entry, KindEntry, hookspec


@runtime_checkable
class FeatureMap(Protocol):
    """Sparse binary features of an environment's current state, given as the indices of the ones.

    A map is either a state map, phi(s), for which the ``sarsa`` agent keeps one weight vector per
    action, or a state-action map, phi(s, a), with one index array per action and a single weight
    vector; the agent accepts either. A map whose features depend on earlier states of the episode
    (DISCO's velocities compare with the previous screen) may also define ``reset()``, which the agent
    calls after every env reset; one whose indices repeat to count (DISCO's) sets ``repeated_indices = True``.

    The GOHR paper's linear DQN (``zoo_dqn``) looks no feature map up by name: it builds the paper's
    map from ``zoo_gohr.vector.features`` and uses its factored form (``keys``, ``index_table``).
    """

    #: the dimension of phi
    size: int
    #: True for phi(s, a): `active` returns one index array per action; False for phi(s)
    per_action: bool

    def active(self, env: Any) -> np.ndarray | list[np.ndarray]:
        """Indices of the ones of phi for `env`'s current state (per action when `per_action`)."""
        ...


@dataclass(frozen=True)
class FeatureEntry(Entry):
    """A feature map: ``factory(params, env) -> FeatureMap``."""

    factory: Callable[..., Any] | None = None


@hookspec
def register_features(register: Callable[[FeatureEntry], None]) -> None:
    """Contribute feature maps for the ``sarsa`` agent: ``register(FeatureEntry(...))``."""


FEATURE_MAPS = KindEntry(name="feature", hookspecs=sys.modules[__name__], hook="register_features", entry=FeatureEntry,
                         label="feature map", description="sparse binary features of a state for the sarsa agent")
