"""zoo: a plugin zoo for reinforcement-learning research.

The public API for plugin authors is what this module exports: the entries a plugin registers,
the agent contract, and the behavior-space contract between agents and meta-controllers
(:mod:`zoo.behavior`).
"""

from .agent import Agent, TrialContext
from .behavior import BehaviorSpace, BestRegion, Choice, Coordinate, MetaController, MetaControllerFactory
from .entries import (
    AgentEntry,
    BackendEntry,
    BackendOption,
    BackendParams,
    DocumentEntry,
    EnvEntry,
    FeatureEntry,
    KindEntry,
    MetaControllerEntry,
    NoParams,
    Params,
    ReporterEntry,
    TrackerEntry,
    seeded_env,
)
from .errors import ZooError
from .extras import require_extra
from .hookspecs import hookimpl, hookspec
from .metrics import MetricLogger
from .tracking import TENSORBOARD, Tracker, TrialRecord
from .trained import load_agent

__version__ = "0.1.0"

__all__ = [
    "Agent", "AgentEntry", "BackendEntry", "BackendOption", "BackendParams", "BehaviorSpace", "BestRegion", "Choice",
    "Coordinate", "DocumentEntry", "EnvEntry", "FeatureEntry", "KindEntry", "MetaController", "MetaControllerEntry",
    "MetaControllerFactory", "MetricLogger", "NoParams", "Params", "ReporterEntry", "Tracker", "TrackerEntry",
    "TrialContext", "TrialRecord", "ZooError",
    "TENSORBOARD", "hookimpl", "hookspec", "load_agent", "require_extra", "seeded_env",
    "__version__",
]
