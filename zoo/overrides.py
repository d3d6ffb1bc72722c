"""Command-line overrides of a spec: ``--set agent.learning_rate=3e-4``, ``--seed 3``, ``--trials 5``, ``--backend``
and the options of a backend (``--address auto`` sets ``backend.address``).

An override replaces one value of the parsed document before it is validated, so it meets the same
checks as the file (unknown fields with did-you-mean, types, bounds). A problem in an overridden
value is reported at the override that set it rather than at a line of the file.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from .errors import Problem, SpecError
from .yamlio import Loc, LocatedDocument, load_text

#: the keys of a spec's backend block that mean the same in every backend
BACKEND_COMMON_KEYS = ("workers", "torch_threads")
_EXPONENT_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")
#: a number without an exponent, as text: a quoted one is refused in spec files (`zoo.spec`) and taken from ``--set``
DECIMAL_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)")


class CommandLineText(str):
    """A number quoted in ``--set`` text (``--set "budget.episodes='5'"``): on a command line everything is text,
    so a number field takes it, where a spec file's quoted number is refused (`zoo.spec.refuse_lax_scalars`)."""


@dataclass
class OverriddenDocument(LocatedDocument):
    """A document with overrides applied; remembers which override set each path."""

    origins: dict[Loc, str] = field(default_factory=dict)

    def problem(self, loc: Loc, message: str) -> Problem:
        for length in range(len(loc), 0, -1):
            origin = self.origins.get(tuple(loc[:length]))
            if origin is not None:
                return Problem(message, origin, None, None, ".".join(str(part) for part in loc))
        return super().problem(loc, message)


def parse_assignment(text: str) -> tuple[Loc, object]:
    """``a.b.c=value`` -> (("a", "b", "c"), value); the value is read as a YAML scalar or flow collection."""
    key, sep, raw = text.partition("=")
    parts = tuple(part.strip() for part in key.split("."))
    if not sep or not all(parts):
        raise SpecError([Problem("expected KEY.PATH=VALUE, e.g. agent.learning_rate=3e-4", f"--set {text}")])
    value = load_text(raw, f"--set {text}").data if raw.strip() else ""
    if isinstance(value, str) and _EXPONENT_FLOAT.fullmatch(value):
        value = float(value)  # YAML 1.1 reads 3e-4 (no dot) as a string; on a command line it is a number
    elif isinstance(value, str) and DECIMAL_NUMBER.fullmatch(value.strip()):
        value = CommandLineText(value)
    return tuple(int(p) if p.isdigit() else p for p in parts), value


@dataclass(frozen=True)
class Overrides:
    """The overrides given on one command line, applied in order: every ``--set``, then ``--seed``, ``--trials``,
    ``--backend`` and the backend's options, ``(flag, field of the backend block, value)`` each."""

    sets: tuple[str, ...] = ()
    seed: int | None = None
    trials: int | None = None
    backend: str | None = None
    backend_fields: tuple[tuple[str, str, object], ...] = ()

    def as_list(self) -> list[str]:
        """The overrides as they were typed (recorded in the run's manifest)."""
        return [origin for _, origin in self._assignments()]

    def _assignments(self) -> list[tuple[str | tuple[Loc, object], str]]:
        out: list = [(text, f"--set {text}") for text in self.sets]
        if self.seed is not None:
            out.append(((("seed",), self.seed), f"--seed {self.seed}"))
        if self.trials is not None:
            out.append(((("trials",), self.trials), f"--trials {self.trials}"))
        if self.backend is not None:
            out.append(((("backend", "type"), self.backend), f"--backend {self.backend}"))
        for flag, name, value in self.backend_fields:
            out.append(((("backend", name), value), f"{flag} {value}"))
        return out

    def apply(self, document: LocatedDocument) -> LocatedDocument:
        """`document` with the overrides applied (the input is left as it was).

        ``--seed`` also drops an explicit ``seeds`` list, which it replaces; ``--backend`` of another type than the
        spec's keeps only the keys every backend has (workers, torch_threads).
        """
        assignments = self._assignments()
        if not assignments or not isinstance(document.data, dict):
            return document  # a spec that is not a mapping gets the spec's own error
        data = copy.deepcopy(document.data)
        if self.seed is not None:
            data.pop("seeds", None)
        block = data.get("backend")
        if self.backend is not None and isinstance(block, dict) and block.get("type", "local") != self.backend:
            data["backend"] = {key: block[key] for key in BACKEND_COMMON_KEYS if key in block}
        origins: dict[Loc, str] = {}
        for assignment, origin in assignments:
            path, value = parse_assignment(assignment) if isinstance(assignment, str) else assignment
            _assign(data, path, value, origin)
            origins[path] = origin
        return OverriddenDocument(data, document.source, dict(document.marks), document.text, origins)


def _assign(data: dict, path: Loc, value: object, origin: str) -> None:
    node = data
    for depth, part in enumerate(path[:-1]):
        child = node.get(part) if isinstance(node, dict) else _item(node, part)
        if child is None and isinstance(node, dict):
            child = node[part] = {}
        if not isinstance(child, (dict, list)):
            where = ".".join(map(str, path[: depth + 1]))
            raise SpecError([Problem(f"{where} is not a mapping or a list, so it has no '{path[depth + 1]}'", origin)])
        node = child
    last = path[-1]
    if isinstance(node, list):
        if not isinstance(last, int) or last >= len(node):
            raise SpecError([Problem(f"index {last} is outside the list of {len(node)} items", origin)])
    node[last] = value


def _item(node: object, part: object) -> object:
    if isinstance(node, list) and isinstance(part, int) and part < len(node):
        return node[part]
    return None
