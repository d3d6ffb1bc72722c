"""A quoted number is text in a spec file (refused where a number goes, naming the field and the unquoted form),
and a number in ``--set`` text, where everything is text."""

from __future__ import annotations

import pytest

from zoo.errors import SpecError
from zoo.overrides import Overrides
from zoo.registry import get_registry
from zoo.spec import parse_spec
from zoo.yamlio import load_text

SPEC = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, gamma: 0.9}
budget: {steps: 64}
trials: 1
"""


def parse(text: str, *sets: str):
    return parse_spec(Overrides(sets).apply(load_text(text, "spec.yaml")), get_registry())


@pytest.mark.parametrize("field, written, message", [
    ("budget: {steps: 64}", "budget: {steps: '64'}",
     "spec.yaml:3:10: budget.steps: expected a whole number, not the text '64'; write it without quotes: 64"),
    ("trials: 1", 'trials: "1"', "spec.yaml:4:1: trials: expected a whole number, not the text '1'; write it without quotes: 1"),
    ("gamma: 0.9", "gamma: '0.9'", "spec.yaml:2:49: agent.gamma: expected a number, not the text '0.9'; write it without quotes: 0.9"),
])
def test_a_quoted_number_in_a_spec_file_is_refused_at_its_field(field, written, message):
    assert parse(SPEC)  # the same spec with the number unquoted
    with pytest.raises(SpecError) as caught:
        parse(SPEC.replace(field, written))
    assert message in str(caught.value)


def test_a_quoted_number_in_set_text_is_taken_as_the_number():
    spec = parse(SPEC, "budget.steps='128'", "agent.gamma='0.5'", "trials=\"2\"")
    assert (spec.budget.steps, spec.agent.gamma, spec.trials) == (128, 0.5, 2)


def test_a_quoted_number_stays_text_where_text_goes():
    assert parse("name: '5'\n" + SPEC).name == "5"
    assert parse(SPEC, "name='5'").name == "5"
