"""Every bool, int and float field of every registered entry's params, at any depth, refuses lax coercion.

The walk follows nested models (also inside lists and optional fields) and puts a value that
pydantic's lax mode would coerce at each scalar field in turn: a boolean for a number, a number
for a boolean, a list holding either. The entry's spec model must refuse it at that field's path.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any, Union

import pytest
from pydantic import BaseModel, ValidationError

from zoo.registry import get_registry
from zoo.spec import tagged_model

NUMBERS = (int, float)


def members(annotation: Any) -> list[Any]:
    """The kinds a field holds, None left out (Optional and unions opened)."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) if arg is not type(None) for m in members(arg)]
    return [annotation]


def lax_value(kinds: list[Any]) -> Any | None:
    """A value lax mode would coerce into one of these scalar kinds, or None when they take no scalar."""
    if bool in kinds:
        return None if any(k in NUMBERS for k in kinds) else 1.0  # 1.0 for a boolean
    return True if any(k in NUMBERS for k in kinds) else None  # true for a number


def required_choices(model: type[BaseModel]) -> dict[str, Any]:
    """The first allowed value of each required Literal field (a preset's name), so that the model's own
    validators accept the block the value is put in."""
    return {name: typing.get_args(field.annotation)[0] for name, field in model.model_fields.items()
            if field.is_required() and typing.get_origin(field.annotation) is typing.Literal}


def lax_inputs(model: type[BaseModel], seen: frozenset = frozenset()) -> Iterator[tuple[tuple, dict]]:
    """(path, params) for every scalar field under `model`: params put a lax value at that path."""
    base = required_choices(model)
    for name, field in model.model_fields.items():
        if name == "type":
            continue
        kinds = members(field.annotation)
        value = lax_value(kinds)
        if value is not None:
            yield (name,), {**base, name: value}
        for kind in kinds:
            origin, args = typing.get_origin(kind), typing.get_args(kind)
            if origin in (list, tuple) and args:
                items = [m for a in args if a is not Ellipsis for m in members(a)]
                nested = lax_value(items)
                if nested is not None:
                    yield (name,), {**base, name: [nested] * (len(args) if origin is tuple and Ellipsis not in args else 1)}
                for item in {m for m in items if isinstance(m, type) and issubclass(m, BaseModel) and m not in seen}:
                    yield from (((name, 0, *path), {**base, name: [params]}) for path, params in lax_inputs(item, seen | {model}))
            if isinstance(kind, type) and issubclass(kind, BaseModel) and kind not in seen:
                yield from (((name, *path), {**base, name: params}) for path, params in lax_inputs(kind, seen | {model}))


ENTRIES = [(kind, name) for kind in ("env", "agent", "meta_controller") for name in sorted(get_registry().entries[kind])]


@pytest.mark.parametrize("kind,name", ENTRIES, ids=[f"{k}:{n}" for k, n in ENTRIES])
def test_every_scalar_field_refuses_lax_values(kind, name):
    model = tagged_model(kind, name, get_registry().get(kind, name).params)
    cases = list(lax_inputs(model))
    for path, params in cases:
        with pytest.raises(ValidationError) as excinfo:
            model.model_validate({"type": name, **params})
        refused = [e for e in excinfo.value.errors() if e["loc"] == path and "expected" in e["msg"]]
        assert refused, f"{kind} {name}: {params} was not refused at {'.'.join(map(str, path))}: {excinfo.value}"


def test_the_walk_reaches_nested_models():
    """The walk itself: the substrate's network and optimizer, SB3's policy_kwargs, LBC's members, GOHR's board."""
    registry = get_registry()
    paths = {(kind, name): {path for path, _ in lax_inputs(registry.get(kind, name).params)} for kind, name in ENTRIES}
    assert ("network", "hidden") in paths["agent", "gdi-i3"] and ("optimizer", "decay") in paths["agent", "dice"]
    assert ("policy_kwargs", "ortho_init") in paths["agent", "ppo"] and ("board", "max_objects") in paths["env", "gohr"]
    assert any(path[:2] == ("members", 0) for path in paths["agent", "lbc"])
    assert ("learning_rate",) in paths["agent", "ppo"]  # float or a schedule's name
