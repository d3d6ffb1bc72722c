"""The contract between agents and meta-controllers: behavior spaces and per-episode choices."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Coordinate:
    """One axis of a behavior space: values in [low, high], cut into blocks of width `block` for bandits."""

    name: str
    low: float
    high: float
    block: float

    def __post_init__(self):
        if not self.high > self.low or not 0 < self.block <= self.high - self.low:
            raise ValueError(f"coordinate {self.name}: need low < high and 0 < block <= high - low")

    @property
    def blocks(self) -> int:
        """Number of blocks: floor((high - low) / block)."""
        return max(1, int(np.floor((self.high - self.low) / self.block + 1e-9)))

    def block_of(self, x: float) -> int:
        """The block holding x (clipped into the range; the top edge belongs to the last block)."""
        x = min(max(float(x), self.low), self.high)
        return min(self.blocks - 1, int(np.floor((x - self.low) / self.block + 1e-9)))

    def edges(self, b: int) -> tuple[float, float]:
        """[start, end) of block b (the last block extends to `high`)."""
        start = self.low + b * self.block
        return start, (self.high if b == self.blocks - 1 else start + self.block)


@dataclass(frozen=True)
class BehaviorSpace:
    """The space an agent's per-episode behavior parameters live in.

    ``default`` is the point a "fixed" meta-controller uses unless told otherwise (for GDI:
    1/tau1 = 1, 1/tau2 = 0, eps = 1, i.e. pi = softmax(A)).
    """

    coordinates: tuple[Coordinate, ...]
    default: tuple[float, ...] = field(default=())

    def __post_init__(self):
        if len(self.default) != len(self.coordinates):
            raise ValueError("the default point needs one value per coordinate")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.coordinates)

    @property
    def dim(self) -> int:
        return len(self.coordinates)

    def clip(self, point) -> np.ndarray:
        """`point` clipped into the space's box."""
        return np.array([min(max(float(x), c.low), c.high) for x, c in zip(point, self.coordinates)])

    def contains(self, point) -> bool:
        return len(point) == self.dim and all(c.low <= float(x) <= c.high for x, c in zip(point, self.coordinates))


@dataclass(frozen=True)
class Choice:
    """A meta-controller's pick for one episode: the point, and the arm it came from (-1 if none)."""

    value: np.ndarray
    arm: int = -1


@runtime_checkable
class MetaController(Protocol):
    """Picks a behavior per episode and learns from raw undiscounted episode returns.

    ``state_dict`` returns plain data (numpy arrays, numbers, strings, nested dicts and lists) that
    ``load_state_dict`` restores exactly, random generator included, so that a resumed run
    continues the same sequence of choices. A controller may also have ``best`` (:class:`BestRegion`).
    """

    def sample(self) -> Choice: ...

    def update(self, choice: Choice, episode_return: float) -> None: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


@runtime_checkable
class BestRegion(Protocol):
    """A meta-controller that names the region of the behavior space it values most, for evaluation.

    ``best(rng)`` is a point drawn uniformly inside that region with `rng` alone, with no exploration
    bonus; it changes no state (the controller's own random generator included).
    """

    def best(self, rng: np.random.Generator) -> Choice: ...
