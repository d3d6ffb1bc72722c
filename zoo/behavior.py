"""The contract between agents that choose a behavior per episode and meta-controllers.

An agent registered with ``behavior_space=True`` declares a :class:`BehaviorSpace`: the box its
per-episode behavior parameters live in (GDI's inverse temperatures and mixing weight, DiCE's
temperature, ...). At the start of each episode it asks a :class:`MetaController` for a
:class:`Choice`, acts with that behavior for the whole episode, and reports the raw undiscounted
episode return back through :meth:`MetaController.update`. The two sides know each other only
through these types, so any meta-controller drives any such agent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class Coordinate:
    """One axis of a behavior space: values in [low, high], cut into blocks of width `block` for bandits.

    The last block also holds what is left over when `block` does not divide the range.
    """

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
        return max(1, int(math.floor((self.high - self.low) / self.block + 1e-9)))

    def block_of(self, x: float) -> int:
        """The block holding x (clipped into the range; the top edge belongs to the last block)."""
        x = min(max(float(x), self.low), self.high)
        return min(self.blocks - 1, int(math.floor((x - self.low) / self.block + 1e-9)))

    def edges(self, b: int) -> tuple[float, float]:
        """[start, end) of block b (the last block extends to `high`)."""
        start = self.low + b * self.block
        return start, (self.high if b == self.blocks - 1 else start + self.block)


@dataclass(frozen=True)
class BehaviorSpace:
    """The box an agent's per-episode behavior parameters live in, one :class:`Coordinate` per axis.

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

    def contains(self, point) -> bool:
        return len(point) == self.dim and all(c.low <= float(x) <= c.high for x, c in zip(point, self.coordinates))


@dataclass(frozen=True)
class Choice:
    """A meta-controller's pick for one episode: the point (a value per coordinate), and its arm (-1 if none).

    Agents act with ``value``; ``arm`` is the controller's own bookkeeping, handed back to it in `update`.
    """

    value: np.ndarray
    arm: int = -1


@runtime_checkable
class MetaController(Protocol):
    """Picks a behavior per episode and learns from raw undiscounted episode returns.

    A :class:`~zoo.MetaControllerEntry`'s factory is called as ``factory(params, space, rng)`` with its
    validated params, the agent's :class:`BehaviorSpace` and a ``numpy.random.Generator``, and returns
    one of these. Draw every random number from that `rng`: an agent may build several controllers
    (one per env slot) with distinct generators, and again for evaluation.

    ``state_dict`` returns plain data (numpy arrays, numbers, strings, nested dicts and lists) that
    ``load_state_dict`` restores exactly, random generator included, so that a resumed run
    continues the same sequence of choices. A controller may also have ``best`` (:class:`BestRegion`).
    """

    def sample(self) -> Choice:
        """The behavior of the next episode (a point of the space)."""
        ...

    def update(self, choice: Choice, episode_return: float) -> None:
        """Learn that the episode played with `choice` (one that `sample` returned) returned `episode_return`."""
        ...

    def state_dict(self) -> dict[str, Any]:
        ...

    def load_state_dict(self, state: dict[str, Any]) -> None:
        ...


@runtime_checkable
class BestRegion(Protocol):
    """A meta-controller that names the region of the behavior space it values most, for evaluation.

    ``best(rng)`` is a point drawn uniformly inside that region with `rng` alone, with no exploration
    bonus; it changes no state (the controller's own random generator included).
    """

    def best(self, rng: np.random.Generator) -> Choice: ...


#: What a spec's meta-controller block becomes for an agent: ``(space, rng) -> MetaController``
#: (``TrialContext.meta_controller``; None when the spec has no meta_controller block).
MetaControllerFactory = Callable[[BehaviorSpace, np.random.Generator], MetaController]
