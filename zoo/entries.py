"""What a plugin registers: an entry is a name, a params model and a factory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Params(BaseModel):
    """Base class for plugin params: unknown keys are errors, values are re-validated on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)


class NoParams(Params):
    """Params of an entry that takes none."""


@dataclass(frozen=True)
class Entry:
    """Common fields of everything a plugin registers.

    ``example`` holds the params of a small, quick use of the entry, as a spec's block sets them (without
    ``type``); ``zoo check`` builds the entry with them, so an entry whose params have required fields
    declares it. ``None`` says the entry cannot be built from a spec block on its own (its ``description``
    says why), and ``zoo check`` skips it.
    """

    name: str
    params: type[BaseModel] = NoParams
    description: str = ""
    plugin: str = field(default="", compare=False)  # filled in by the registry
    example: Mapping[str, Any] | None = field(default_factory=dict, compare=False)


def seeded_env(env, seed: int | None):
    """`env` as an env factory returns it: reset with `seed` and its action space seeded (untouched if None)."""
    if seed is not None:
        env.reset(seed=seed)
        env.action_space.seed(seed)
    return env


@dataclass(frozen=True)
class EnvEntry(Entry):
    """An environment: ``factory(params, seed) -> env`` (a gymnasium.Env for most agents).

    ``vector_factory(params, num_envs, seed) -> gymnasium.vector.VectorEnv``, when given, builds many
    copies at once faster than stacking ``factory`` calls; agents that step many envs use it.
    """

    factory: Callable[[Any, int | None], Any] | None = None
    vector_factory: Callable[[Any, int, int | None], Any] | None = None


@dataclass(frozen=True)
class AgentEntry(Entry):
    """An agent: ``factory(params, context: TrialContext) -> Agent``.

    With ``batched_trials=True`` the factory gets a list of contexts and trains those trials together.
    ``example_env``, when given, is the env block (with its ``type``) the agent's example trains on, for an
    agent that plays only some envs (``zoo check`` otherwise tries its plugin's envs, then CartPole-v1, then
    Pendulum-v1).
    """

    factory: Callable[[Any, Any], Any] | None = None
    behavior_space: bool = False
    batched_trials: bool = False
    example_env: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class MetaControllerEntry(Entry):
    """A meta-controller: ``factory(params, behavior_space, rng) -> MetaController``."""

    factory: Callable[..., Any] | None = None


@dataclass(frozen=True)
class DocumentEntry(Entry):
    """A kind of YAML file besides run specs that ``zoo validate`` recognises and checks (a study, a board).

    A file is of this kind when its top level is a mapping holding every key of ``marker``.
    ``validate(path, registry, build) -> str`` checks it against the installed plugins (with `build`,
    as ``zoo validate --build`` asks, it also builds the env, agent and meta-controller of every run
    it would start), raises :class:`~zoo.ZooError` naming the problem, and returns a one-line summary.
    """

    marker: tuple[str, ...] = ()
    validate: Callable[..., str] | None = None


@dataclass(frozen=True)
class KindEntry(Entry):
    """A kind of entry of a plugin's own, which plugins then register through a hook that plugin specifies.

    ``hookspecs`` is the module (or class) holding that hook's specification (marked with
    :data:`zoo.hookspec`), ``hook`` its name, ``entry`` the :class:`Entry` subclass every registration
    must be, and ``label`` what a user calls one. ``zoo list NAME`` lists the kind's entries.
    """

    hookspecs: Any = None
    hook: str = ""
    entry: type[Entry] = Entry
    label: str = ""


@dataclass(frozen=True)
class TrackerEntry(Entry):
    """An experiment tracker: ``factory(params, record: zoo.tracking.TrialRecord) -> zoo.tracking.Tracker``.

    A spec turns it on with ``logging: {trackers: [NAME]}`` and sets its params under ``logging.NAME``.
    The factory is called in the process that trains the trial, once per trial (again when it resumes).
    ``modules`` are the libraries it needs, which come with the package extra ``extra``: a run that
    names the tracker without them stops before its run folder exists, naming the extra.
    """

    factory: Callable[[Any, Any], Any] | None = None
    modules: tuple[str, ...] = ()
    extra: str = ""


class BackendParams(Params):
    """The fields every backend's params have (derive a backend's params from this): the trial groups run
    at once, and the torch threads of each; ``--backend`` of another type keeps these two."""

    workers: int = Field(default=1, ge=1, le=256, description="trials run at once, each in its own process when > 1")
    torch_threads: int = Field(default=1, ge=1, le=256, description="torch intra-op threads per process")


@dataclass(frozen=True)
class BackendOption:
    """A command-line option a backend adds to the commands that start runs (``zoo train``, ``zoo study``...).

    ``--FLAG VALUE`` sets the spec's ``backend.FIELD``; given without ``--backend`` it selects this backend.
    """

    flag: str
    field: str
    help: str = ""
    metavar: str = "VALUE"
    type: type = str


@dataclass(frozen=True)
class BackendEntry(Entry):
    """Where a run's trial groups train: ``factory(params, registry, batched) -> backend``, an object with
    ``train(run_path, groups, stop, report)`` (see :class:`zoo.workers.Backend`); `batched` says whether
    the run's agent trains each group's trials together.

    ``check(params)``, when given, is called before a run folder is created, to refuse a backend that cannot
    be reached. ``options`` are the command-line options it adds. ``capabilities`` name what a trial running
    on it may use besides its own process (an agent asks ``context.backend_capabilities``); their meaning
    is agreed between the backend's plugin and the agents that use them.
    """

    params: type[BaseModel] = BackendParams
    factory: Callable[..., Any] | None = None
    check: Callable[[Any], None] | None = None
    options: tuple[BackendOption, ...] = ()
    capabilities: frozenset[str] = frozenset()
