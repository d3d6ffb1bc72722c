"""DiCE on the substrate: behavior space, one-head network, pi_tau behavior and the DiCE loss."""

from __future__ import annotations

from zoo_learner.losses import AuxiliaryTasks
from zoo_learner.networks import build_network

from zoo import BehaviorSpace

from .behavior import behavior_space
from .loss import DiCELoss
from .params import DiCEParams


class DiCEBuilder:
    """DiCE or one of its ablations; only the entropy ablation changes the loss."""

    def __init__(self, params: DiCEParams):
        self.params = params
        self.loss = DiCELoss(burn_in=params.burn_in, gamma=params.gamma, rho_bar=params.rho_bar, c_bar=params.c_bar,
                             scales=tuple(params.loss_scales),
                             entropy=params.entropy_coefficient if params.ablation == "entropy" else 0.0,
                             reward_shape=params.reward_shape, retrace_variant=params.retrace_variant,
                             advantage_centering=params.advantage_centering,
                             auxiliary=AuxiliaryTasks(params.auxiliary.forward, params.auxiliary.inverse))

    def behavior_space(self) -> BehaviorSpace:
        return behavior_space()

    def make_network(self, obs_shape, actions):
        return build_network(self.params.network, obs_shape, actions, heads=1, auxiliary=self.params.auxiliary)

    def behavior_policy(self):
        return self.loss.behavior_policy

    def make_loss(self):
        return self.loss
