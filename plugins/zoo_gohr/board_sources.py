"""Where an env's boards come from: the server's random generator, or predefined JSON boards."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from .engine.board import Board, BoardGenerator, board_from_json
from .engine.javarandom import JavaRandom


def random_boards(seed: int, *, min_objects: int, max_objects: int, min_shapes: int, max_shapes: int,
                  min_colors: int, max_colors: int, shapes, colors) -> BoardGenerator:
    """The server's generator seeded as ``java.util.Random(seed)``: same seed, same boards as the CGS."""
    return BoardGenerator(min_objects, max_objects, min_shapes, max_shapes, min_colors, max_colors,
                          shapes=shapes, colors=colors, rng=JavaRandom(seed))


def read_boards(path: Path) -> list[Board]:
    """Boards from a CGS JSON board file, or from every ``*.json`` file of a folder (sorted by name)."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise ValueError(f"no *.json board files in {path}")
    boards = []
    for file in files:
        try:
            boards.append(board_from_json(json.loads(file.read_text(encoding="utf-8"))))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{file}: not a CGS board ({type(exc).__name__}: {exc})") from None
    return boards


@dataclass
class PredefinedBoards:
    """Cycles through fixed boards, in a fresh random order each pass (seeded)."""

    boards: list[Board]
    seed: int = 0

    def __post_init__(self):
        self._rng = np.random.default_rng(self.seed)
        self._queue: list[int] = []

    def get_state(self) -> dict:
        """Where the source is in its passes: its generator's state and the boards left of this pass."""
        return {"rng": self._rng.bit_generator.state, "queue": [int(i) for i in self._queue]}

    def set_state(self, state: dict) -> None:
        self._rng.bit_generator.state = state["rng"]
        self._queue = list(state["queue"])

    def next_board(self) -> Board:
        if not self._queue:
            self._queue = list(self._rng.permutation(len(self.boards)))
        return self.boards[self._queue.pop()]


def board_source(board):
    """``seed -> source of boards`` (an object with ``next_board()``) for a spec's board block
    (:class:`~zoo_gohr.plugin.BoardParams`)."""
    if board.predefined is not None:
        return partial(PredefinedBoards, read_boards(Path(board.predefined)))
    return partial(
        random_boards, min_objects=board.min_objects, max_objects=board.max_objects or board.min_objects,
        min_shapes=board.min_shapes, max_shapes=board.max_shapes if board.max_shapes is not None else board.min_shapes,
        min_colors=board.min_colors, max_colors=board.max_colors if board.max_colors is not None else board.min_colors,
        shapes=tuple(board.shapes), colors=tuple(board.colors),
    )
