"""Registers the built-in meta-controllers."""

from __future__ import annotations

from zoo import MetaControllerEntry, NoParams, hookimpl

from .classic import (
    UCB1,
    Fixed,
    FixedParams,
    SlidingWindowParams,
    SlidingWindowUCB,
    Thompson,
    ThompsonParams,
    UCB1Params,
    Uniform,
)
from .population import BanditPopulation, PopulationParams


@hookimpl
def register_meta_controllers(register):
    register(MetaControllerEntry(name="gdi_bandits", params=PopulationParams, factory=BanditPopulation,
                                 description="GDI's population of UCB bandits per coordinate (the paper's operator E)"))
    register(MetaControllerEntry(name="fixed", params=FixedParams, factory=Fixed,
                                 description="always one behavior (the agent's default unless given)"))
    register(MetaControllerEntry(name="uniform", params=NoParams, factory=Uniform,
                                 description="a uniformly random behavior every episode"))
    register(MetaControllerEntry(name="ucb1", params=UCB1Params, factory=UCB1,
                                 description="UCB1 per coordinate over its blocks"))
    register(MetaControllerEntry(name="sliding_window_ucb", params=SlidingWindowParams, factory=SlidingWindowUCB,
                                 description="Agent57's sliding-window UCB per coordinate"))
    register(MetaControllerEntry(name="thompson", params=ThompsonParams, factory=Thompson,
                                 description="Gaussian Thompson sampling per coordinate"))
