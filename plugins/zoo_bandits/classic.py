"""Fixed and uniform selection, and factorized UCB1, sliding-window UCB (Agent57) and Thompson sampling.

The factorized bandits keep one arm per block of each coordinate. Episode returns have no fixed
scale, so UCB1 rescales arm means by the min and max return seen, the sliding-window UCB by those
of its window, and Thompson sampling z-scores them by the running mean and std of all returns.
Their best region (`best`) is per coordinate the block with the highest raw mean return (for
Thompson sampling too: its posterior mean would shrink rarely tried blocks).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np
from pydantic import Field

from zoo import BehaviorSpace, Choice, Params, ZooError

from .base import Stateful, blocks_of, choice_in_blocks, greedy, mean_returns, top_k


def greedy_choice(space: BehaviorSpace, sums: np.ndarray, counts: np.ndarray, rng: np.random.Generator) -> Choice:
    """Per coordinate k the block with the highest mean return sums[k] / counts[k], a point uniform inside."""
    blocks = [greedy(mean_returns(sums[k, :c.blocks], counts[k, :c.blocks]), rng)
              for k, c in enumerate(space.coordinates)]
    return choice_in_blocks(space, blocks, rng)


class FixedParams(Params):
    """Always the same behavior (default: the agent's own default point, e.g. GDI's softmax(A))."""

    value: list[float] | None = Field(default=None, description="one value per coordinate of the agent's behavior space")


class Fixed(Stateful):
    def __init__(self, params: FixedParams, space: BehaviorSpace, rng: np.random.Generator):
        value = params.value if params.value is not None else space.default
        if len(value) != space.dim or not space.contains(value):
            ranges = ", ".join(f"{c.name} in [{c.low}, {c.high}]" for c in space.coordinates)
            raise ZooError(f"meta_controller.value: {list(value)} is not a point of the behavior space ({ranges})")
        self.value, self.rng = np.array(value, float), rng

    def sample(self) -> Choice:
        return Choice(self.value.copy())

    def best(self, rng: np.random.Generator) -> Choice:
        return self.sample()

    def update(self, choice: Choice, episode_return: float) -> None:
        pass


class Uniform(Stateful):
    """Every coordinate uniform in its range, every episode (GDI's Random Selection, "without E")."""

    def __init__(self, params: Params, space: BehaviorSpace, rng: np.random.Generator):
        self.space, self.rng = space, rng

    def sample(self) -> Choice:
        return Choice(np.array([c.low + self.rng.random() * (c.high - c.low) for c in self.space.coordinates]))

    def update(self, choice: Choice, episode_return: float) -> None:
        pass


class UCB1Params(Params):
    """UCB1 per coordinate over its blocks."""

    exploration: float = Field(default=2.0, ge=0, description="c in mean + sqrt(c * ln t / n)")


class PerCoordinate(Stateful):
    """A factorized bandit: each coordinate's block is picked on its own (`_pick`), a point drawn inside."""

    space: BehaviorSpace

    def _pick(self, k: int) -> int:
        raise NotImplementedError

    def sample(self) -> Choice:
        return choice_in_blocks(self.space, [self._pick(k) for k in range(self.space.dim)], self.rng)


class BlockReturns(PerCoordinate):
    """Per coordinate and block: how many episodes chose it and the sum of their returns."""

    _state = ("counts", "sums")

    def __init__(self, space: BehaviorSpace, rng: np.random.Generator):
        self.space, self.rng = space, rng
        size = max(c.blocks for c in space.coordinates)
        self.counts = np.zeros((space.dim, size))
        self.sums = np.zeros((space.dim, size))

    def best(self, rng: np.random.Generator) -> Choice:
        return greedy_choice(self.space, self.sums, self.counts, rng)

    def update(self, choice: Choice, episode_return: float) -> None:
        for k, block in enumerate(blocks_of(self.space, choice.value)):
            self.counts[k, block] += 1
            self.sums[k, block] += episode_return


class UCB1(BlockReturns):
    _state = (*BlockReturns._state, "low", "high")

    def __init__(self, params: UCB1Params, space: BehaviorSpace, rng: np.random.Generator):
        super().__init__(space, rng)
        self.c = params.exploration
        self.low, self.high = np.array(np.inf), np.array(-np.inf)

    def _pick(self, k: int) -> int:
        n = self.space.coordinates[k].blocks
        counts, sums = self.counts[k, :n], self.sums[k, :n]
        if (counts == 0).any():
            return int(top_k((counts == 0).astype(float), 1, self.rng)[0])
        spread = float(self.high - self.low)
        means = (sums / counts - self.low) / spread if spread > 0 else np.full(n, 0.5)
        return int(top_k(means + np.sqrt(self.c * np.log(counts.sum()) / counts), 1, self.rng)[0])

    def update(self, choice: Choice, episode_return: float) -> None:
        super().update(choice, episode_return)
        self.low, self.high = np.minimum(self.low, episode_return), np.maximum(self.high, episode_return)


class SlidingWindowParams(Params):
    """Agent57's meta-controller: UCB over the last `window` episodes, with an epsilon of random arms."""

    window: int = Field(default=160, ge=1, le=10**6, description="episodes remembered")
    beta: float = Field(default=1.0, ge=0, description="bonus scale in mean + beta * sqrt(1 / n)")
    epsilon: float = Field(default=0.5, ge=0, le=1, description="probability of a uniformly random block")


class SlidingWindowUCB(PerCoordinate):
    def __init__(self, params: SlidingWindowParams, space: BehaviorSpace, rng: np.random.Generator):
        self.space, self.rng, self.params = space, rng, params
        self.history: deque[tuple[list[int], float]] = deque(maxlen=params.window)

    def _pick(self, k: int) -> int:
        n = self.space.coordinates[k].blocks
        if self.rng.random() < self.params.epsilon or not self.history:
            return int(self.rng.integers(n))
        counts, sums = np.zeros(n), np.zeros(n)
        returns = np.array([g for _, g in self.history])
        for blocks, g in self.history:
            counts[blocks[k]] += 1
            sums[blocks[k]] += g
        if (counts == 0).any():
            return int(top_k((counts == 0).astype(float), 1, self.rng)[0])
        spread = returns.max() - returns.min()
        means = (sums / counts - returns.min()) / spread if spread > 0 else np.full(n, 0.5)
        return int(top_k(means + self.params.beta * np.sqrt(1.0 / counts), 1, self.rng)[0])

    def best(self, rng: np.random.Generator) -> Choice:
        """The greedy blocks of the episodes in the window."""
        size = max(c.blocks for c in self.space.coordinates)
        counts, sums = np.zeros((self.space.dim, size)), np.zeros((self.space.dim, size))
        for blocks, g in self.history:
            counts[range(self.space.dim), blocks] += 1
            sums[range(self.space.dim), blocks] += g
        return greedy_choice(self.space, sums, counts, rng)

    def update(self, choice: Choice, episode_return: float) -> None:
        self.history.append((blocks_of(self.space, choice.value), float(episode_return)))

    def state_dict(self) -> dict[str, Any]:
        return {"blocks": [b for b, _ in self.history], "returns": [g for _, g in self.history],
                "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.history.clear()
        self.history.extend((list(b), float(g)) for b, g in zip(state["blocks"], state["returns"]))
        self.rng.bit_generator.state = state["rng"]


class ThompsonParams(Params):
    """Gaussian Thompson sampling per coordinate on z-scored returns, prior N(0, prior_variance)."""

    prior_variance: float = Field(default=1.0, gt=0, description="variance of the Gaussian prior on each z-scored return")


class Thompson(BlockReturns):
    _state = (*BlockReturns._state, "return_moments")

    def __init__(self, params: ThompsonParams, space: BehaviorSpace, rng: np.random.Generator):
        super().__init__(space, rng)
        self.prior = params.prior_variance
        # n, mean and sum of squared deviations of all returns, updated as Welford does: the variance
        # from raw sums (sum of squares / n - mean^2) cancels to nothing for returns with a large
        # common offset, e.g. 1e8 + {0, 1, 0, 1, 2}.
        self.return_moments = np.zeros(3)

    def _pick(self, k: int) -> int:
        n = self.space.coordinates[k].blocks
        total, mean, squares = self.return_moments
        std = np.sqrt(squares / total) if total else 0.0
        counts = self.counts[k, :n]
        z = np.where(counts > 0, (self.sums[k, :n] / np.maximum(counts, 1) - mean) / (std if std > 1e-12 else 1.0), 0.0)
        precision = 1.0 / self.prior + counts  # unit observation variance in z units
        draws = self.rng.normal(counts * z / precision, 1.0 / np.sqrt(precision))
        return int(np.argmax(draws))

    def update(self, choice: Choice, episode_return: float) -> None:
        super().update(choice, episode_return)
        total, mean, squares = self.return_moments
        total += 1.0
        deviation = episode_return - mean
        mean += deviation / total
        self.return_moments = np.array([total, mean, squares + deviation * (episode_return - mean)])

    def load_state_dict(self, state: dict) -> None:
        if "moments" in state:  # a checkpoint written before Welford's update: n, sum, sum of squares
            total, first, second = state["moments"]
            mean = first / total if total else 0.0
            state = {**state, "return_moments": [total, mean, max(second - total * mean ** 2, 0.0)]}
        super().load_state_dict(state)
