"""Run specs: the pydantic models of a run, built from the plugins that are installed.

The env, agent, meta-controller and backend blocks are tagged unions on their ``type`` key, with one
member per registered entry, so a spec is checked in full, plugin params included, before
anything is built. Problems are reported with the YAML file, line and field path.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import types
import typing
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from .errors import Problem, SpecError, ZooError, did_you_mean
from .overrides import DECIMAL_NUMBER, CommandLineText
from .registry import KINDS, Registry
from .tracking import TENSORBOARD
from .yamlio import Loc, LocatedDocument, load_file, load_text

#: spec field -> registry kind, for the blocks that name a plugin entry
PLUGIN_BLOCKS = {"env": "env", "agent": "agent", "meta_controller": "meta_controller"}


def refuse_lax_scalars(cls, value: Any, info: ValidationInfo) -> Any:
    """Refuse the scalar coercions of pydantic's lax mode that hide mistakes in a spec.

    A boolean is not a number (lax mode reads ``steps: true`` as one step) and only ``true`` or
    ``false`` is a boolean (lax mode takes 0, 1, "yes", "off"...). A quoted number (``'5'``) is text,
    not a number, unless it came from ``--set`` text (`CommandLineText`). Integral floats stay whole
    numbers, and ``1e5``, which YAML 1.1 reads as a string, is read as the number it means.
    Pydantic's strict mode would also refuse lists for tuples and strings for enums, which specs need.
    """
    field = cls.model_fields.get(info.field_name) if info.field_name else None
    if field is None:
        return value
    kinds = _scalar_kinds(field.annotation)
    if kinds is not None:
        return _strict_scalar(kinds, value)
    item_kinds = _item_kinds(field.annotation)
    if item_kinds is not None and isinstance(value, (list, tuple)):
        items = []
        for i, item in enumerate(value):
            try:
                items.append(_strict_scalar(item_kinds, item))
            except ValueError as exc:
                raise ValueError(f"item {i}: {exc}") from None
        return type(value)(items)
    return value


_STRICT_MODELS: dict[type[BaseModel], type[BaseModel]] = {}


def strict_model(model: type[BaseModel]) -> type[BaseModel]:
    """A subclass of `model` whose scalar fields, and those of every model nested in its fields (in
    lists, dicts and unions too), refuse lax coercion (`refuse_lax_scalars`); `model` if nothing changes."""
    if model not in _STRICT_MODELS:
        _STRICT_MODELS[model] = model  # a model nested in itself stays as it is below
        nested = {name: (strict, _strict_defaults(field)) for name, field in model.model_fields.items()
                  if (strict := _strict_annotation(field.annotation)) is not field.annotation}
        scalars = [name for name, field in model.model_fields.items()
                   if name != "type" and (_scalar_kinds(field.annotation) or _item_kinds(field.annotation))]
        validators = ({"_strict_scalars": field_validator(*scalars, mode="before", check_fields=False)(refuse_lax_scalars)}
                      if scalars else {})
        if nested or validators:
            _STRICT_MODELS[model] = create_model(model.__name__, __base__=model, __module__=model.__module__,
                                                 __doc__=model.__doc__, __validators__=validators, **nested)
    return _STRICT_MODELS[model]


def _strict_defaults(field: FieldInfo) -> FieldInfo:
    """A copy of `field` whose default (or default factory's) models are their `strict_model`s, as its annotation's are."""
    field = copy.copy(field)
    if field.default_factory is not None:
        factory = field.default_factory
        field.default_factory = (lambda data: _as_strict(factory(data))) if field.default_factory_takes_validated_data else (
            lambda: _as_strict(factory()))
    elif field.default is not PydanticUndefined:
        field.default = _as_strict(field.default)
    return field


def _as_strict(value: Any) -> Any:
    """`value` with each model in it (also in lists and tuples) validated again as its `strict_model`."""
    if isinstance(value, BaseModel):
        strict = strict_model(type(value))
        return value if strict is type(value) else strict.model_validate(value.model_dump())
    if isinstance(value, (list, tuple)):
        return type(value)(_as_strict(item) for item in value)
    return value


def _strict_annotation(annotation: Any) -> Any:
    """`annotation` with each pydantic model in it replaced by its `strict_model` (the same object if none is)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return strict_model(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is None or not args or origin is Literal:
        return annotation
    if origin is Annotated:
        inner = _strict_annotation(args[0])
        return annotation if inner is args[0] else Annotated[(inner, *annotation.__metadata__)]
    new = tuple(_strict_annotation(arg) for arg in args)
    if all(a is b for a, b in zip(new, args)):
        return annotation
    if origin in (Union, types.UnionType):
        return Union[new]  # noqa: UP007 (a union of a runtime tuple)
    return origin[new]


_EXPONENT_NUMBER = re.compile(r"[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+")


def _strict_scalar(kinds: frozenset[type], value: Any) -> Any:
    """`value` for a field of these scalar kinds (int, float, bool; see `_scalar_kinds`), or a ValueError."""
    if value is None:
        return value
    if isinstance(value, bool):
        if bool not in kinds and kinds & {int, float}:
            noun = "a whole number" if kinds - {object} == {int} else "a number"
            raise ValueError(f"expected {noun}, not a boolean (given {str(value).lower()})")
        return value
    if kinds == {bool}:
        raise ValueError(f"expected true or false (given {_short(value)})")
    if kinds == {int} and isinstance(value, str) and _EXPONENT_NUMBER.fullmatch(value.strip()):
        return float(value)
    if (isinstance(value, str) and not isinstance(value, CommandLineText) and object not in kinds
            and DECIMAL_NUMBER.fullmatch(value.strip())):
        noun = "a whole number" if kinds == {int} else "a number"
        raise ValueError(f"expected {noun}, not the text '{value}'; write it without quotes: {value.strip()}")
    return value


def _scalar_kinds(annotation: Any) -> frozenset[type] | None:
    """The scalar kinds (int, float, bool) a field holds, None when it holds none.

    ``object`` among them means the field also takes values of other kinds (``float | str``,
    ``int | Literal['auto']``); of those fields only a boolean given for a number is refused.
    """
    if annotation in (int, float, bool):
        return frozenset({annotation})
    if typing.get_origin(annotation) in (Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        kinds = frozenset(arg for arg in members if arg in (int, float, bool))
        if not kinds:
            return None
        return kinds | {object} if len(kinds) < len(members) else kinds
    return None


def _item_kinds(annotation: Any) -> frozenset[type] | None:
    """The scalar kinds of a list's or tuple's items (``list[int]``, ``tuple[int, ...]``), if they have one."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        kinds = {_item_kinds(arg) for arg in typing.get_args(annotation) if arg is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    if typing.get_origin(annotation) not in (list, tuple):
        return None
    args = [arg for arg in typing.get_args(annotation) if arg is not Ellipsis]
    kinds = {_scalar_kinds(typing.get_args(arg)[0] if typing.get_origin(arg) is Annotated else arg) for arg in args}
    return kinds.pop() if len(kinds) == 1 else None


RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
RUN_NAME_RULE = "a run name is 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    _strict_scalars = field_validator("*", mode="before")(refuse_lax_scalars)


class Budget(_Strict):
    """How long each trial trains (in environment steps or in episodes), and how often it is checkpointed."""

    steps: int | None = Field(default=None, gt=0, le=10**12, description="environment steps per trial")
    episodes: int | None = Field(default=None, gt=0, le=10**9, description="episodes per trial (instead of steps)")
    checkpoint_every: int | None = Field(
        default=None, gt=0, le=10**12, description="steps (or episodes) between checkpoints (default: a tenth of the budget)"
    )
    eval_episodes: int = Field(default=0, ge=0, le=100_000, description="evaluation episodes at the end of each trial")
    eval_every: int | None = Field(
        default=None, gt=0, le=10**12,
        description="steps (or episodes) between evaluations of eval_episodes episodes; the best is kept as a checkpoint")

    @model_validator(mode="after")
    def _one_unit(self):
        if (self.steps is None) == (self.episodes is None):
            raise ValueError("give the budget in steps or in episodes (exactly one of them)")
        if self.eval_every is not None and not self.eval_episodes:
            raise ValueError("eval_every evaluates eval_episodes episodes; give eval_episodes too")
        return self

    @property
    def unit(self) -> str:
        """'steps' or 'episodes'."""
        return "steps" if self.steps is not None else "episodes"

    @property
    def amount(self) -> int:
        return self.steps if self.steps is not None else self.episodes

    @property
    def checkpoint_interval(self) -> int:
        return self.checkpoint_every or max(1, self.amount // 10)


#: the backend of a spec without a backend block, or of a block without ``type``
DEFAULT_BACKEND = "local"
BACKEND_TYPE_ERROR = "backend_type"


def _backend_tag(value: Any) -> str | None:
    """The union tag of a backend block; a block without ``type`` is local (tags carry brackets so error paths leave them out)."""
    kind = value.get("type", DEFAULT_BACKEND) if isinstance(value, dict) else getattr(value, "type", None)
    return f"backend[{kind}]" if isinstance(kind, str) else None


class Logging(_Strict):
    """What a run records besides its metrics file: TensorBoard events, other trackers, progress, checkpoints.

    `logging_model` adds one optional field per installed tracker, its settings (``mlflow: {...}``).
    """

    tensorboard: bool = Field(default=True, description="TensorBoard events in each trial's tb/ folder")
    trackers: list[str] = Field(default_factory=list, max_length=20,
                                description="experiment trackers besides TensorBoard (zoo list tracker)")
    progress: bool = True
    keep_checkpoints: int = Field(default=2, ge=1, le=1000, description="checkpoints kept per trial")

    @model_validator(mode="after")
    def _trackers_known(self) -> Logging:
        installed = [name for name in type(self).model_fields if name not in Logging.model_fields]
        for name in self.trackers:
            if name == TENSORBOARD:
                raise ValueError("TensorBoard is switched by 'tensorboard: true|false', not listed in trackers")
            if name not in installed:
                raise ValueError(f"trackers: unknown tracker '{name}'{did_you_mean(name, installed)};"
                                 f" installed: {', '.join(installed) or 'none'}")
        if len(set(self.trackers)) < len(self.trackers):
            raise ValueError("trackers: a tracker is listed twice")
        for name in installed:
            if getattr(self, name) is not None and name not in self.trackers:
                raise ValueError(f"settings for '{name}' are given but it is not in trackers; add it: trackers: [{name}]")
        return self


def logging_model(registry: Registry) -> type[Logging]:
    """The logging block with one optional settings field per installed tracker (TensorBoard's is ``tensorboard``)."""
    fields = {name: (strict_model(entry.params) | None, None)
              for name, entry in sorted(registry.entries["tracker"].items()) if name != TENSORBOARD}
    return create_model("Logging", __base__=Logging, __module__=__name__, **fields)


class SpecBase(_Strict):
    """Fields common to every run spec; plugin blocks are added per installed plugins."""

    name: str | None = Field(default=None, description="run name; letters, digits, '.', '_', '-'")
    description: str = Field(default="", max_length=10_000)
    budget: Budget
    trials: int = Field(default=1, ge=1, le=100_000)
    seed: int = Field(default=0, ge=0, lt=2**32)
    seeds: list[Annotated[int, Field(ge=0, lt=2**32)]] | None = Field(default=None, max_length=100_000)
    logging: Logging = Logging()

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str | None) -> str | None:
        if value is not None and not RUN_NAME.fullmatch(value):
            raise ValueError(RUN_NAME_RULE)
        return value

    @field_validator("seeds")
    @classmethod
    def _seeds_match_trials(cls, value: list[int] | None, info: ValidationInfo) -> list[int] | None:
        trials = info.data.get("trials")
        if value is not None and trials is not None and len(value) != trials:
            raise ValueError(f"{len(value)} seeds for {trials} trials; give one seed per trial or none")
        return value

    def trial_seeds(self) -> list[int]:
        """One seed per trial: the explicit list, or seeds derived from `seed`."""
        if self.seeds is not None:
            return list(self.seeds)
        import numpy as np

        children = np.random.SeedSequence(self.seed).spawn(self.trials)
        return [int(child.generate_state(1)[0]) for child in children]


def tagged_model(kind: str, entry_name: str, params: type[BaseModel], *, tag_default: bool = False) -> type[BaseModel]:
    """A subclass of `params` with a ``type`` tag (which may be left out with `tag_default`); unknown keys are errors,
    scalars are strict at every depth (`strict_model`)."""
    config = dict(params.model_config)
    config["extra"] = "forbid"
    namespace = {
        **({"type": entry_name} if tag_default else {}),
        "__annotations__": {"type": Literal[entry_name]},
        "__module__": params.__module__,
        "__doc__": params.__doc__,
        "model_config": ConfigDict(**config),
        "_contain_plugin_errors": model_validator(mode="wrap")(_contained(kind, entry_name)),
    }
    return type(f"{params.__name__}[{kind}:{entry_name}]", (strict_model(params),), namespace)


def _contained(kind: str, entry_name: str):
    """A wrap validator that turns an exception other than a validation error, raised by a plugin's own
    validators on input they did not expect, into a problem of the block instead of a crash."""

    def contain(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except (ValueError, AssertionError):  # pydantic's errors, and what validators are meant to raise
            raise
        except ZooError as exc:  # a plugin's own clean message
            raise ValueError(str(exc)) from None
        except Exception as exc:
            raise ValueError(
                f"the {KINDS[kind][2]} '{entry_name}' could not check these params"
                f" ({type(exc).__name__}: {exc}); a bug in its plugin, triggered by a value of the wrong kind"
            ) from None

    return contain


@lru_cache(maxsize=8)
def spec_model(registry: Registry) -> type[SpecBase]:
    """The RunSpec model for the plugins loaded in `registry` (cached per registry)."""
    fields: dict[str, Any] = {}
    for block, kind in PLUGIN_BLOCKS.items():
        members = [tagged_model(kind, n, e.params) for n, e in sorted(registry.entries[kind].items())]
        if not members:
            annotation: Any = dict[str, Any]
        elif len(members) == 1:
            annotation = members[0]
        else:
            annotation = Annotated[Union[tuple(members)], Field(discriminator="type")]  # noqa: UP007 (a union of a runtime tuple)
        if block == "meta_controller":
            fields[block] = (annotation | None, None)
        else:
            fields[block] = (annotation, ...)
    fields["backend"] = _backend_field(registry)
    fields["logging"] = (logging_model(registry), Field(default_factory=dict, validate_default=True))
    return create_model("RunSpec", __base__=SpecBase, **fields)


def _backend_field(registry: Registry) -> tuple[Any, Any]:
    """The backend block: a union of the registered backends, tagged by ``type`` (absent: the default backend)."""
    names = registry.names("backend")
    members = [Annotated[tagged_model("backend", name, registry.entries["backend"][name].params, tag_default=True),
                         Tag(f"backend[{name}]")] for name in names]
    annotation = Annotated[
        Union[tuple(members)] if len(members) > 1 else members[0],  # noqa: UP007 (a union of a runtime tuple)
        Discriminator(_backend_tag, custom_error_type=BACKEND_TYPE_ERROR, custom_error_message=_one_of(names)),
    ]
    return annotation, Field(default_factory=lambda: {"type": DEFAULT_BACKEND}, validate_default=True)


def _one_of(names: list[str]) -> str:
    """Pydantic's wording of a choice: "Input should be 'a', 'b' or 'c'"."""
    quoted = [f"'{name}'" for name in names]
    return "Input should be " + (f"{', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else quoted[0])


def json_schema(registry: Registry) -> dict[str, Any]:
    """The JSON Schema of a run spec with the installed plugins (for editor completion)."""
    schema = spec_model(registry).model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "zoo run spec"
    return schema


#: the validation context of a run's resolved spec (`reading_resolved_spec`)
RESOLVED_CONTEXT = {"resolved_spec": True}


def reading_resolved_spec(info: ValidationInfo) -> bool:
    """Whether a params validator is reading a run's resolved spec, which holds every value the run used: a
    validator that fills values in (e.g. from a named preset) leaves the data as it is, so that a preset
    changed since the run was made does not change it (a field the run predates takes its default)."""
    return bool(info.context and info.context.get("resolved_spec"))


def parse_spec(document: LocatedDocument, registry: Registry, *, resolved: bool = False) -> SpecBase:
    """Validate a parsed document into a RunSpec, or raise SpecError listing every problem. `resolved`: the
    document is a run's resolved spec (see `reading_resolved_spec`)."""
    data = document.data
    if not isinstance(data, dict):
        raise SpecError([document.problem((), "a spec is a mapping with env, agent and budget keys")])
    problems = _check_plugin_names(document, registry)
    if problems:
        raise SpecError(problems)
    document = dataclasses.replace(document, data=_registered_types(data, registry))
    model = spec_model(registry)
    try:
        spec = model.model_validate(document.data, context=RESOLVED_CONTEXT if resolved else None)
    except ValidationError as exc:
        raise SpecError([_problem(document, error, model) for error in exc.errors()]) from None
    if spec.meta_controller is not None and not registry.entries["agent"][spec.agent.type].behavior_space:
        behavior_agents = [name for name, entry in sorted(registry.entries["agent"].items()) if entry.behavior_space]
        raise SpecError([document.problem(
            ("meta_controller",),
            f"agent '{spec.agent.type}' declares no behavior space, so it takes no meta-controller; remove this block"
            f" or use an agent that has one: {', '.join(behavior_agents) or 'none installed'}",
        )])
    return spec


def load_spec(path: str | Path, registry: Registry) -> SpecBase:
    """Read, parse and validate a spec file, including the run name its file stem would give."""
    spec = parse_spec(load_file(path), registry)
    run_name(spec, path)
    return spec


def run_name(spec: SpecBase, path: str | Path) -> str:
    """The name of a run of `spec`: its ``name``, or else the stem of its file, held to the same rule."""
    if spec.name is not None:
        return spec.name
    stem = Path(path).stem
    if not RUN_NAME.fullmatch(stem):
        raise SpecError([Problem(
            f"the file name {_short(stem)} cannot name the run ({RUN_NAME_RULE}); give the spec a 'name:' or rename the file",
            str(path),
        )])
    return stem


def load_spec_text(text: str, registry: Registry, source: str = "<spec>") -> SpecBase:
    return parse_spec(load_text(text, source), registry)


def _check_plugin_names(document: LocatedDocument, registry: Registry) -> list[Problem]:
    problems = []
    for block, kind in PLUGIN_BLOCKS.items():
        value = document.data.get(block)
        if value is None:
            continue  # optional (meta_controller), or reported as missing by pydantic
        label = KINDS[kind][2]
        listing = ", ".join(registry.names(kind)) or "none installed"
        if not isinstance(value, dict):
            problems.append(document.problem((block,), f"expected a mapping with a 'type' key naming the {label}; installed: {listing}"))
        elif "type" not in value:
            problems.append(document.problem((block,), f"missing 'type': which {label}? installed: {listing}"))
        elif not isinstance(value["type"], str) or value["type"] not in registry.entries[kind]:
            problems.append(document.problem((block, "type"), registry.unknown_message(kind, str(value["type"]))))
    return problems


def _registered_types(data: dict[str, Any], registry: Registry) -> dict[str, Any]:
    """`data` with each block's ``type`` given as the registry keys it (``PLUGIN:NAME`` becomes the bare name
    where that plugin owns it), so that the spec and the run folder name an entry one way."""
    renamed = dict(data)
    for block, kind in PLUGIN_BLOCKS.items():
        value = data.get(block)
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            renamed[block] = {**value, "type": registry.entries[kind].resolve(value["type"]) or value["type"]}
    return renamed


def _clean_loc(data: Any, loc: tuple) -> Loc:
    """Drop the union tags and validator names pydantic puts in error locations."""
    clean: list[Any] = []
    for part in loc:
        if isinstance(data, dict) and part in data:
            clean.append(part)
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            clean.append(part)
            data = data[part]
        elif isinstance(data, dict) and data.get("type") == part or isinstance(part, str) and "[" in part:
            continue
        else:
            clean.append(part)
            data = None
    return tuple(clean)


def _model_at(model: type[BaseModel], loc: Loc, data: Any) -> type[BaseModel] | None:
    """The pydantic model that validates the mapping at `loc`."""
    for part in loc:
        if isinstance(part, int):
            data = data[part] if isinstance(data, list) and part < len(data) else None
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        data = data.get(part) if isinstance(data, dict) else None
        candidate = _pick_model(field.annotation, data)
        if candidate is None:
            return None
        model = candidate
    return model


def _pick_model(annotation: Any, data: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _pick_model(arg, data)
        if found is None:
            continue
        type_field = found.model_fields.get("type")
        tag = typing.get_args(type_field.annotation) if type_field else ()
        if not tag or not isinstance(data, dict) or data.get("type", type_field.default) in tag:
            return found
    return None


def _problem(document: LocatedDocument, error: dict, model: type[BaseModel]) -> Problem:
    loc = _clean_loc(document.data, error["loc"])
    kind = error["type"]
    message = error["msg"]
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1], document.data)
        valid = sorted(parent.model_fields) if parent else []
        message = f"unknown field '{loc[-1]}'{did_you_mean(str(loc[-1]), valid)}"
        if valid:
            message += f"; valid fields: {', '.join(valid)}"
    elif kind == "missing":
        message = "required field is missing"
    elif kind == BACKEND_TYPE_ERROR:
        block = document.data.get("backend")
        if isinstance(block, dict):
            loc, message = ("backend", "type"), f"{message} (given {_short(block.get('type'))})"
        else:
            message = f"expected a mapping such as {{type: {DEFAULT_BACKEND}}} (given {_short(block)})"
    elif kind == "value_error":
        message = message.removeprefix("Value error, ")
    else:
        if "input" in error and kind not in ("model_type", "model_attributes_type") and not isinstance(error["input"], dict):
            message += f" (given {_short(error['input'])})"
    return document.problem(loc, message)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
