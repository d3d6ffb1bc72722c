"""LBC on the substrate: N separate member networks (one for the reduce-H ablations), the hybrid mapping, the loss."""

from __future__ import annotations

from zoo_learner.losses import AuxiliaryTasks
from zoo_learner.networks import build_network

from zoo import BehaviorSpace

from .behavior import behavior_space
from .loss import LBCLoss
from .params import LBCParams

SINGLE_NETWORK = ("reduce_H", "reduce_H_and_Psi")


class LBCBuilder:
    """LBC or an ablation: reduce_H trains member 1 alone and uses it as all N components."""

    def __init__(self, params: LBCParams):
        self.params = params
        members = params.members[:1] if params.ablation in SINGLE_NETWORK else params.members
        self.networks = len(members)
        self.loss = LBCLoss(burn_in=params.burn_in, gammas=[m.gamma for m in members],
                            shapings=[m.shaping for m in members], members=len(params.members),
                            rho_bar=params.rho_bar, c_bar=params.c_bar, scales=tuple(params.loss_scales),
                            auxiliary=AuxiliaryTasks(params.auxiliary.forward, params.auxiliary.inverse))

    def behavior_space(self) -> BehaviorSpace:
        return behavior_space(len(self.params.members), self.params.ablation)

    def make_network(self, obs_shape, actions):
        return build_network(self.params.network, obs_shape, actions, heads=self.networks, separate=True,
                             auxiliary=self.params.auxiliary)

    def behavior_policy(self):
        return self.loss.behavior_policy

    def make_loss(self):
        return self.loss
