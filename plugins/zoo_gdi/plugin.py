"""Registers gdi-i3 and gdi-h3; each ablation picks its behavior space and default meta-controller.

GDI's E is the registered `gdi_bandits` population searching the inverse temperatures as App. G's
x = log(1 + 1/tau) (blocks equally wide in x over 1/tau in [0, 50], as DiCE's tau): a bandit over 1/tau
itself gives the soft behaviors (1/tau < 5) 5 of its 50 blocks, and once the greedy ones return
more it stops playing them, which let GDI-I3 relapse on GOHR (docs/substrate.md). The other way round,
before a first reward blocks equally wide in x play mostly soft, near-uniform behaviors, which lose
MinAtar's Freeway; a spec searches 1/tau itself with ``meta_controller: {type: gdi_bandits,
log1p_coordinates: []}``.
"""

from __future__ import annotations

from zoo_learner.params import TINY_EXAMPLE

from zoo import AgentEntry, ZooError, hookimpl

from .params import GDIH3Params, GDIParams

#: App. G: the bandits see each inverse temperature 1/tau as x = log(1 + 1/tau)
TEMPERATURES_AS_X = {"none": {"log1p_coordinates": ["beta1", "beta2"]},
                     "boltzmann_selection": {"log1p_coordinates": ["beta"]}, "eps_greedy_selection": {}}

#: ablation -> (meta-controller, its params) when the spec names none (GDI's E is the bandit population)
DEFAULT_CONTROLLERS = {
    **{ablation: ("gdi_bandits", params) for ablation, params in TEMPERATURES_AS_X.items()},
    "fixed_selection": ("fixed", {}), "random_selection": ("uniform", {}),
}


def _factory(heads: int):
    def make(params: GDIParams, context):
        from zoo_learner.agent import default_controller, substrate_agent

        from .builder import GDIBuilder

        name, controller_params = DEFAULT_CONTROLLERS[params.ablation]
        if context.meta_controller is not None and params.ablation in ("fixed_selection", "random_selection"):
            raise ZooError(f"ablation '{params.ablation}' fixes the meta-controller ({name}); "
                           "remove the meta_controller block")
        return substrate_agent(GDIBuilder(params, heads), params, context, default_controller(name, **controller_params))

    return make


@hookimpl
def register_agents(register):
    register(AgentEntry(name="gdi-i3", params=GDIParams, factory=_factory(1), behavior_space=True, example=TINY_EXAMPLE,
                        description="GDI-I3: one advantage head, behaviors (1/tau1, 1/tau2, eps) chosen by a meta-controller"))
    register(AgentEntry(name="gdi-h3", params=GDIH3Params, factory=_factory(2), behavior_space=True, example=TINY_EXAMPLE,
                        description="GDI-H3: two advantage heads (h_log and h_pow rewards) mixed by (1/tau1, 1/tau2, eps)"))
