"""zoo: a plugin zoo for reinforcement-learning research.

The public API for plugin authors is what this module exports.
"""

from .agent import Agent, TrialContext
from .entries import (
    AgentEntry, EnvEntry, FeatureEntry, MetaControllerEntry, NoParams, Params, ReporterEntry, RuleSetEntry, seeded_env,
)
from .errors import ZooError
from .hookspecs import hookimpl
from .metrics import MetricLogger
from .trained import load_agent

__version__ = "0.1.0"

__all__ = [
    "Agent", "AgentEntry", "EnvEntry", "FeatureEntry", "MetaControllerEntry", "MetricLogger", "NoParams",
    "Params", "ReporterEntry", "RuleSetEntry", "TrialContext", "ZooError", "hookimpl", "load_agent", "seeded_env",
    "__version__",
]
