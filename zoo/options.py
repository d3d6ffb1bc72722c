"""The options that the commands starting runs share: ``--set``, ``--seed``, ``--trials`` and ``--backend``.

Plugins that add such a command (``zoo tune``, ``zoo study``) declare its options with these factories, so
that every command reads them alike. A command decorated with `backend_options` declares one parameter, ``backend: BackendChoice``. In its place the
command line shows ``--backend`` and every option of every registered backend (`zoo.BackendOption`), read from
the registry when typer builds the command, so that a plugin's backend brings its own options
(a cluster backend's ``--address``). An option given without ``--backend`` selects the backend it belongs to.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from .errors import ZooError
from .registry import get_registry

log = logging.getLogger("zoo")
_warned: set[tuple[str, str]] = set()  # (backend, flag) of the options refused, each warned about once


def set_option():
    """``--set KEY.PATH=VALUE`` (repeatable): overrides of single values of the spec."""
    return typer.Option([], "--set", metavar="KEY.PATH=VALUE",
                        help="Override one value of the spec, e.g. agent.learning_rate=3e-4 (repeatable).")


def seed_option():
    """``--seed N``: the spec's seed (its seeds list dropped)."""
    return typer.Option(None, "--seed", min=0, max=2**32 - 1, help="Override the spec's seed (and drop its seeds list).")


def trials_option():
    """``--trials N``: the spec's number of trials."""
    return typer.Option(None, "--trials", min=1, max=100_000, help="Override the spec's number of trials.")


@dataclass(frozen=True)
class BackendChoice:
    """What the command line says of the backend: its name (None: the spec's) and ``(flag, field, value)`` of each
    backend option given; the fields of `zoo.overrides.Overrides` of the same names."""

    backend: str | None = None
    backend_fields: tuple[tuple[str, str, object], ...] = ()


class backend_options:  # noqa: N801 (used as a decorator, named like one)
    """Decorator: `command`'s ``backend`` parameter becomes ``--backend`` and the registered backends' options."""

    def __init__(self, command: Callable[..., Any]):
        self.command = command
        self.__name__, self.__qualname__ = command.__name__, command.__qualname__
        self.__module__, self.__doc__ = command.__module__, command.__doc__

    @property
    def __signature__(self) -> inspect.Signature:
        own = inspect.signature(self.command, eval_str=True)
        parameters = [p for name, p in own.parameters.items() if name != "backend"]
        parameters.append(inspect.Parameter(
            "backend", inspect.Parameter.KEYWORD_ONLY, annotation=str | None,
            default=typer.Option(None, "--backend", metavar="NAME",
                                 help="Override the spec's backend type (zoo list backend shows them; docs/plugins.md).")))
        for parameter, backend, option in self._backend_options():
            parameters.append(inspect.Parameter(
                parameter, inspect.Parameter.KEYWORD_ONLY, annotation=option.type | None,
                default=typer.Option(None, option.flag, metavar=option.metavar,
                                     help=f"{option.help} (the {backend} backend; sets backend.{option.field})")))
        return own.replace(parameters=sorted(parameters, key=lambda p: p.kind))

    @property
    def __annotations__(self) -> dict[str, Any]:  # what typing.get_type_hints reads
        return {name: p.annotation for name, p in self.__signature__.parameters.items()}

    def _backend_options(self) -> list[tuple[str, str, Any]]:
        """Every registered backend's options whose flag is free, as (parameter name, backend, option); read from
        the registry at each call, so the command line and the call that follows it agree."""
        registry, taken, found = get_registry(), _flags(inspect.signature(self.command)) | {"--backend"}, []
        for backend in registry.names("backend"):
            for option in registry.entries["backend"][backend].options:
                if option.flag in taken:
                    if (backend, option.flag) not in _warned:
                        _warned.add((backend, option.flag))
                        log.warning("backend '%s': its option %s is taken by the command or another backend; ignored",
                                    backend, option.flag)
                    continue
                taken.add(option.flag)
                found.append((f"backend_option_{len(found)}", backend, option))
        return found

    def __call__(self, **kwargs: Any) -> Any:
        name = kwargs.pop("backend")
        given = [(backend, option, kwargs.pop(parameter)) for parameter, backend, option in self._backend_options()]
        kwargs["backend"] = choose_backend(name, [(backend, option.flag, option.field, value)
                                                  for backend, option, value in given if value is not None])
        return self.command(**kwargs)


def choose_backend(name: str | None, options: list[tuple[str, str, str, object]]) -> BackendChoice:
    """The choice of ``--backend NAME`` (checked against the registry) and of the backend options given, as
    ``(backend, flag, field, value)``; options alone select their backend, and options of another backend are refused."""
    registry = get_registry()
    if name is not None and name not in registry.entries["backend"]:
        raise ZooError(f"--backend: {registry.unknown_message('backend', name)}")
    owners = sorted({backend for backend, *_ in options})
    if len(owners) > 1 or (owners and name is not None and owners[0] != name):
        chosen = f"--backend {name}" if name is not None else f"the options of backend '{owners[0]}'"
        foreign = [flag for backend, flag, *_ in options if backend != (name or owners[0])]
        raise ZooError(f"{', '.join(foreign)}: an option of another backend than {chosen}; give the options of one backend")
    return BackendChoice(name or (owners[0] if owners else None),
                         tuple((flag, field, value) for _, flag, field, value in options))


def _flags(signature: inspect.Signature) -> set[str]:
    """The long flags a command's own options take."""
    flags = set()
    for name, parameter in signature.parameters.items():
        if isinstance(parameter.default, typer.models.OptionInfo):
            declared = [d for part in parameter.default.param_decls or () for d in part.split("/")]
            flags.update(d for d in declared if d.startswith("--") or not d.startswith("-"))
            if not declared:
                flags.add("--" + name.replace("_", "-"))
    return flags
