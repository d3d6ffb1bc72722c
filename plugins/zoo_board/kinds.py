"""Kinds of boards: what a board's rows are, how its cells are planned and scored, and which files are of it.

The board plugin declares the kind ``board_kind`` (``register_kinds``), and plugins contribute kinds of
boards through its ``register_board_kinds`` hook: the board plugin's own (marker key ``tasks``: any env
per row) and GOHR's (marker ``rules``, registered by zoo_gohr_study). ``zoo leaderboard`` and
``zoo validate`` pick the kind whose marker key the file's top level holds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zoo import Entry, KindEntry, Registry, ZooError, hookspec

from .cells import Recorded
from .plan import Contender


@dataclass(frozen=True)
class BoardKindEntry(Entry):
    """A kind of board.

    ``marker``: the top-level key that makes a file a board of this kind; ``rows``: what the kind calls a
    board's rows (its tasks); ``load(path, registry, extra_agents)`` reads and checks a board and plans
    every cell, returning an object with ``board`` (holding ``name`` and ``agents``) and ``cells`` (a list
    of :class:`~zoo_board.plan.CellPlan`); ``publish(loaded, states, runs_dir, out)`` scores the finished
    cells and writes the outputs, returning their paths; ``recorded`` the kind's cells of recorded play;
    ``contender`` the model of the kind's agent entries (for ``--agent LABEL=FILE`` files).
    """

    marker: str = ""
    rows: str = "task"
    load: Callable[..., Any] | None = None
    publish: Callable[..., list[Path]] | None = None
    recorded: Recorded | None = None
    contender: type[Contender] = Contender


@hookspec
def register_board_kinds(register: Callable[[BoardKindEntry], None]) -> None:
    """Contribute kinds of boards: ``register(BoardKindEntry(name=..., marker=..., load=..., publish=...))``."""


BOARD_KINDS = KindEntry(name="board_kind", hookspecs=sys.modules[__name__], hook="register_board_kinds",
                        entry=BoardKindEntry, label="board kind",
                        description="kinds of leaderboard files (zoo leaderboard), told apart by a top-level key")


def board_kinds(registry: Registry) -> dict[str, BoardKindEntry]:
    """Every kind of board the loaded plugins register, by marker key."""
    return {kind.marker: kind for kind in registry.entries.get(BOARD_KINDS.name, {}).values()}


def kind_of(data: Any, source: Path, registry: Registry) -> BoardKindEntry:
    """The kind of the board whose top level is `data`."""
    kinds = board_kinds(registry)
    if isinstance(data, dict):
        for marker, kind in kinds.items():
            if marker in data:
                return kind
    keys = " or ".join(f"'{marker}' ({kind.description})" for marker, kind in sorted(kinds.items()))
    raise ZooError(f"{source}: a board is a mapping with name, agents, budget and its rows: {keys}")
