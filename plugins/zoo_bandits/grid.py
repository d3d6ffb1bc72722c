"""The blocks a bandit works on, and the behavior-space coordinates as the bandits see them."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from zoo_learner import BehaviorSpace, Coordinate

from zoo import ZooError


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


def log1p_coordinate(coordinate: Coordinate) -> Coordinate:
    """x = log(1 + value) over the coordinate's range, in as many blocks, equally wide in x."""
    low, high = math.log1p(coordinate.low), math.log1p(coordinate.high)
    return Coordinate(f"log1p({coordinate.name})", low, high, (high - low) / coordinate.blocks)


class BanditCoordinates:
    """A behavior space as the bandits see it: the coordinates named in `log1p` as x = log(1 + value), the rest as is.

    For an inverse temperature beta = 1/tau this is App. G's x = log(1 + 1/tau); a point x maps back
    to value = exp(x) - 1, clipped into the coordinate's range.
    """

    def __init__(self, space: BehaviorSpace, log1p: Sequence[str]):
        unknown = sorted(set(log1p) - set(space.names))
        if unknown:
            raise ZooError(f"meta_controller.log1p_coordinates: {unknown} are not coordinates of the behavior space "
                           f"(it has {list(space.names)})")
        self._mask = np.array([c.name in log1p for c in space.coordinates], bool)
        too_low = [c.name for c, m in zip(space.coordinates, self._mask) if m and c.low <= -1]
        if too_low:
            raise ZooError(f"meta_controller.log1p_coordinates: {too_low} reach -1 or below, where log(1 + value) is undefined")
        self.coordinates = tuple(log1p_coordinate(c) if m else c for c, m in zip(space.coordinates, self._mask))
        self._low = np.array([c.low for c in space.coordinates], float)
        self._high = np.array([c.high for c in space.coordinates], float)

    def to_bandit(self, value) -> np.ndarray:
        x = np.array(value, float)
        x[self._mask] = np.log1p(x[self._mask])
        return x

    def to_space(self, x) -> np.ndarray:
        value = np.array(x, float)
        value[self._mask] = np.clip(np.expm1(value[self._mask]), self._low[self._mask], self._high[self._mask])
        return value
