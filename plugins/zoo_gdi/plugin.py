"""Registers gdi-i3 and gdi-h3; each ablation picks its behavior space and default meta-controller."""

from __future__ import annotations

from zoo import AgentEntry, ZooError, hookimpl

from .params import GDIParams

#: the meta-controller each ablation uses when the spec names none (GDI's E is the bandit population)
DEFAULT_CONTROLLERS = {
    "none": "gdi_bandits", "boltzmann_selection": "gdi_bandits", "eps_greedy_selection": "gdi_bandits",
    "fixed_selection": "fixed", "random_selection": "uniform",
}


def _factory(heads: int):
    def make(params: GDIParams, context):
        from zoo_learner.agent import default_controller, substrate_agent

        from .builder import GDIBuilder

        if context.meta_controller is not None and params.ablation in ("fixed_selection", "random_selection"):
            raise ZooError(f"ablation '{params.ablation}' fixes the meta-controller "
                           f"({DEFAULT_CONTROLLERS[params.ablation]}); remove the meta_controller block")
        return substrate_agent(GDIBuilder(params, heads), params, context,
                               default_controller(DEFAULT_CONTROLLERS[params.ablation]))

    return make


@hookimpl
def register_agents(register):
    register(AgentEntry(name="gdi-i3", params=GDIParams, factory=_factory(1), behavior_space=True,
                        description="GDI-I3: one advantage head, behaviors (1/tau1, 1/tau2, eps) chosen by a meta-controller"))
    register(AgentEntry(name="gdi-h3", params=GDIParams, factory=_factory(2), behavior_space=True,
                        description="GDI-H3: two advantage heads (h_log and h_pow rewards) mixed by (1/tau1, 1/tau2, eps)"))
