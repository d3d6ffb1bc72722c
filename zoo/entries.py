"""What a plugin registers: an entry is a name, a params model and a factory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict


class Params(BaseModel):
    """Base class for plugin params: unknown keys are errors, values are re-validated on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)


class NoParams(Params):
    """Params of an entry that takes none."""


@dataclass(frozen=True)
class Entry:
    """Common fields of everything a plugin registers."""

    name: str
    params: type[BaseModel] = NoParams
    description: str = ""
    plugin: str = field(default="", compare=False)  # filled in by the registry


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
    """

    factory: Callable[[Any, Any], Any] | None = None
    behavior_space: bool = False
    batched_trials: bool = False


@dataclass(frozen=True)
class MetaControllerEntry(Entry):
    """A meta-controller: ``factory(params, behavior_space, rng) -> MetaController``."""

    factory: Callable[..., Any] | None = None


@dataclass(frozen=True)
class FeatureEntry(Entry):
    """A feature map for linear agents: ``factory(params, env) -> zoo.features.FeatureMap``."""

    factory: Callable[..., Any] | None = None


@dataclass(frozen=True)
class RuleSetEntry(Entry):
    """A directory of GOHR rule files, addressable by ``<name>/<relative path>``."""

    path: Path | None = None


@dataclass(frozen=True)
class SearchSpaceEntry(Entry):
    """A search space for ``zoo tune``, which a tuning file names as ``search_space: <name>``.

    ``path`` is a YAML file in the form of a tuning file's ``space``: spec paths (as for ``--set``) mapped to
    distributions.
    """

    path: Path | None = None


@dataclass(frozen=True)
class ReporterEntry(Entry):
    """Reports on runs of some environments.

    ``report(runs: list[RunFolder], out: Path) -> list[Path]`` writes figures and tables into ``out``;
    ``compare(a: RunFolder, b: RunFolder) -> str``, when given, compares two runs for ``zoo compare``.
    """

    envs: tuple[str, ...] = ()
    report: Callable[..., Any] | None = None
    compare: Callable[..., Any] | None = None


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
