"""Registers gdi-i3 and gdi-h3; each ablation picks its behavior space and default meta-controller.

GDI's E is the registered `gdi_bandits` population. By default (``bandit_scale: log1p``) it searches the
inverse temperatures as App. G's x = log(1 + 1/tau) (blocks equally wide in x over 1/tau in [0, 50], as
DiCE's tau): a bandit over 1/tau itself gives the soft behaviors (1/tau < 5) 5 of its 50 blocks, and once
the greedy ones return more it stops playing them, which let GDI-I3 relapse on GOHR (docs/substrate.md).
The other way round, before a first reward blocks equally wide in x play mostly soft, near-uniform
behaviors, which lose MinAtar's Freeway; there the `minatar` presets search 1/tau itself
(``bandit_scale: linear``).
"""

from __future__ import annotations

from zoo_learner.params import TINY_EXAMPLE

from zoo import AgentEntry, ZooError, hookimpl

from .params import GDIH3Params, GDIParams

#: App. G: the inverse temperatures GDI's bandits see as x = log(1 + 1/tau), per ablation that searches them
INVERSE_TEMPERATURES = {"none": ["beta1", "beta2"], "boltzmann_selection": ["beta"], "eps_greedy_selection": []}

#: the ablations whose selection is not a bandit search (GDI's E replaced by a fixed or a uniform draw)
FIXED_CONTROLLERS = {"fixed_selection": "fixed", "random_selection": "uniform"}


def default_controller_of(params: GDIParams) -> tuple[str, dict]:
    """The meta-controller (name, params) of a spec that names none: GDI's E, or the ablation's fixed one."""
    if params.ablation in FIXED_CONTROLLERS:
        return FIXED_CONTROLLERS[params.ablation], {}
    scaled = INVERSE_TEMPERATURES[params.ablation] if params.bandit_scale == "log1p" else []
    return "gdi_bandits", {"log1p_coordinates": scaled}


def _factory(heads: int):
    def make(params: GDIParams, context):
        from zoo_learner.agent import default_controller, substrate_agent

        from .builder import GDIBuilder

        name, controller_params = default_controller_of(params)
        if context.meta_controller is not None and params.ablation in FIXED_CONTROLLERS:
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
