"""The named presets searched per world: each resolves to its tuning spec with the search's winner
(benchmarks/tuning/results/, written by benchmarks/tune_presets.py), so a preset cannot drift from what was
searched and checked on held-out seeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from zoo.overrides import Overrides
from zoo.registry import get_registry
from zoo.spec import parse_spec
from zoo.yamlio import load_file

TUNING = Path(__file__).resolve().parents[3] / "benchmarks" / "tuning"
RESULTS = sorted((TUNING / "results").glob("*.json"))


def searched_agent(stem: str) -> dict:
    """The agent block the search's winner was: the tuning spec with the best trial's settings."""
    result = json.loads((TUNING / "results" / f"{stem}.json").read_text())
    spec_path = TUNING / yaml.safe_load((TUNING / f"{stem}.yaml").read_text())["spec"]
    overrides = Overrides(tuple(f"{key}={json.dumps(value)}" for key, value in result["params"].items()))
    return parse_spec(overrides.apply(load_file(spec_path)), get_registry()).agent.model_dump()


def close(a, b) -> bool:
    """Equal, floats to the 3 significant digits a preset writes them with."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return a == pytest.approx(b, rel=5e-3) if isinstance(a, float) else a == b


def test_the_gohr_search_has_a_result_per_substrate_agent():
    assert [path.stem for path in RESULTS if path.stem.startswith("gohr-")] == [
        "gohr-dice", "gohr-gdi-h3", "gohr-gdi-i3", "gohr-lbc"]


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_a_world_preset_is_its_tuning_spec_with_the_winner(path):
    world, agent = path.stem.split("-", 1)
    entry = get_registry().get("agent", agent)
    preset = entry.params(preset=world).model_dump()
    searched = searched_agent(path.stem)
    differing = sorted(k for k in preset if k != "preset" and not close(preset[k], searched[k]))
    assert differing == []


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_the_winner_beat_cpu_small_on_held_out_seeds(path):
    """What justifies shipping the preset: a one-sided U test on 5 seeds neither the search nor a board used."""
    held_out = json.loads(path.read_text())["heldout"]
    assert held_out["p"] < 0.05 and sum(held_out["best"]) > sum(held_out["baseline"])
