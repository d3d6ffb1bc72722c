"""The specs of benchmarks/diagnostics: each is valid, and each LBC discount variant is minatar-v1's LBC cell
with only the members' discounts changed, on the cell's first three seeds (so each trial pairs with one
of the board's)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from zoo_board.board import load_board

from zoo.registry import get_registry
from zoo.spec import load_spec

ROOT = Path(__file__).resolve().parents[3]
DIAGNOSTICS = sorted((ROOT / "benchmarks" / "diagnostics").glob("*.yaml"))


@pytest.mark.parametrize("path", DIAGNOSTICS, ids=lambda p: p.stem)
def test_a_discount_variant_is_the_boards_lbc_cell_with_other_discounts(path):
    registry = get_registry()
    variant = load_spec(path, registry)
    board = load_board(ROOT / "leaderboards" / "minatar-v1.yaml", registry)
    cell = next(c for c in board.cells if c.agent == "lbc" and c.spec.env.game == variant.env.game)
    mine, theirs = variant.agent.model_dump(), cell.spec.agent.model_dump()
    assert [m["gamma"] for m in mine["members"]] != [m["gamma"] for m in theirs["members"]]
    assert {**mine, "members": None} == {**theirs, "members": None}
    assert [m["shaping"] for m in mine["members"]] == [m["shaping"] for m in theirs["members"]]
    assert variant.budget == cell.spec.budget
    assert variant.trial_seeds() == cell.spec.trial_seeds()[:3]


def test_there_are_diagnostics_to_check():
    assert DIAGNOSTICS and all(yaml.safe_load(p.read_text())["agent"]["type"] == "lbc" for p in DIAGNOSTICS)
