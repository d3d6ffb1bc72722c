"""Every hook a zoo plugin can implement.

A plugin is a module (or object) named in the ``zoo`` entry-point group whose functions are
marked with :data:`hookimpl`. Registration hooks receive a ``register`` callback and call it
once per item they contribute, as tox and llm plugins do::

    from zoo import hookimpl, EnvEntry

    @hookimpl
    def register_envs(register):
        register(EnvEntry(name="my-env", params=MyEnvParams, factory=make_my_env))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import typer

    from .entries import (
        AgentEntry,
        DocumentEntry,
        EnvEntry,
        FeatureEntry,
        MetaControllerEntry,
        ReporterEntry,
        RuleSetEntry,
        SearchSpaceEntry,
    )

PROJECT = "zoo"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_envs(register: Callable[[EnvEntry], None]) -> None:
    """Contribute environments: call ``register(EnvEntry(...))`` for each.

    An env entry names a pydantic params model (its spec block) and a factory that builds the
    environment from validated params and a seed.
    """


@hookspec
def register_agents(register: Callable[[AgentEntry], None]) -> None:
    """Contribute agents: call ``register(AgentEntry(...))`` for each.

    An agent entry names its params model and a factory ``(params, TrialContext) -> Agent``.
    Agents that choose a behavior policy per episode set ``behavior_space=True`` so that a spec
    may put a meta-controller under them.
    """


@hookspec
def register_meta_controllers(register: Callable[[MetaControllerEntry], None]) -> None:
    """Contribute meta-controllers (bandits that pick behavior policies): ``register(MetaControllerEntry(...))``."""


@hookspec
def register_rule_sets(register: Callable[[RuleSetEntry], None]) -> None:
    """Contribute GOHR rule sets: ``register(RuleSetEntry(name=..., path=...))`` for a directory of rule files.

    Rules inside are addressable from a spec as ``<rule set>/<relative path without .txt>``.
    """


@hookspec
def register_features(register: Callable[[FeatureEntry], None]) -> None:
    """Contribute feature maps for linear agents: ``register(FeatureEntry(...))``."""


@hookspec
def register_reporters(register: Callable[[ReporterEntry], None]) -> None:
    """Contribute reports for runs of given environments: ``register(ReporterEntry(...))``.

    ``zoo report`` and ``zoo compare`` use the reporter whose ``envs`` names a run's environment.
    """


@hookspec
def register_documents(register: Callable[[DocumentEntry], None]) -> None:
    """Contribute kinds of YAML files that ``zoo validate`` recognises besides run specs: ``register(DocumentEntry(...))``.

    A file whose top level holds every key of an entry's ``marker`` (a study's ``base`` and ``runs``)
    is checked by that entry's ``validate(path, registry, build)`` instead of as a run spec.
    """


@hookspec
def register_search_spaces(register: Callable[[SearchSpaceEntry], None]) -> None:
    """Contribute search spaces for ``zoo tune``: ``register(SearchSpaceEntry(name=..., path=...))``.

    A tuning file uses one by name (``search_space: ppo``) instead of writing its distributions out.
    """


@hookspec
def register_commands(cli: typer.Typer) -> None:
    """Add commands or command groups to the ``zoo`` CLI (``cli.command()(fn)`` or ``cli.add_typer(...)``)."""
