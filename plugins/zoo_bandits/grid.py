"""The blocks a bandit works on."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from zoo_learner import Coordinate


class Grid:
    """The blocks of one or more coordinates, numbered in C order (the last coordinate varies fastest)."""

    def __init__(self, coordinates: Sequence[Coordinate]):
        self.coordinates = tuple(coordinates)
        self.shape = tuple(c.blocks for c in self.coordinates)
        self.size = math.prod(self.shape)
        self._low = np.array([c.low for c in self.coordinates], float)
        self._high = np.array([c.high for c in self.coordinates], float)
        self._width = np.array([c.block for c in self.coordinates], float)
        self._last = np.array(self.shape) - 1

    def block_of(self, point) -> int:
        """The flat index of the block holding `point` (one value per coordinate)."""
        return int(np.ravel_multi_index(tuple(c.block_of(x) for c, x in zip(self.coordinates, point)), self.shape))

    def points_in(self, blocks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One point drawn uniformly inside each block: an array (len(blocks), coordinates)."""
        index = np.stack(np.unravel_index(blocks, self.shape), axis=-1)
        starts = self._low + index * self._width
        ends = np.where(index == self._last, self._high, starts + self._width)
        return starts + rng.random(index.shape) * (ends - starts)

