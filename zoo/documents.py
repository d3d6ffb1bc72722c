"""What ``zoo validate`` checks: a YAML file recognised as a run spec or as a plugin's kind of document.

A file whose top level holds every key of a registered :class:`~zoo.DocumentEntry`'s ``marker`` (a
study: ``base`` and ``runs``) is that kind and is checked by the entry; any other file is a run spec.
With ``build``, a run spec's env, agent and meta-controller are also built once, as ``zoo train``
does before it creates a run folder. Overrides (``--set``) apply to run specs, as ``zoo train`` applies them.
"""

from __future__ import annotations

from pathlib import Path

from .entries import DocumentEntry
from .errors import Problem, SpecError, ZooError
from .overrides import Overrides
from .registry import Registry
from .spec import parse_spec
from .yamlio import load_file


def document_kind(data: object, registry: Registry) -> DocumentEntry | None:
    """The document kind whose marker keys `data` holds (the one with the most keys, when several match)."""
    if not isinstance(data, dict):
        return None
    matches = [entry for entry in registry.entries["document"].values() if all(key in data for key in entry.marker)]
    return max(matches, key=lambda entry: (len(entry.marker), entry.name), default=None)


def validate_file(path: Path, registry: Registry, *, build: bool = False, overrides: Overrides | None = None) -> str:
    """Check one file; returns what it is, in one line. Raises SpecError (problems with their places) or ZooError."""
    document = load_file(path)
    kind = document_kind(document.data, registry)
    if kind is not None and overrides is not None and overrides.sets:
        raise ZooError(f"--set changes run specs; this file is a {kind.name}, which takes none")
    if kind is not None:
        try:
            return f"{kind.name}: {kind.validate(path, registry, build)}"
        except ZooError:
            raise
        except Exception as exc:  # a bug of the plugin's, not of the file
            raise ZooError(f"the {kind.name} check of plugin '{kind.plugin}' failed: {type(exc).__name__}: {exc}") from exc
    spec = parse_spec(overrides.apply(document) if overrides is not None else document, registry)
    if build:
        from .run import preflight

        preflight(spec, registry)
    meta = f", meta-controller {spec.meta_controller.type}" if spec.meta_controller is not None else ""
    return (f"env {spec.env.type}, agent {spec.agent.type}{meta}, "
            f"{spec.trials} trial(s) x {spec.budget.amount} {spec.budget.unit}{', built' if build else ''}")


def validate_files(paths: list[Path], registry: Registry, *, build: bool = False, overrides: Overrides | None = None,
                   echo=print) -> None:
    """Check every file, echoing ``ok: PATH (what it is)`` for the good ones; then raise one SpecError for all the others."""
    problems: list[Problem] = []
    for path in paths:
        try:
            summary = validate_file(path, registry, build=build, overrides=overrides)
        except SpecError as exc:
            problems += exc.problems
            continue
        except ZooError as exc:
            problems.append(Problem(str(exc), str(path)))
            continue
        echo(f"ok: {path} ({summary})")
    if problems:
        raise SpecError(problems)
