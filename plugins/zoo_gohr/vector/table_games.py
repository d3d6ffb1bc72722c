"""Many games of one rule set on random S+C boards, played in numpy arrays: the vector env's engine
for rules that :class:`~zoo_gohr.vector.rule_tables.RuleTables` covers.

It follows ``Game`` step for step (docs/algorithms/gohr-rules.md, "Moves and control flow") for a
batch of games at once: the acceptance map of the active line (``_compute``), line changes and
stalemates (``_prep``), counters, the memory and the removal of accepted pieces. Each game's board is one row of piece codes (one piece per cell).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from ..engine.constants import CELLS
from ..engine.game import Finish
from .board_batch import BoardBatch
from .cell_states import EMPTY, OVER
from .layout import ObservationLayout
from .rule_tables import CELL_BITS, AtomTable, LineTable, RuleTables

_SHIFTS = np.arange(1, CELLS + 1, dtype=np.uint64)
_CELL_INDEX = np.arange(CELLS)


def _eligible(groups: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """``orders.eligible`` for many boards: the occupied cells of the first group holding any (or all
    occupied cells), as uint64 cell masks."""
    hits = occupied[:, None] & groups
    first = hits[np.arange(len(hits)), (hits != 0).argmax(axis=1)]
    return np.where(first != 0, first, occupied)


class _Eligibility:
    """Order eligibility over the boards of one acceptance computation, each order worked out once."""

    def __init__(self, orders: dict[str, np.ndarray], occupied: np.ndarray):
        self.orders, self.occupied = orders, occupied
        self._cells: dict[str, np.ndarray] = {}

    def cells(self, name: str, rows: np.ndarray) -> np.ndarray:
        """The cells order ``name`` makes eligible on the boards at ``rows``."""
        if name not in self._cells:
            self._cells[name] = _eligible(self.orders[name], self.occupied)
        return self._cells[name][rows]


def _cells_in(masks: np.ndarray) -> np.ndarray:
    """(R, 36) 0/1 uint8: the cells of uint64 cell masks."""
    return ((masks[:, None] >> _SHIFTS) & np.uint64(1)).astype(np.uint8)


class TableGames:
    """``num_envs`` games of ``tables``' rule set on boards from ``boards``.

    ``state`` (num_envs, 36) and ``finish`` are what the vector env reads (see ``cell_states``).
    """

    def __init__(self, tables: RuleTables, boards: BoardBatch, layout: ObservationLayout, num_envs: int):
        self.tables, self.boards = tables, boards
        E, S, C = num_envs, len(tables.shapes), len(tables.colors)
        self.state = np.full((E, CELLS), EMPTY, np.uint8)
        self.finish = np.zeros(E, np.int8)
        self.pcode = np.full((E, CELLS), tables.empty, np.int64)  # piece code per cell
        self.occupied = np.zeros(E, np.uint64)                    # cell mask
        self.hint = np.zeros((E, CELLS), np.uint8)
        self.last = np.full(E, -1, np.int64)                      # piece code * 4 + bucket of the last removal
        self.by_shape = np.full((E, S), -1, np.int8)              # bucket of the last removal per shape
        self.by_color = np.full((E, C), -1, np.int8)
        self.line = np.zeros(E, np.int64)
        self.counts = np.zeros((E, tables.width), np.int32)       # atom counters of the active line
        self.line_count = np.zeros(E, np.int32)
        self.counted = np.zeros((E, tables.width, CELLS), np.uint8)  # masks of the atoms whose counters count
        self._line_counts = np.array([line.counts for line in tables.lines])
        self._line_global = np.array([line.count for line in tables.lines], np.int32)
        self._all_metered = np.array([line.all_metered for line in tables.lines])
        self._board_bits = self._observation_bits(layout)

    def _observation_bits(self, layout: ObservationLayout) -> np.ndarray:
        """(kinds + 1, per cell) float32: the observation bits of a cell by piece kind (last: empty)."""
        t = self.tables
        bits = np.zeros((len(t.shapes) * len(t.colors) + 1, layout.per_cell), np.float32)
        for s, shape in enumerate(t.shapes):
            for c, color in enumerate(t.colors):
                if shape in layout.shapes:
                    bits[s * len(t.colors) + c, layout.shapes[shape]] = 1.0
                if color in layout.colors:
                    bits[s * len(t.colors) + c, len(layout.shapes) + layout.colors[color]] = 1.0
        return bits

    # ------------------------------------------------------------------ moves
    def start(self, envs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """New boards for ``envs``: (occupied cells (R, 36), board part of their observations)."""
        kinds = self.boards.next_boards(envs).astype(np.int64)
        occupied = kinds >= 0
        self.pcode[envs] = np.where(occupied, kinds * CELLS + _CELL_INDEX, self.tables.empty)
        self.occupied[envs] = (occupied * CELL_BITS).sum(axis=1, dtype=np.uint64)
        self.last[envs] = -1
        self.by_shape[envs] = -1
        self.by_color[envs] = -1
        pieces = occupied.any(axis=1)
        self.finish[envs] = np.where(pieces, Finish.NO, Finish.FINISH)
        self._prep(envs[pieces], first=True)
        self._write_state(envs)
        return occupied, self._board_bits[kinds].reshape(len(envs), -1)

    def accept(self, envs: np.ndarray, cells: np.ndarray, buckets: np.ndarray) -> None:
        """Play moves that the cell states say are accepted (one per env, cells 0..35)."""
        self.counts[envs] -= (self.counted[envs, :, cells] >> buckets[:, None]) & 1
        self.line_count[envs] -= self.line_count[envs] > 0
        pcode = self.pcode[envs, cells]
        kind, C = pcode // CELLS, len(self.tables.colors)
        self.last[envs] = pcode * 4 + buckets
        self.by_shape[envs, kind // C] = buckets
        self.by_color[envs, kind % C] = buckets
        self.pcode[envs, cells] = self.tables.empty
        self.occupied[envs] &= ~CELL_BITS[cells]
        cleared = self.occupied[envs] == 0
        self.finish[envs[cleared]] = Finish.FINISH
        self._prep(envs[~cleared], first=False)
        self._write_state(envs)

    def _write_state(self, envs: np.ndarray) -> None:
        state = np.where(self.pcode[envs] == self.tables.empty, EMPTY, self.hint[envs])
        state[self.finish[envs] != Finish.NO] = OVER
        self.state[envs] = state

    # ----------------------------------------------------------- rule lines
    def _prep(self, envs: np.ndarray, first: bool) -> None:
        """``Game._prep`` for many games: move on (cyclically, with fresh counters) until a line has a
        movable piece, or stalemate when every line has had its try."""
        nlines = len(self.tables.lines)
        if first:
            self.line[envs] = 0
        else:
            envs = envs[self._done_with(envs)]
            self.line[envs] = (self.line[envs] + 1) % nlines
        self._activate(envs)
        start = self.line[envs]
        while envs.size:
            done = self._done_with(envs)
            envs, start = envs[done], start[done]
            if not envs.size:
                break
            line = (self.line[envs] + 1) % nlines
            stale = line == start
            self.finish[envs[stale]] = Finish.STALEMATE
            envs, start = envs[~stale], start[~stale]
            self.line[envs] = line[~stale]
            self._activate(envs)

    def _activate(self, envs: np.ndarray) -> None:
        line = self.line[envs]
        self.counts[envs] = self._line_counts[line]
        self.line_count[envs] = self._line_global[line]

    def _done_with(self, envs: np.ndarray) -> np.ndarray:
        """Whether each game's active line is exhausted or, computed, has nothing movable."""
        line = self.line[envs]
        done = (self._line_global[line] >= 0) & (self.line_count[envs] == 0)
        done |= self._all_metered[line] & ~self.counts[envs].any(axis=1)
        live = np.flatnonzero(~done)
        if len(self.tables.lines) == 1:
            done[live] = ~self._compute(self.tables.lines[0], envs[live])
            return done
        for k in np.unique(line[live]).tolist():
            group = live[line[live] == k]
            done[group] = ~self._compute(self.tables.lines[k], envs[group])
        return done

    def _compute(self, line: LineTable, envs: np.ndarray) -> np.ndarray:
        """Build the acceptance map of ``line`` (active in ``envs``); returns whether any piece is movable."""
        pcode = self.pcode[envs]
        t = self.tables
        hint = t.static[line.plain_col][pcode] if line.plain_col is not None else np.zeros(pcode.shape, np.uint8)
        self.counted[envs] = 0
        orders = _Eligibility(t.orders, self.occupied[envs])
        for atom in line.others:
            counts = self.counts[envs, atom.index]
            live = np.flatnonzero(counts != 0)
            if live.size == 0:
                continue
            masks = self._atom_masks(atom, envs[live], pcode[live], partial(orders.cells, rows=live))
            hint[live] |= masks
            metered = counts[live] > 0
            self.counted[envs[live[metered]], atom.index] = masks[metered]
        self.hint[envs] = hint
        return hint.any(axis=1)

    def _atom_masks(self, atom: AtomTable, envs: np.ndarray, pcode: np.ndarray,
                    eligible: Callable[[str], np.ndarray]) -> np.ndarray:
        """``Game._atom_masks`` for many games: the buckets ``atom`` accepts per cell (R, 36), given
        the boards' piece codes and the cells each order makes eligible on them."""
        m = self.tables.static[atom.col][pcode]
        if atom.table_driven:
            return m
        if atom.pre is not None:
            last = self.last[envs]
            m &= atom.pre.lookup(atom.last_key[last + 1], last)[:, None]
        if atom.orders:
            allowed = np.full(len(envs), ~np.uint64(0))
            for cells, names in atom.orders:
                ok = np.full(len(envs), cells)
                for name in names:
                    ok |= eligible(name)
                allowed &= ok
            m *= _cells_in(allowed)
        if atom.dynamic is not None:
            r, c = np.nonzero(m)
            code, last, mask = pcode[r, c], self.last[envs[r]], m[r, c]
            C = len(self.tables.colors)
            by_shape = self.by_shape[envs[r], code // CELLS // C] if atom.by_shape else np.full(len(r), -1)
            by_color = self.by_color[envs[r], code // CELLS % C] if atom.by_color else np.full(len(r), -1)
            m[r, c] = atom.dynamic.lookup(atom.dynamic_keys(code, last, by_shape, by_color),
                                          code, last, by_shape, by_color, mask)
        if atom.postpos is not None:
            cells, names = atom.postpos
            accepting = ((m != 0) * CELL_BITS).sum(axis=1, dtype=np.uint64)
            ok = np.full(len(envs), cells)
            for name in names:
                ok |= _eligible(self.tables.orders[name], accepting)
            m *= _cells_in(ok)
        return m
