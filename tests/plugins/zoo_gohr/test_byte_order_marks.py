"""A UTF-8 byte-order mark (as some Windows editors write) is accepted alike in a spec and in the rule file it names."""

from __future__ import annotations

from pathlib import Path

from zoo_gohr import load_rules

from zoo.registry import get_registry
from zoo.spec import parse_spec
from zoo.yamlio import load_file

RULES = Path(__file__).parents[3] / "rules" / "paper" / "clockwise.txt"
BOM = "\ufeff"


def test_a_rule_file_with_a_byte_order_mark_is_the_rule_without_it(tmp_path):
    marked = tmp_path / "clockwise.txt"
    marked.write_text(BOM + RULES.read_text(encoding="utf-8"), encoding="utf-8")
    assert marked.read_bytes().startswith(b"\xef\xbb\xbf")
    with_mark, without = load_rules(marked), load_rules(RULES)
    assert (with_mark.lines, with_mark.orders, with_mark.description) == (without.lines, without.orders, without.description)


def test_a_spec_with_a_byte_order_mark_naming_a_rule_file_with_one_is_accepted(tmp_path):
    rule = tmp_path / "clockwise.txt"
    rule.write_text(BOM + RULES.read_text(encoding="utf-8"), encoding="utf-8")
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"{BOM}env: {{type: gohr, rule: {rule}}}\nagent: {{type: random-legal}}\nbudget: {{episodes: 3}}\n",
                    encoding="utf-8")
    assert parse_spec(load_file(spec), get_registry()).env.rule == str(rule)
