"""What the registry checks before it accepts an entry or a plugin module.

An entry is refused when a spec naming it could never validate, be written out or be listed:
params that are not a pydantic model, params without a JSON Schema, defaults their own fields
refuse, a field called ``type`` (the zoo's tag), a factory that cannot be called. A plugin's
functions are linted for hooks that would silently never be called.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from .entries import BackendEntry, BackendParams, DocumentEntry, Entry, KindEntry
from .errors import did_you_mean
from .hookspecs import PROJECT

#: the spec key that names an entry; a params model may not declare it
RESERVED_FIELDS = ("type",)
#: a backend's command-line flag: two dashes, then lower-case words joined by dashes
OPTION_FLAG = re.compile(r"--[a-z][a-z0-9]*(-[a-z0-9]+)*")


def entry_problem(entry: Entry) -> str | None:
    """Why `entry` cannot be registered, in one phrase; None when it can."""
    if not isinstance(entry.name, str) or not entry.name or entry.name != entry.name.strip():
        return f"its name must be a non-empty string without surrounding spaces, got {entry.name!r}"
    if ":" in entry.name:
        return f"its name may not hold ':', which separates a plugin from a name (PLUGIN:NAME), got {entry.name!r}"
    callables = {DocumentEntry: ("validate",), KindEntry: ()}.get(type(entry), ("factory",) if hasattr(entry, "factory") else ())
    for attribute in callables:
        if not callable(getattr(entry, attribute)):
            return f"its {attribute} must be callable, got {type(getattr(entry, attribute)).__name__}"
    if isinstance(entry, BackendEntry):
        problem = _backend_problem(entry)
        if problem is not None:
            return problem
    if isinstance(entry, DocumentEntry) and not (entry.marker and all(isinstance(key, str) for key in entry.marker)):
        return "its marker must name the top-level keys that identify its files (without any, every file would match)"
    if isinstance(entry, KindEntry):
        return kind_problem(entry)
    return params_problem(entry.params)


def kind_problem(kind: KindEntry) -> str | None:
    """Why a :class:`KindEntry` cannot be registered, in one phrase; None when it can."""
    if not (isinstance(kind.entry, type) and issubclass(kind.entry, Entry)):
        return f"its entry must be a subclass of zoo.entries.Entry, got {kind.entry!r}"
    if not kind.label:
        return "its label must say what a user calls one of its entries"
    spec = getattr(kind.hookspecs, kind.hook, None) if kind.hook else None
    if not hasattr(spec, f"{PROJECT}_spec"):
        return f"its hookspecs must hold a function '{kind.hook}' marked with @zoo.hookspec"
    return None


def _backend_problem(entry: BackendEntry) -> str | None:
    """Why a backend entry's params, options or capabilities cannot work, in one phrase; None when they can."""
    if not (isinstance(entry.params, type) and issubclass(entry.params, BackendParams)):
        return "its params must derive from zoo.BackendParams (every backend has workers and torch_threads)"
    if entry.check is not None and not callable(entry.check):
        return f"its check must be callable, got {type(entry.check).__name__}"
    if not (isinstance(entry.capabilities, frozenset) and all(isinstance(c, str) for c in entry.capabilities)):
        return "its capabilities must be a frozenset of strings"
    for option in entry.options:
        if not isinstance(option.flag, str) or not OPTION_FLAG.fullmatch(option.flag):
            return f"its option {option.flag!r} is no flag such as '--address' (lower-case words joined by '-')"
        if option.field not in entry.params.model_fields:
            return (f"its option {option.flag} sets the field '{option.field}', which its params lack"
                    f"{did_you_mean(str(option.field), list(entry.params.model_fields))}")
    return None


def params_problem(params: Any) -> str | None:
    """Why `params` cannot be an entry's params model, in one phrase; None when it can."""
    if not (isinstance(params, type) and issubclass(params, BaseModel)):
        got = getattr(params, "__name__", type(params).__name__)
        kind = "dataclass " if inspect.isclass(params) and hasattr(params, "__dataclass_fields__") else ""
        return f"params must be a pydantic model class (derive it from zoo.Params), got {kind}{got}"
    reserved = [name for name in RESERVED_FIELDS if name in params.model_fields]
    if reserved:
        return f"params declare the field '{reserved[0]}', which the zoo reserves for the entry's name; rename it"
    try:
        params.model_json_schema()
    except Exception as exc:  # pydantic raises several kinds here; the field is what the author needs
        culprit = _field_without_schema(params) or type(exc).__name__
        return f"params have no JSON Schema ({culprit}); use JSON-ready types"
    return _defaults_problem(params)


def _field_without_schema(params: type[BaseModel]) -> str | None:
    for name, info in params.model_fields.items():
        try:
            TypeAdapter(info.annotation).json_schema()
        except Exception:
            type_name = getattr(info.annotation, "__name__", None) or str(info.annotation).replace("typing.", "")
            return f"field '{name}' of type {type_name}"
    return None


def _defaults_problem(params: type[BaseModel]) -> str | None:
    """A default its own field refuses, or defaults that cannot be written as JSON (what a run folder holds).

    The defaults are validated as if a spec had given them; required fields are left to the spec.
    """
    defaults = {info.alias or name: info.get_default(call_default_factory=True)
                for name, info in params.model_fields.items() if not info.is_required()}
    try:
        instance = params.model_validate(defaults)
    except ValidationError as exc:
        wrong = [error for error in exc.errors() if error["type"] != "missing"]
        if not wrong:
            return None
        where = ".".join(map(str, wrong[0]["loc"])) or "its defaults"
        return f"the default of '{where}' is invalid: {wrong[0]['msg']}"
    except Exception as exc:  # a validator of the plugin's that raises something else
        return f"its defaults cannot be validated: {type(exc).__name__}: {exc}"
    try:
        instance.model_dump(mode="json")
    except Exception as exc:
        return f"its defaults cannot be written as JSON: {type(exc).__name__}: {exc}"
    return None


def hook_lint(plugin: Any, hook_names: list[str]) -> list[str]:
    """Warnings about functions of `plugin` that look like hooks but that the zoo will never call.

    A function named like a hook (``register_*`` or close to a hook's name) that is not marked with
    ``hookimpl``, and a marked one whose name is no hook; each with a did-you-mean.
    """
    marker = f"{PROJECT}_impl"
    home = getattr(plugin, "__name__", None) if inspect.ismodule(plugin) else None
    warnings = []
    for name in sorted(dir(plugin)):
        if name.startswith("_"):
            continue
        function = getattr(plugin, name, None)
        if not callable(function) or inspect.isclass(function):
            continue
        if home is not None and getattr(function, "__module__", home) != home:
            continue  # imported from elsewhere
        marked = hasattr(function, marker)
        hint = did_you_mean(name, hook_names)
        if name in hook_names and not marked:
            warnings.append(f"function '{name}' is not marked with @zoo.hookimpl, so the zoo never calls it")
        elif name not in hook_names and (marked or name.startswith("register_") or hint):
            what = "is marked with @zoo.hookimpl but" if marked else "looks like a hook but"
            warnings.append(f"function '{name}' {what} is no zoo hook{hint}, so the zoo never calls it")
    return warnings
