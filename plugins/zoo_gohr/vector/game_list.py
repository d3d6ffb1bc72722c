"""The vector env's general engine: one :class:`Game` per env, for any board source and rule set."""

from __future__ import annotations

import numpy as np

from ..engine.constants import CELLS
from ..engine.game import Game
from ..engine.ruleset import RuleSet
from .cell_states import CROWDED, EMPTY, OVER
from .layout import ObservationLayout


class GameList:
    """``num_envs`` games, each on the boards of its own source (an object with ``next_board()``).

    ``state`` (num_envs, 36) and ``finish`` are what the vector env reads (see ``cell_states``).
    ``Game.attempts`` of these games counts accepted moves only.
    """

    def __init__(self, rules: RuleSet, sources: list, layout: ObservationLayout, num_envs: int):
        self.rules, self.sources, self.layout = rules, sources, layout
        self.games: list[Game | None] = [None] * num_envs
        self._pieces: list[list] = [[] for _ in range(num_envs)]  # each game's pieces, in slot order
        self._single: list[dict[int, int]] = [{} for _ in range(num_envs)]  # cell -> slot of its only piece
        self.state = np.full((num_envs, CELLS), EMPTY, np.uint8)
        self.finish = np.zeros(num_envs, np.int8)

    def start(self, envs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """New boards for ``envs``: (occupied cells (R, 36), board part of their observations)."""
        occupied = np.zeros((len(envs), CELLS), bool)
        board = np.zeros((len(envs), self.layout.last), np.float32)
        self.state[envs] = EMPTY
        at: list[int] = []
        states: list[int] = []
        over: list[int] = []
        for row, i in enumerate(envs.tolist()):
            game = self.games[i] = Game(self.rules, self.sources[i].next_board())
            pieces = self._pieces[i] = game.pieces()
            cells = [p.pos - 1 for p in pieces]
            occupied[row, cells] = True
            for p in pieces:
                self.layout.write_piece(board[row], p)
            single = self._single[i] = {cell: j for j, cell in enumerate(cells)}
            if len(single) < len(cells):  # pieces sharing a cell answer MULTIPLE_OBJECTS_IN_CELL
                for cell in {cell for cell in cells if cells.count(cell) > 1}:
                    del single[cell]
                    at.append(i * CELLS + cell)
                    states.append(CROWDED)
            self._note_outcome(i, at, states, over)
        self._write(at, states, over)
        return occupied, board

    def accept(self, envs: np.ndarray, cells: np.ndarray, buckets: np.ndarray) -> None:
        """Play moves that the cell states say are accepted (one per env, cells 0..35)."""
        at: list[int] = []
        states: list[int] = []
        over: list[int] = []
        for i, cell, b in zip(envs.tolist(), cells.tolist(), buckets.tolist()):
            self.state[i, cell] = EMPTY
            piece = self._pieces[i][self._single[i].pop(cell)]
            result = self.games[i].move(piece.id, b)
            assert result.accepted, "cell states out of sync with the game"
            self._note_outcome(i, at, states, over)
        self._write(at, states, over)

    def _note_outcome(self, i: int, at: list[int], states: list[int], over: list[int]) -> None:
        """After env i's board changed: its finish, and while it plays on, the hint masks of its
        movable-by-cell pieces added to the state writes."""
        self.finish[i] = self.games[i].finish
        if self.finish[i]:
            over.append(i)
            return
        single, hints = self._single[i], self.games[i].slot_hints()
        at += (i * CELLS + cell for cell in single)
        states += map(hints.__getitem__, single.values())

    def _write(self, at: list[int], states: list[int], over: list[int]) -> None:
        """Write cell states (at flat indices), then OVER for every cell of the ended games."""
        self.state.reshape(-1)[at] = states
        self.state[over] = OVER
