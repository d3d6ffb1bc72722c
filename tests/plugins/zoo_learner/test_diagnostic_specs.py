"""The specs of benchmarks/diagnostics: each is minatar-v1's LBC cell on the same game with one named field
of the agent changed, on the cell's first three seeds (so each trial pairs with one of the board's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from zoo_board.board import load_board

from zoo.registry import get_registry
from zoo.spec import load_spec

ROOT = Path(__file__).resolve().parents[3]
DIAGNOSTICS = sorted((ROOT / "benchmarks" / "diagnostics").glob("*.yaml"))

#: a diagnostic's name without its game -> the one agent field it changes
CHANGED_FIELD = {"lbc-discount-099": "members", "lbc-paper-discounts": "members", "lbc-reduce-h": "ablation",
                 "lbc-no-q-loss": "loss_scales"}


def _variant(path: Path) -> str:
    return path.stem.rpartition("-")[0]


@pytest.mark.parametrize("path", DIAGNOSTICS, ids=lambda p: p.stem)
def test_a_diagnostic_is_the_boards_lbc_cell_with_one_field_changed(path):
    registry = get_registry()
    variant = load_spec(path, registry)
    board = load_board(ROOT / "leaderboards" / "minatar-v1.yaml", registry)
    cell = next(c for c in board.cells if c.agent == "lbc" and c.spec.env.game == variant.env.game)
    mine, theirs = variant.agent.model_dump(), cell.spec.agent.model_dump()
    field = CHANGED_FIELD[_variant(path)]
    assert mine[field] != theirs[field]
    assert {**mine, field: None} == {**theirs, field: None}
    if field == "members":  # the discount variants keep every member's shaping
        assert [m["shaping"] for m in mine["members"]] == [m["shaping"] for m in theirs["members"]]
    assert variant.budget == cell.spec.budget
    assert variant.trial_seeds() == cell.spec.trial_seeds()[:3]


def test_every_diagnostic_names_its_change():
    assert DIAGNOSTICS and {_variant(p) for p in DIAGNOSTICS} <= set(CHANGED_FIELD)
