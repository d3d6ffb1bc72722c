"""What an agent on the actor / replay / learner substrate supplies: an :class:`AgentBuilder`.

The builder gives its behavior space (:class:`zoo.BehaviorSpace`), its network (a
:class:`RecurrentNetwork`), its :data:`BehaviorPolicy` and its :data:`LossFn`;
:class:`zoo_learner.agent.SubstrateAgent` runs the rest. This module does not import torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from zoo import BehaviorSpace

if TYPE_CHECKING:
    import torch


@runtime_checkable
class RecurrentNetwork(Protocol):
    """The network of an agent on the substrate: recurrent, with advantage and value heads.

    ``step(obs (B, ...), state (B, state_size))`` is ``((adv (B, heads, A), value (B, heads)), next state)``;
    ``unroll(obs (L, B, ...), state (B, state_size), valid (L, B), burn_in)`` gives the heads on rows
    ``burn_in..`` of a stored sequence, the rows before only warming the state up. It is a
    ``torch.nn.Module``: the learner trains its parameters and actors load its ``state_dict``.
    """

    state_size: int

    def initial_state(self, batch: int) -> torch.Tensor: ...

    def step(self, obs: torch.Tensor, state: torch.Tensor) -> Any: ...

    def unroll(self, obs: torch.Tensor, state: torch.Tensor, valid: torch.Tensor, burn_in: int) -> Any: ...


#: ``(adv (n, heads, A), value (n, heads), behavior (n, k)) -> log behavior probabilities (n, A)``:
#: how an agent acts given its heads and the episode's behavior point (one row per env slot). With
#: ``mask_actions`` the substrate also passes ``legal=`` (n, A) bools, and the illegal actions must get -inf.
BehaviorPolicy = Callable[["torch.Tensor", "torch.Tensor", "torch.Tensor"], "torch.Tensor"]

#: ``(network, batch) -> (loss, diagnostics)``: one learner update's loss on a time-major batch of
#: sequences (``obs``, ``action``, ``reward``, ``done``, ``mu``, ``train``, ``valid`` and, with
#: ``mask_actions``, ``legal`` with rows first;
#: ``state``, ``behavior``, ``arm`` per sequence) and the scalars to log (each as ``learner/<name>``).
LossFn = Callable[[Any, dict[str, "torch.Tensor"]], tuple["torch.Tensor", dict[str, float]]]


@runtime_checkable
class AgentBuilder(Protocol):
    """What an agent on the actor / replay / learner substrate defines; the substrate does the rest."""

    def behavior_space(self) -> BehaviorSpace:
        """The box the meta-controller picks each episode's behavior from."""
        ...

    def make_network(self, obs_shape: tuple[int, ...], actions: int) -> RecurrentNetwork:
        """A fresh network (the learner and each actor get their own copy; actors pull the learner's weights)."""
        ...

    def behavior_policy(self) -> BehaviorPolicy:
        ...

    def make_loss(self) -> LossFn:
        ...


__all__ = ["AgentBuilder", "BehaviorPolicy", "LossFn", "RecurrentNetwork"]
