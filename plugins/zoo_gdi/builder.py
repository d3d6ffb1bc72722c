"""GDI on the substrate: behavior space, networks, behavior policy and loss for I3 (one head) and H3 (two)."""

from __future__ import annotations

from zoo_learner.losses import AuxiliaryTasks
from zoo_learner.networks import build_network

from zoo import BehaviorSpace

from .behavior import behavior_space
from .loss import GDILoss
from .params import GDIParams


class GDIBuilder:
    """GDI-I3 (`heads=1`, rewards h_log) or GDI-H3 (`heads=2`, rewards h_log and h_pow on two parameter sets)."""

    def __init__(self, params: GDIParams, heads: int):
        self.params, self.heads = params, heads
        self.loss = GDILoss(ablation=params.ablation, burn_in=params.burn_in, gamma=params.gamma,
                            rho_bar=params.rho_bar, c_bar=params.c_bar, scales=tuple(params.loss_scales),
                            shapings=("log",) if heads == 1 else ("log", "pow"), retrace_form=params.retrace,
                            auxiliary=AuxiliaryTasks(params.auxiliary.forward, params.auxiliary.inverse))

    def behavior_space(self) -> BehaviorSpace:
        return behavior_space(self.params.ablation)

    def make_network(self, obs_shape, actions):
        return build_network(self.params.network, obs_shape, actions, heads=self.heads,
                             separate=not self.params.shared_torso, auxiliary=self.params.auxiliary)

    def behavior_policy(self):
        return self.loss.behavior_policy

    def make_loss(self):
        return self.loss
