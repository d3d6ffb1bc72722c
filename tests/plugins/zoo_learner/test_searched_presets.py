"""The named presets searched per world: each resolves to its tuning spec with the search's winner
(benchmarks/tuning/results/, written by benchmarks/tune_presets.py) when the winner beat the tuning spec's own
settings on held-out seeds, and to the tuning spec alone when it did not, so a preset cannot drift from what was
searched and checked. A setting a preset took from a board after its search (the agent's ``AFTER_SEARCH``) is
added to the search's and may not overwrite a searched one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest
import yaml

from zoo.overrides import Overrides
from zoo.registry import get_registry
from zoo.spec import parse_spec
from zoo.yamlio import load_file

TUNING = Path(__file__).resolve().parents[3] / "benchmarks" / "tuning"
RESULTS = sorted((TUNING / "results").glob("*.json"))


def held_out(result: dict) -> bool:
    """Whether the winner beat the tuning spec's settings on 5 seeds neither the search nor a board used
    (a one-sided U test at 0.05): what justifies shipping it."""
    check = result["heldout"]
    return check["p"] < 0.05 and sum(check["best"]) > sum(check["baseline"])


def shipped_agent(stem: str) -> dict:
    """The agent block a world's preset must be: the tuning spec, with the winner's settings if they held out, and
    the settings the agent took from a board after the search."""
    world, agent = stem.split("-", 1)
    result = json.loads((TUNING / "results" / f"{stem}.json").read_text())
    spec_path = TUNING / yaml.safe_load((TUNING / f"{stem}.yaml").read_text())["spec"]
    winner = result["params"] if held_out(result) else {}
    after_search = {f"agent.{key}": value
                    for key, value in get_registry().get("agent", agent).params.AFTER_SEARCH.get(world, {}).items()}
    overrides = Overrides(tuple(f"{key}={json.dumps(value)}" for key, value in {**winner, **after_search}.items()))
    return parse_spec(overrides.apply(load_file(spec_path)), get_registry()).agent.model_dump()


def close(a, b) -> bool:
    """Equal, floats to the 3 significant digits a preset writes them with."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == pytest.approx(b, rel=5e-3) if isinstance(a, float) else a == b


AGENTS = ("dice", "gdi-h3", "gdi-i3", "lbc")
WORLDS = ("gohr", "minatar")


def test_every_searched_preset_has_its_search_and_every_search_its_preset():
    offered = {f"{world}-{agent}" for agent in AGENTS
               for world in get_args(get_registry().get("agent", agent).params.model_fields["preset"].annotation)
               if world in WORLDS}
    assert {f"gohr-{agent}" for agent in AGENTS} <= offered
    assert sorted(offered) == [path.stem for path in RESULTS]


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_a_world_preset_is_its_tuning_spec_with_the_winner_only_if_it_held_out(path):
    world, agent = path.stem.split("-", 1)
    entry = get_registry().get("agent", agent)
    preset = entry.params(preset=world).model_dump()
    shipped = shipped_agent(path.stem)
    differing = sorted(k for k in preset if k != "preset" and not close(preset[k], shipped[k]))
    assert differing == []


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_a_setting_taken_after_a_search_is_not_one_the_search_chose(path):
    world, agent = path.stem.split("-", 1)
    after_search = get_registry().get("agent", agent).params.AFTER_SEARCH.get(world, {})
    searched = {key.split(".")[1] for key in json.loads(path.read_text())["params"]}  # "agent.FIELD[.sub]"
    assert searched.isdisjoint(after_search)


@pytest.mark.parametrize("agent", AGENTS)
def test_every_preset_a_spec_may_name_exists_for_each_substrate_agent(agent):
    """A name the `preset` field accepts but the agent's table lacks would silently train on the field defaults."""
    params = get_registry().get("agent", agent).params
    assert set(get_args(params.model_fields["preset"].annotation)) == set(params.PRESETS)


def test_the_held_out_check_needs_a_significant_and_higher_winner():
    check = {"baseline": [1.0, 2.0, 3.0, 4.0, 5.0], "best": [6.0, 7.0, 8.0, 9.0, 10.0], "p": 0.004}
    assert held_out({"heldout": check})
    assert not held_out({"heldout": {**check, "p": 0.2}})
    assert not held_out({"heldout": {**check, "best": [0.0] * 5}})
