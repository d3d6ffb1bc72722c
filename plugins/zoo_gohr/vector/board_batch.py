"""Many random S+C boards at once: the server's generator (:class:`~zoo_gohr.engine.board.BoardGenerator`)
run in numpy over the ``java.util.Random`` states of many board sources.

``java.util.Random`` is a 48-bit LCG, so the state after d draws from state s is
``A_d * s + C_d mod 2**48`` (exact in wrapping uint64 arithmetic) and all the draws of a batch of
boards come from one product. A board with a draw that Java rejects and redraws (about one draw in
10**8) or with impossible counts is left to the scalar generator, which also raises its errors.
"""

from __future__ import annotations

import copy
from functools import cache

import numpy as np

from ..engine.board import BoardGenerator
from ..engine.constants import CELLS
from ..engine.javarandom import JavaRandom, jumps

_MASK = np.uint64((1 << 48) - 1)


@cache
def _schedule(bounds: tuple[int, ...]):
    A, C = jumps(len(bounds))
    b = np.array(bounds, np.int64)
    return np.array(A, np.uint64), np.array(C, np.uint64), b, (b & (b - 1)) == 0


def _draw(states: np.ndarray, bounds: list[int]):
    """``nextInt(bound)`` for each bound in turn from each state: (values (R, D), states after,
    rows where Java would have rejected a draw)."""
    if not bounds:
        return np.empty((len(states), 0), np.int64), states.copy(), np.zeros(len(states), bool)
    A, C, b, pow2 = _schedule(tuple(bounds))
    s = (states[:, None] * A + C) & _MASK
    bits = (s >> np.uint64(17)).astype(np.int64)
    rem = bits % b
    values = np.where(pow2, (b * bits) >> 31, rem)
    rejected = (~pow2 & (bits - rem + b - 1 >= 1 << 31)).any(axis=1)
    return values, s[:, -1], rejected


def _pops(values: np.ndarray) -> np.ndarray:
    """Per row, the items of successive ``pool.pop(v)`` from ``list(range(n))``, v along the row.

    Decoded backwards: an item popped earlier shifts every later item at or above it up by one.
    """
    items = values.copy()
    for t in range(values.shape[1] - 2, -1, -1):
        later = items[:, t + 1:]
        later += later >= items[:, t, None]
    return items


def _designate_bounds(m: int, k: int, nvalues: int) -> list[int]:
    if k == 0:
        return [nvalues] * m
    return [k] * m + list(range(m, m - k, -1)) + list(range(nvalues, nvalues - k, -1))


def _designate(values: np.ndarray, m: int, k: int, nvalues: int) -> np.ndarray:
    """Value indices of m pieces (``board._designate``) from that function's draws."""
    if k == 0:
        return values
    r = values[:, :m].copy()
    r[np.arange(len(r))[:, None], _pops(values[:, m:m + k])] = np.arange(k)
    if k == nvalues:  # the k values are all of them, whatever the draws
        return r
    use = np.sort(_pops(values[:, m + k:]), axis=1)
    return np.take_along_axis(use, r, axis=1)


class BoardBatch:
    """The boards of many random S+C board sources that share their parameters, made in numpy.

    A board is given as piece kinds per cell, ``shape * len(colors) + color`` (indices into the
    generator's ``shapes`` and ``colors``) and -1 for an empty cell.
    """

    def __init__(self, sources: list[BoardGenerator]):
        self.generator = sources[0]
        self.shapes, self.colors = self.generator.shapes, self.generator.colors
        self.states = np.array([s.rng.state for s in sources], np.uint64)

    @staticmethod
    def fits(sources) -> bool:
        """Whether the sources are random S+C generators (one piece per cell) with the same parameters."""
        def params(g):
            return g.objects, g.nshapes, g.ncolors, g.shapes, g.colors
        first = sources[0]
        return all(type(s) is BoardGenerator and s.images is None and not s.crowded and params(s) == params(first)
                   for s in sources)

    def next_boards(self, envs: np.ndarray) -> np.ndarray:
        """The next board of each listed source, as kinds per cell (len(envs), 36)."""
        g = self.generator
        start = self.states[envs]
        ranges = (g.objects, g.nshapes, g.ncolors)
        values, states, scalar = _draw(start, [hi - lo + 1 for lo, hi in ranges if hi > lo])
        drawn = iter(values.T)
        counts = np.stack([next(drawn) + lo if hi > lo else np.full(len(envs), lo) for lo, hi in ranges], axis=1)
        kinds = np.full((len(envs), CELLS), -1, np.int16)
        fixed = all(hi <= lo for lo, hi in ranges)
        for n, ns, nc in [[lo for lo, _ in ranges]] if fixed else np.unique(counts[~scalar], axis=0).tolist():
            rows = np.flatnonzero((counts == (n, ns, nc)).all(axis=1) & ~scalar)
            if n <= CELLS and ns <= min(n, len(self.shapes)) and nc <= min(n, len(self.colors)):
                states[rows] = self._boards(rows, states[rows], n, ns, nc, kinds, scalar)
            else:
                scalar[rows] = True
        for row in np.flatnonzero(scalar).tolist():
            states[row] = self._scalar_board(int(start[row]), kinds[row])
        self.states[envs] = states
        return kinds

    def _boards(self, rows, states, n, ns, nc, kinds, scalar):
        """Boards of n pieces, ns distinct shapes and nc distinct colors into ``kinds[rows]``; returns
        the states after them. Rows whose draws Java would reject are flagged in ``scalar`` instead."""
        S, C = len(self.shapes), len(self.colors)
        shape_bounds, color_bounds = _designate_bounds(n, ns, S), _designate_bounds(n, nc, C)
        values, after, rejected = _draw(states, list(range(CELLS, CELLS - n, -1)) + shape_bounds + color_bounds)
        scalar[rows[rejected]] = True
        ok, values = rows[~rejected], values[~rejected]
        cells = np.sort(_pops(values[:, :n]), axis=1)
        shapes = _designate(values[:, n:n + len(shape_bounds)], n, ns, S)
        colors = _designate(values[:, n + len(shape_bounds):], n, nc, C)
        kinds[ok[:, None], cells] = shapes * C + colors
        return after

    def _scalar_board(self, state: int, kinds: np.ndarray) -> int:
        """One board from the scalar generator at ``state`` into ``kinds``; returns the state after it."""
        g = copy.copy(self.generator)
        g.rng = JavaRandom.from_state(state)
        for p in g.next_board().pieces:
            kinds[p.pos - 1] = self.shapes.index(p.shape) * len(self.colors) + self.colors.index(p.color)
        return g.rng.state
