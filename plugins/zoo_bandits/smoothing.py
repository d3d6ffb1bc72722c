"""How a bandit's weights give block values: a window around each block, or App. G's tile coding.

Either way V_i is the mean of a set of weights, and `add(w, i, step)` adds `step` to each of them,
so V_i moves by exactly `step` and blocks sharing weights with i move partly. A smoothing holds only
its drawn settings; the bandit owns the weights.
"""

from __future__ import annotations

import math
from functools import reduce
from typing import Any

import numpy as np


class Window:
    """V_i = mean of w over the blocks within `width` of block i along every axis (fewer at the edges)."""

    def __init__(self, shape: tuple[int, ...], width: int):
        self.shape, self.width = tuple(shape), int(width)
        self._low = [np.maximum(0, np.arange(n) - self.width) for n in self.shape]
        self._high = [np.minimum(n - 1, np.arange(n) + self.width) for n in self.shape]
        self._counts = reduce(np.multiply.outer, [high - low + 1 for low, high in zip(self._low, self._high)])

    @classmethod
    def draw(cls, shape: tuple[int, ...], params, rng: np.random.Generator) -> Window:
        return cls(shape, int(rng.choice(params.widths)))

    @classmethod
    def restore(cls, shape: tuple[int, ...], saved: dict[str, Any]) -> Window:
        return cls(shape, int(saved["width"]))

    def settings(self) -> dict[str, Any]:
        return {"width": self.width}

    def weights(self) -> np.ndarray:
        return np.zeros(self.shape)

    def values(self, w: np.ndarray) -> np.ndarray:
        """V of every block, flat."""
        return (self._window_sums(w, [np.arange(n) for n in self.shape]) / self._counts).ravel()

    def value(self, w: np.ndarray, block: int) -> float:
        """`values(w)[block]` to the last bit, from the weights up to the far corner of the block's window only."""
        index = np.unravel_index(block, self.shape)
        corner = w[tuple(slice(0, high[i] + 1) for high, i in zip(self._high, index))]
        return float(self._window_sums(corner, [[i] for i in index]).item() / self._counts[index])

    def _window_sums(self, w: np.ndarray, rows: list) -> np.ndarray:
        """Sums of w over the windows of the blocks rows[0] x rows[1] x ..., from cumulative sums along each axis in turn."""
        sums = w
        for axis, (low, high, row) in enumerate(zip(self._low, self._high, rows)):
            shape = list(sums.shape)
            shape[axis] += 1
            cumulative = np.zeros(shape)  # cumulative[k] = sum of the first k entries along `axis`
            np.cumsum(sums, axis=axis, out=cumulative[(slice(None),) * axis + (slice(1, None),)])
            sums = np.take(cumulative, high[row] + 1, axis=axis) - np.take(cumulative, low[row], axis=axis)
        return sums

    def add(self, w: np.ndarray, block: int, step: float) -> None:
        index = np.unravel_index(block, self.shape)
        w[tuple(slice(low[i], high[i] + 1) for low, high, i in zip(self._low, self._high, index))] += step


class Tiles:
    """Tile coding: per tiling, tiles `size` blocks wide along every axis, shifted by `offset` tile widths per axis.

    Block i belongs to the tile holding its centre; V_i is the mean over tilings of that tile's weight.
    """

    def __init__(self, shape: tuple[int, ...], sizes: list[int], offsets: list[list[float]]):
        self.shape = tuple(shape)
        self.sizes = [int(s) for s in sizes]
        self.offsets = [[float(o) for o in row] for row in offsets]
        tables, start = [], 0
        for size, offset in zip(self.sizes, self.offsets):
            tile = [((np.arange(n) + 0.5 + o * size) // size).astype(int) for n, o in zip(self.shape, offset)]
            tiles_shape = tuple(int(t[-1]) + 1 for t in tile)
            tables.append(start + np.ravel_multi_index(np.ix_(*tile), tiles_shape).ravel())
            start += math.prod(tiles_shape)
        self._table = np.stack(tables)  # (tilings, blocks): index in w of each block's tile in each tiling
        self._weights = start

    @classmethod
    def draw(cls, shape: tuple[int, ...], params, rng: np.random.Generator) -> Tiles:
        sizes = rng.choice(params.tile_sizes, size=params.tilings)
        return cls(shape, sizes, rng.uniform(0.0, params.tile_offset, size=(params.tilings, len(shape))))

    @classmethod
    def restore(cls, shape: tuple[int, ...], saved: dict[str, Any]) -> Tiles:
        return cls(shape, saved["tile_sizes"], saved["tile_offsets"])

    def settings(self) -> dict[str, Any]:
        return {"tile_sizes": list(self.sizes), "tile_offsets": [list(row) for row in self.offsets]}

    def weights(self) -> np.ndarray:
        return np.zeros(self._weights)

    def values(self, w: np.ndarray) -> np.ndarray:
        return w[self._table].mean(axis=0)

    def value(self, w: np.ndarray, block: int) -> float:
        return float(w[self._table[:, block]].mean())

    def add(self, w: np.ndarray, block: int, step: float) -> None:
        w[self._table[:, block]] += step


SMOOTHINGS = {"window": Window, "tiles": Tiles}
