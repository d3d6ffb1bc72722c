"""Rule sets: the paper's rules and the benchmark sets run from a spec by name; plugins add their own."""

from __future__ import annotations

import logging
import types

import pytest
from zoo_gohr.named_rules import rule_names
from zoo_gohr.plugin import make_env
from zoo_gohr.rule_sets import RuleSetEntry
from zoo_testing import spec

from zoo import hookimpl
from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec_text

PAPER = ["paper/b23_then_b01", "paper/b3_then_b1", "paper/clockwise", "paper/color_match"]


def spec_for(rule: str):
    return spec(f"env: {{type: gohr, rule: {rule}}}\nagent: {{type: ppo}}\nbudget: {{steps: 1}}\n")


def test_the_paper_rules_are_shipped_by_name():
    assert [n for n in rule_names() if n.startswith("paper/")] == PAPER


@pytest.mark.parametrize("rule", PAPER + [n for n in rule_names() if n.startswith("gohr/MLC/BMK/")])
def test_a_spec_plays_each_shipped_benchmark_rule(rule):
    env = make_env(spec_for(rule).env, 1)
    accepted = 0
    for _ in range(300):
        mask = env.action_masks()
        action = int(env.np_random.choice(mask.nonzero()[0]))
        _, reward, terminated, truncated, info = env.step(action)
        accepted += info["accepted"]
        if terminated or truncated:
            env.reset()
    assert accepted > 0


def test_benchmark_sets_are_complete():
    names = rule_names()
    assert sum(n.startswith("gohr/MLC/BMK/") for n in names) == 15
    assert {"gohr/CGS/1_sm", "gohr/CGS/2_qn", "gohr/CGS/3_bltr", "gohr/CGS/4_cw"} <= set(names)


def test_a_plugin_adds_its_own_rule_directory(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "all_to_zero.txt").write_text("(*, *, *, *, 0)\n")

    def register_rule_sets(register):
        register(RuleSetEntry(name="lab", path=tmp_path / "mine"))

    registry = get_registry()
    assert registry.add("lab-rules", types.SimpleNamespace(register_rule_sets=hookimpl(register_rule_sets)))
    try:
        assert "lab/all_to_zero" in rule_names()
        env = make_env(spec_for("lab/all_to_zero").env, 1)
        first_occupied = int(env.action_masks().nonzero()[0][0]) // 4 * 4
        assert env.step(first_occupied + 0)[4]["accepted"]
    finally:
        registry.entries["rule_set"].pop("lab")
        registry.manager.unregister(name="lab-rules")
        registry.plugins.pop("lab-rules")


def test_unknown_shape_in_a_rule_is_a_warning(tmp_path, caplog):
    rule = tmp_path / "hexagons.txt"
    rule.write_text("(*, hexagon, *, *, 0)\n")
    with caplog.at_level(logging.WARNING, logger="zoo"):
        spec_for(str(rule))
    assert f"{rule}:1:1: unknown shape 'hexagon'" in caplog.text


def test_custom_shape_and_color_sets(tmp_path):
    rule = tmp_path / "hex.txt"
    rule.write_text("(*, hexagon, *, *, 0) (*, pentagon, *, *, 1)\n")
    spec = load_spec_text(
        f"env: {{type: gohr, rule: {rule}, board: {{min_objects: 6, min_shapes: 2, min_colors: 3,"
        " shapes: [hexagon, pentagon], colors: [green, orange, purple]}}\nagent: {type: ppo}\nbudget: {steps: 1}\n",
        get_registry(),
    )
    env = make_env(spec.env, 3)
    assert env.observation_space.shape == (36 * 5 + 4 + 2 + 3 + 36 + 2 * 4 + 3 * 4,)
    shapes = {piece.shape for piece in env.game.pieces()}
    assert shapes == {"HEXAGON", "PENTAGON"}
    with pytest.raises(SpecError, match="asks for up to 3 distinct shapes but the set has 2"):
        load_spec_text(f"env: {{type: gohr, rule: {rule}, board: {{min_shapes: 3, shapes: [a, b]}}}}\n"
                       "agent: {type: ppo}\nbudget: {steps: 1}\n", get_registry())
