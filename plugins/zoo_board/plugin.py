"""The zoo plugin of leaderboards: the ``zoo leaderboard`` command for every kind of board, the kind of entry
``board_kind`` (:mod:`zoo_board.kinds`), and the built-in kind whose rows are tasks (any env the registry knows)."""

from __future__ import annotations

from pathlib import Path

from zoo import DocumentEntry, hookimpl

from .kinds import BOARD_KINDS
from .score_tables import SCORE_TABLES


def _validate_board(path: Path, registry, build: bool) -> str:
    """`zoo validate` of a board over tasks: every cell's spec, and with `build` each cell's objects built once."""
    from .board import load_board
    from .plan import validated

    return validated(load_board(path, registry), registry, build, "tasks")


@hookimpl
def register_documents(register):
    register(DocumentEntry(name="task-board", marker=("agents", "tasks"), validate=_validate_board,
                           description="a leaderboard over tasks: agents x env blocks, each cell a run (zoo leaderboard)"))


@hookimpl
def register_kinds(register):
    register(BOARD_KINDS)
    register(SCORE_TABLES)


@hookimpl
def register_board_kinds(register):
    from .kind import TASKS_BOARD

    register(TASKS_BOARD)


@hookimpl
def register_commands(cli):
    from .command import leaderboard

    cli.command("leaderboard")(leaderboard)
