"""``zoo describe KIND NAME``: one entry's parameters, their types, defaults and descriptions.

Nested parameter models (an agent's ``policy_kwargs``, a GOHR env's ``board``) are listed field by
field under dotted names, as a ``--set`` override or a spec would address them.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined


@dataclass(frozen=True)
class FieldRow:
    """One parameter as ``zoo describe`` shows it."""

    name: str
    type: str
    default: str
    description: str


def parameter_rows(model: type[BaseModel], prefix: str = "") -> list[FieldRow]:
    """Every field of `model` (and of the parameter models nested in it), in declaration order."""
    rows = []
    for name, info in model.model_fields.items():
        if name == "type" and not prefix:
            continue  # the tag that names the entry itself
        nested = _nested_model(info.annotation)
        if info.default_factory is not None:
            default = _text(info.default_factory()) if nested is None else "(see below)"
        elif info.default is PydanticUndefined:
            default = "required"
        else:
            default = _text(info.default)
        description = info.description or (_first_line(nested.__doc__) if nested is not None else "")
        rows.append(FieldRow(prefix + name, type_name(info.annotation), default, description))
        if nested is not None:
            rows += parameter_rows(nested, prefix + name + ".")
    return rows


def undescribed(model: type[BaseModel]) -> list[str]:
    """The dotted names of the fields of `model` that have no description."""
    return [row.name for row in parameter_rows(model) if not row.description.strip()]


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(members) == 1:
        return _nested_model(members[0])  # an optional block: Model | None
    return None


def type_name(annotation: Any) -> str:
    """A short, readable name of a field's type: ``int``, ``float | None``, ``'tanh' | 'relu'``, ``list[int]``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(repr(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(arg) for arg in args)
    if origin is typing.Annotated:
        return type_name(args[0])
    if annotation is type(None):
        return "None"
    if origin is not None:
        return f"{getattr(origin, '__name__', str(origin))}[{', '.join(type_name(arg) for arg in args)}]"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))


def _first_line(text: str | None) -> str:
    return (text or "").strip().split("\n")[0]


def _text(value: Any) -> str:
    if isinstance(value, BaseModel):
        return "(see below)"
    return repr(value) if isinstance(value, str) else str(value)
