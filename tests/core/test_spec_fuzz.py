"""Property-based fuzzing of the spec loader: every input gives a valid spec or positioned SpecErrors, nothing else.

Four sources of input, from raw to nearly valid: bytes in a file, text, YAML documents of random
values, and spec-shaped documents whose blocks name installed plugins and their real fields (each
optionally damaged by a few edits of its text). Each input must be answered within the deadline
(generous, for a loaded machine: parsing takes milliseconds, so it only catches hangs and blow-ups).
"""

from __future__ import annotations

import json
import math
import os
from datetime import timedelta

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import SpecBase, load_spec, load_spec_text, run_name

SOURCE = "fuzz.yaml"
#: the problems that concern a whole file and so have no line
FILE_LEVEL = ("the document is empty", "file is larger than")

# CI replays the same examples every run (a new find there would block an unrelated change); elsewhere they vary
FUZZ = settings(
    max_examples=120, deadline=timedelta(seconds=10), database=None, derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

REGISTRY = get_registry()


def check_outcome(load, source: str = SOURCE) -> SpecBase | None:
    """Run `load`; a SpecError must name the source and, unless about the whole file, a line."""
    try:
        return load()
    except SpecError as exc:
        assert exc.problems, "a SpecError without problems"
        for problem in exc.problems:
            assert problem.source == source, problem
            assert problem.message.strip() and "\n" not in str(problem), problem
            if not problem.message.startswith(FILE_LEVEL):
                assert problem.line is not None and problem.line >= 1, problem
        return None


def check_valid(spec: SpecBase) -> None:
    """A spec that loads is usable: its dump is JSON and validates again to the same spec."""
    dumped = spec.model_dump(mode="json")
    json.dumps(dumped, allow_nan=False)
    again = load_spec_text(yaml.safe_dump(dumped), REGISTRY, SOURCE)
    assert again.model_dump(mode="json") == dumped


scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20)
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


def _json_default(field) -> object:
    """A field's default as plain data, when it has one that YAML can write."""
    if field.is_required():
        return None
    default = field.get_default(call_default_factory=True)
    try:
        return json.loads(json.dumps(default, default=lambda o: o.model_dump(mode="json")))
    except (TypeError, ValueError, AttributeError):
        return None


@st.composite
def plugin_block(draw, kind: str) -> dict:
    names = REGISTRY.names(kind)
    name = draw(st.sampled_from(names) | st.text(max_size=10)) if names else draw(st.text(max_size=10))
    block: dict = {"type": name}
    entry = REGISTRY.entries[kind].get(name)
    if entry is not None:
        fields = entry.params.model_fields
        for field_name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=4, unique=True)) if fields else []:
            default = _json_default(fields[field_name])
            block[field_name] = draw(st.just(default) | values) if default is not None else draw(values)
    if draw(st.booleans()):
        block[draw(st.text(max_size=10))] = draw(values)
    return block


budget_numbers = st.integers(min_value=-3, max_value=10**13) | scalars


@st.composite
def spec_documents(draw) -> dict:
    document = {
        "env": draw(plugin_block("env")),
        "agent": draw(plugin_block("agent")),
        "budget": draw(st.fixed_dictionaries({}, optional={
            "steps": budget_numbers, "episodes": budget_numbers, "checkpoint_every": budget_numbers,
            "eval_episodes": budget_numbers,
        })),
    }
    if draw(st.booleans()):
        document["meta_controller"] = draw(plugin_block("meta_controller"))
    optional = {
        "trials": st.integers(min_value=-1, max_value=4) | scalars, "seed": budget_numbers,
        "seeds": st.lists(budget_numbers, max_size=4) | scalars, "name": st.text(max_size=110) | scalars,
        "logging": st.dictionaries(st.sampled_from(["tensorboard", "progress", "keep_checkpoints", "x"]), scalars, max_size=3),
        "backend": st.dictionaries(st.sampled_from(["type", "workers", "torch_threads"]), scalars, max_size=3),
    }
    for key in draw(st.lists(st.sampled_from(sorted(optional)), max_size=4, unique=True)):
        document[key] = draw(optional[key])
    return document


@st.composite
def damaged(draw, text: str) -> str:
    """`text` with up to three characters inserted, deleted or replaced."""
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        new = draw(st.sampled_from(["", ":", "-", "[", "{", "}", "'", '"', "&a", "*a", "!!", "\t", "\n", " ", "#", "\x00"])
                   | st.characters())
        cut = draw(st.integers(min_value=0, max_value=1))
        text = text[:at] + new + text[at + cut:]
    return text


@FUZZ
@given(data=st.binary(max_size=600))
def test_bytes_in_a_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "spec.yaml"
    path.write_bytes(data)
    spec = check_outcome(lambda: load_spec(path, REGISTRY), str(path))
    if spec is not None:
        check_valid(spec)


@FUZZ
@given(text=st.text(max_size=400))
def test_text(text):
    spec = check_outcome(lambda: load_spec_text(text, REGISTRY, SOURCE))
    if spec is not None:
        check_valid(spec)


@FUZZ
@given(document=values, style=st.sampled_from([None, True, False]))
def test_yaml_of_random_values(document, style):
    text = yaml.safe_dump(document, default_flow_style=style)
    spec = check_outcome(lambda: load_spec_text(text, REGISTRY, SOURCE))
    if spec is not None:
        check_valid(spec)


@pytest.mark.slow  # fuzzing at full budget (300 documents)
@settings(FUZZ, max_examples=300)
@given(data=st.data())
def test_spec_shaped_documents(data):
    document = data.draw(spec_documents())
    text = data.draw(damaged(yaml.safe_dump(document, sort_keys=False, allow_unicode=data.draw(st.booleans()))))
    spec = check_outcome(lambda: load_spec_text(text, REGISTRY, SOURCE))
    if spec is not None:
        check_valid(spec)
        assert run_name(spec, SOURCE) == (spec.name or "fuzz")
        budget = spec.budget
        assert isinstance(budget.amount, int) and not isinstance(budget.amount, bool) and budget.amount > 0
        assert all(not isinstance(v, float) or math.isfinite(v) for v in spec.model_dump(mode="json")["budget"].values() if v is not None)
