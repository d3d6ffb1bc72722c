"""zoo: a plugin zoo for reinforcement-learning research.

The public API for plugin authors is what this module exports: the entries a plugin registers,
the agent contract, and the behavior-space contract between agents and meta-controllers (whose
substrate types, such as :class:`zoo.substrate.AgentBuilder`, live in :mod:`zoo.substrate`).
"""

from .agent import Agent, TrialContext
from .entries import (
    AgentEntry,
    DocumentEntry,
    EnvEntry,
    FeatureEntry,
    MetaControllerEntry,
    NoParams,
    Params,
    ReporterEntry,
    RuleSetEntry,
    SearchSpaceEntry,
    seeded_env,
)
from .errors import ZooError
from .hookspecs import hookimpl
from .metrics import MetricLogger
from .substrate import BehaviorSpace, BestRegion, Choice, Coordinate, MetaController, MetaControllerFactory
from .trained import load_agent

__version__ = "0.1.0"

__all__ = [
    "Agent", "AgentEntry", "BehaviorSpace", "BestRegion", "Choice", "Coordinate", "DocumentEntry", "EnvEntry",
    "FeatureEntry", "MetaController", "MetaControllerEntry", "MetaControllerFactory", "MetricLogger", "NoParams",
    "Params", "ReporterEntry", "RuleSetEntry", "SearchSpaceEntry", "TrialContext", "ZooError", "hookimpl", "load_agent",
    "seeded_env", "__version__",
]
