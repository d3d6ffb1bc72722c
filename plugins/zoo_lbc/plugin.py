"""Registers the lbc agent and its voting bandit population (`lbc_bandits`, usable by any agent)."""

from __future__ import annotations

from zoo_learner.params import TINY_EXAMPLE

from zoo import AgentEntry, MetaControllerEntry, ZooError, hookimpl

from .bandits import VotingParams, VotingPopulation
from .params import LBCParams

#: ablation -> (meta-controller, its params) when the spec names none
DEFAULT_CONTROLLERS = {
    "none": ("lbc_bandits", {}), "reduce_H": ("lbc_bandits", {}), "reduce_H_and_Psi": ("lbc_bandits", {}),
    "random_selection": ("uniform", {}), "no_ucb": ("lbc_bandits", {"c_range": (0.0, 0.0)}),
    "no_replacement": ("lbc_bandits", {"replace_every": 0}),
}
FIXED = ("random_selection", "no_ucb", "no_replacement")


def make_lbc(params: LBCParams, context):
    from zoo_learner.agent import default_controller, substrate_agent

    from .builder import LBCBuilder

    name, controller_params = DEFAULT_CONTROLLERS[params.ablation]
    if context.meta_controller is not None and params.ablation in FIXED:
        raise ZooError(f"ablation '{params.ablation}' fixes the meta-controller ({name}); remove the meta_controller block")
    return substrate_agent(LBCBuilder(params), params, context, default_controller(name, **controller_params))


@hookimpl
def register_agents(register):
    register(AgentEntry(name="lbc", params=LBCParams, factory=make_lbc, behavior_space=True, example=TINY_EXAMPLE,
                        description="LBC: N separately trained members mixed as sum omega_i softmax(tau_i A_i), psi per episode"))


@hookimpl
def register_meta_controllers(register):
    register(MetaControllerEntry(name="lbc_bandits", params=VotingParams, factory=VotingPopulation,
                                 description="LBC's voting population of UCB bandits per coordinate, with periodic replacement"))
