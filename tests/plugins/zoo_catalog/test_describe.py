"""zoo describe: one entry's parameters as a table; every parameter of every built-in entry is described."""

from __future__ import annotations

import json

from pydantic import Field
from zoo_catalog.describe import parameter_rows, type_name, undescribed

from zoo import Params
from zoo.cli import main
from zoo.registry import get_registry


def test_every_parameter_of_every_built_in_entry_has_a_description():
    registry = get_registry()
    missing = {}
    for kind in registry.kinds:
        for name, entry in registry.entries[kind].items():
            if entry.plugin in registry.plugins and registry.plugins[entry.plugin].distribution == "zoo-rl":
                fields = undescribed(entry.params)
                if fields:
                    missing[(kind, name)] = fields
    assert missing == {}


class Inner(Params):
    """The inner block."""

    depth: int = Field(default=2, description="how deep")


class Outer(Params):
    rate: float | str = Field(default=0.1, description="a rate")
    inner: Inner = Field(default_factory=Inner)
    mode: str = "a"
    needed: list[int] = Field(description="required numbers")


def test_rows_flatten_nested_blocks_with_their_docstrings_and_defaults():
    rows = [(r.name, r.type, r.default, r.description) for r in parameter_rows(Outer)]
    assert rows == [("rate", "float | str", "0.1", "a rate"), ("inner", "Inner", "(see below)", "The inner block."),
                    ("inner.depth", "int", "2", "how deep"), ("mode", "str", "'a'", ""),
                    ("needed", "list[int]", "required", "required numbers")]
    assert undescribed(Outer) == ["mode"]
    assert type_name(dict[str, list[int]]) == "dict[str, list[int]]"


def test_zoo_describe_prints_the_table_and_json(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["describe", "agent", "ppo"]) == 0
    out = capsys.readouterr().out
    assert "policy_kwargs.net_arch" in out and "list[int] | ActorCriticLayers | None" in out and "'lin_X' falling linearly" in out
    assert main(["describe", "agent", "ppo", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["plugin"] == "sb3" and {"name": "learning_rate", "type": "float | str", "default": "0.0003",
                                         "description": "Adam step size, or 'lin_X' falling linearly from X to 0"} in data["parameters"]
    assert main(["describe", "agent", "ppp"]) == 2
    assert "unknown agent 'ppp' (did you mean 'ppo'?)" in capsys.readouterr().err
    assert main(["describe", "agnt", "ppo"]) == 2
    assert "unknown kind 'agnt' (did you mean 'agent'?)" in capsys.readouterr().err
