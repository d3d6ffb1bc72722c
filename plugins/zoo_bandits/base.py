"""Pieces every meta-controller here shares: block arithmetic, choices, random-state checkpoints."""

from __future__ import annotations

from typing import Any

import numpy as np
from zoo_learner import BehaviorSpace, Choice


def point_in_blocks(space: BehaviorSpace, blocks, rng: np.random.Generator) -> np.ndarray:
    """A point drawn uniformly inside the given block of each coordinate."""
    point = []
    for coordinate, block in zip(space.coordinates, blocks):
        start, end = coordinate.edges(int(block))
        point.append(start + rng.random() * (end - start))
    return np.array(point)


def blocks_of(space: BehaviorSpace, value) -> list[int]:
    return [c.block_of(x) for c, x in zip(space.coordinates, value)]


def choice_in_blocks(space: BehaviorSpace, blocks, rng: np.random.Generator) -> Choice:
    """A Choice inside `blocks`; its arm is the blocks' flat index in the grid of all blocks."""
    arm = int(np.ravel_multi_index(tuple(int(b) for b in blocks), tuple(c.blocks for c in space.coordinates)))
    return Choice(point_in_blocks(space, blocks, rng), arm)


def top_k(scores: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of the k highest scores, best first, ties broken at random.

    The same as sorting all scores by (score, random key) but only the k winners are sorted, which
    matters for large grids where most scores tie.
    """
    keys = rng.random(len(scores))
    if k >= len(scores):
        return np.lexsort((keys, -scores))[:k]
    threshold = np.partition(scores, len(scores) - k)[len(scores) - k]
    above, tied = np.flatnonzero(scores > threshold), np.flatnonzero(scores == threshold)
    tied = tied[np.argpartition(keys[tied], k - len(above) - 1)[: k - len(above)]]
    winners = np.concatenate([above, tied])
    return winners[np.lexsort((keys[winners], -scores[winners]))]


def greedy(scores: np.ndarray, rng: np.random.Generator) -> int:
    """The index of the highest score, ties broken uniformly at random."""
    return int(top_k(scores, 1, rng)[0])


def mean_returns(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """sums / counts, and -inf where counts is 0 (arms never tried rank last)."""
    return np.divide(sums, counts, out=np.full(np.shape(sums), -np.inf), where=counts > 0)


class Stateful:
    """state_dict / load_state_dict over the attributes named in `_state` plus the random generator."""

    _state: tuple[str, ...] = ()
    rng: np.random.Generator

    def state_dict(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self._state}
        state["rng"] = self.rng.bit_generator.state
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for name in self._state:
            current = getattr(self, name)
            setattr(self, name, np.array(state[name], dtype=current.dtype) if isinstance(current, np.ndarray) else state[name])
        self.rng.bit_generator.state = state["rng"]
