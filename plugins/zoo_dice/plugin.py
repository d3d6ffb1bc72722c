"""Registers the dice agent; each ablation picks its default meta-controller.

Omega, the Bandits Vote Algorithm, is the registered `gdi_bandits` population with DiCE's constants
(M = 7 bandits, d = 7 candidates, widths {1, 2, 3}, learning rates {0.05, 0.1, 0.2}, c = 1, argmax and
random modes): the two papers' bandit ensembles are the same algorithm (DiCE Appendix A, GDI Appendix G;
docs/algorithms/dice.md).
"""

from __future__ import annotations

from zoo_learner.params import TINY_EXAMPLE

from zoo import AgentEntry, ZooError, hookimpl

from .params import DiCEParams

#: the spec's Omega (Appendix C)
BVA = {"bandits": 7, "candidates": 7, "ucb": 1.0, "learning_rates": [0.05, 0.1, 0.2], "widths": [1, 2, 3],
       "modes": ["argmax", "random"]}

#: ablation -> (meta-controller, its params) when the spec names none
DEFAULT_CONTROLLERS = {"none": ("gdi_bandits", BVA), "entropy": ("gdi_bandits", BVA),
                       "baseline": ("fixed", {}), "random": ("uniform", {})}


def make_dice(params: DiCEParams, context):
    from zoo_learner.agent import default_controller, substrate_agent

    from .builder import DiCEBuilder

    name, controller_params = DEFAULT_CONTROLLERS[params.ablation]
    if context.meta_controller is not None and params.ablation in ("baseline", "random"):
        raise ZooError(f"ablation '{params.ablation}' fixes the meta-controller ({name}); "
                       "remove the meta_controller block")
    return substrate_agent(DiCEBuilder(params), params, context, default_controller(name, **controller_params))


@hookimpl
def register_agents(register):
    register(AgentEntry(name="dice", params=DiCEParams, factory=make_dice, behavior_space=True, example=TINY_EXAMPLE,
                        description="DiCE: softmax(A / tau) behaviors, tau per episode from a bandit vote, tau-scaled PG, no entropy"))
