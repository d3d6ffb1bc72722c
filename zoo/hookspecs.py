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

    from .entries import AgentEntry, BackendEntry, DocumentEntry, EnvEntry, KindEntry, MetaControllerEntry, TrackerEntry

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
def register_kinds(register: Callable[[KindEntry], None]) -> None:
    """Contribute kinds of entries with registration hooks of their own: ``register(KindEntry(...))``.

    The entry's ``hookspecs`` module holds the new hook's specification, marked with :data:`hookspec`;
    the registry adds it before it asks any plugin for that kind, so a plugin loaded earlier or later
    than the one that declares the kind contributes to it all the same.
    """


@hookspec
def register_documents(register: Callable[[DocumentEntry], None]) -> None:
    """Contribute kinds of YAML files that ``zoo validate`` recognises besides run specs: ``register(DocumentEntry(...))``.

    A file whose top level holds every key of an entry's ``marker`` (a study's ``base`` and ``runs``)
    is checked by that entry's ``validate(path, registry, build)`` instead of as a run spec.
    """


@hookspec
def register_backends(register: Callable[[BackendEntry], None]) -> None:
    """Contribute backends, the places where a run's trial groups train: ``register(BackendEntry(...))``.

    A spec picks one with ``backend: {type: NAME, ...}`` (no block, or no ``type``: the kernel's ``local``),
    and ``--backend NAME`` picks one on the command line, with the options the entry declares.
    """


@hookspec
def register_trackers(register: Callable[[TrackerEntry], None]) -> None:
    """Contribute experiment trackers, which mirror a trial's metrics, result and files: ``register(TrackerEntry(...))``.

    A spec turns one on with ``logging: {trackers: [NAME]}`` (TensorBoard's with ``logging.tensorboard``).
    """


@hookspec
def register_commands(cli: typer.Typer) -> None:
    """Add commands or command groups to the ``zoo`` CLI (``cli.command()(fn)`` or ``cli.add_typer(...)``)."""
