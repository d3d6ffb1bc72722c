"""GDI's meta-controller: per coordinate, an ensemble of UCB bandits over blocks with window-smoothed values.

One 1-D bandit holds weights w and counts N per block. A block's value is the mean of w over the
blocks within `width` of it; its score is the z-scored value plus c * sqrt(log(1 + sum N) / (1 + N_i)).
An "argmax" bandit proposes its d best blocks, a "random" one draws d distinct blocks with
probabilities softmax(score); a proposal is a uniform point inside the block. The ensemble picks one
of all its bandits' proposals uniformly and updates every bandit with (x, G):
``w_j += lr * (G - V_i)`` over the window of x's block i, ``N_i += 1``. (GDI paper, App. G and
Table 6, as resolved in specs/gdi.md section 2.4; DiCE's Bandits Vote Algorithm is the same with
other constants.)
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from zoo import Params
from zoo_learner import BehaviorSpace, Choice, Coordinate

from .base import blocks_of


class PopulationParams(Params):
    """GDI's bandit population (paper defaults)."""

    bandits: int = Field(default=7, ge=1, le=1000, description="bandits per coordinate (M)")
    candidates: int = Field(default=3, ge=1, le=1000, description="proposals per bandit (d)")
    ucb: float = Field(default=1.0, ge=0, description="UCB scaling c")
    learning_rates: list[float] = Field(default=[0.05, 0.1, 0.2], min_length=1, description="each bandit draws its lr from these")
    widths: list[int] = Field(default=[2, 3, 4], min_length=1, description="each bandit draws its smoothing half-width from these")
    modes: list[Literal["argmax", "random"]] = Field(default=["argmax", "random"], min_length=1)


class Bandit:
    """A 1-D bandit over the blocks of one coordinate."""

    def __init__(self, coordinate: Coordinate, *, lr: float, width: int, mode: str, ucb: float, candidates: int):
        self.coordinate, self.lr, self.width, self.mode, self.ucb = coordinate, lr, width, mode, ucb
        self.candidates = min(candidates, coordinate.blocks)
        n = coordinate.blocks
        self.w, self.N = np.zeros(n), np.zeros(n)
        index = np.arange(n)
        self._lo, self._hi = np.maximum(0, index - width), np.minimum(n - 1, index + width)

    def values(self) -> np.ndarray:
        """V_i: mean of w over blocks i - width .. i + width (fewer at the edges)."""
        sums = np.concatenate([[0.0], np.cumsum(self.w)])
        return (sums[self._hi + 1] - sums[self._lo]) / (self._hi - self._lo + 1)

    def scores(self) -> np.ndarray:
        values = self.values()
        spread = values.std()
        z = (values - values.mean()) / spread if spread >= 1e-8 else np.zeros_like(values)
        return z + self.ucb * np.sqrt(np.log1p(self.N.sum()) / (1.0 + self.N))

    def propose(self, rng: np.random.Generator) -> np.ndarray:
        """`candidates` points, one uniform inside each proposed block."""
        scores = self.scores()
        if self.mode == "argmax":
            blocks = np.lexsort((rng.random(len(scores)), -scores))[: self.candidates]
        else:
            p = np.exp(scores - scores.max())
            blocks = rng.choice(len(scores), size=self.candidates, replace=False, p=p / p.sum())
        starts = self.coordinate.low + blocks * self.coordinate.block
        ends = np.where(blocks == self.coordinate.blocks - 1, self.coordinate.high, starts + self.coordinate.block)
        return starts + rng.random(len(blocks)) * (ends - starts)

    def update(self, x: float, g: float) -> None:
        i = self.coordinate.block_of(x)
        delta = g - self.values()[i]
        self.w[self._lo[i]: self._hi[i] + 1] += self.lr * delta
        self.N[i] += 1


class Ensemble:
    """M bandits over one coordinate with randomly drawn lr, width and mode; one proposal picked uniformly."""

    def __init__(self, coordinate: Coordinate, params: PopulationParams, rng: np.random.Generator):
        self.bandits = [
            Bandit(coordinate, lr=float(rng.choice(params.learning_rates)), width=int(rng.choice(params.widths)),
                   mode=str(rng.choice(params.modes)), ucb=params.ucb, candidates=params.candidates)
            for _ in range(params.bandits)
        ]

    def sample(self, rng: np.random.Generator) -> float:
        proposals = np.concatenate([b.propose(rng) for b in self.bandits])
        return float(proposals[rng.integers(len(proposals))])

    def update(self, x: float, g: float) -> None:
        for bandit in self.bandits:
            bandit.update(x, g)


class BanditPopulation:
    """The factorized controller: one ensemble per coordinate, all fed the raw episode return."""

    def __init__(self, params: PopulationParams, space: BehaviorSpace, rng: np.random.Generator):
        self.space, self.rng = space, rng
        self.ensembles = [Ensemble(c, params, rng) for c in space.coordinates]

    def sample(self) -> Choice:
        value = np.array([e.sample(self.rng) for e in self.ensembles])
        shape = tuple(c.blocks for c in self.space.coordinates)
        return Choice(value, int(np.ravel_multi_index(tuple(blocks_of(self.space, value)), shape)))

    def update(self, choice: Choice, episode_return: float) -> None:
        for ensemble, x in zip(self.ensembles, choice.value):
            ensemble.update(float(x), float(episode_return))

    def state_dict(self) -> dict[str, Any]:
        bandits = [[{"w": b.w.copy(), "N": b.N.copy(), "lr": b.lr, "width": b.width, "mode": b.mode}
                    for b in e.bandits] for e in self.ensembles]
        return {"bandits": bandits, "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores every bandit, its drawn lr, width and mode included."""
        for ensemble, saved in zip(self.ensembles, state["bandits"]):
            ensemble.bandits = [self._restore(b, s) for b, s in zip(ensemble.bandits, saved)]
        self.rng.bit_generator.state = state["rng"]

    @staticmethod
    def _restore(bandit: Bandit, saved: dict[str, Any]) -> Bandit:
        restored = Bandit(bandit.coordinate, lr=float(saved["lr"]), width=int(saved["width"]), mode=str(saved["mode"]),
                          ucb=bandit.ucb, candidates=bandit.candidates)
        restored.w, restored.N = np.array(saved["w"], float), np.array(saved["N"], float)
        return restored
