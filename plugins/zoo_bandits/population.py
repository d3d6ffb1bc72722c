"""GDI's meta-controller: ensembles of UCB bandits over blocks with smoothed block values.

A bandit holds weights w and counts N per block. A block's value V_i is a mean of weights (by
default over the blocks within `width` of it); its score is the z-scored value plus
c * sqrt(log(1 + sum N) / (1 + N_i)). An "argmax" bandit proposes its d best blocks, a "random" one
draws d distinct blocks with probabilities softmax(score); a proposal is a uniform point inside the
block. An ensemble picks one of all its bandits' proposals uniformly and updates every bandit with
(x, G): the weights behind V_i each get ``lr * (G - V_i)``, and ``N_i += 1``. (GDI paper, App. G and
Table 6, completed from DiCE's Appendix A, docs/algorithms/gdi.md; DiCE's Bandits Vote Algorithm is
the same with other constants.)

The default is one ensemble of 1-D bandits per coordinate, window-smoothed, over the coordinates as
they are. The alternatives: one ensemble over the product grid of all coordinates
(`structure: joint`), App. G's tile coding (`smoothing: tiles`), and bandits over x = log(1 + value)
for inverse temperatures (`log1p_coordinates`).

The best region (`best`, for evaluation: DiCE's best tau, GDI's greedy-lambda eval) is per ensemble
the block whose V, averaged over the ensemble's bandits, is highest: no bonus, a point uniform inside.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field

from zoo import BehaviorSpace, Choice, Params

from .base import blocks_of, greedy, top_k
from .grid import BanditCoordinates, Grid
from .smoothing import SMOOTHINGS, Tiles, Window


class PopulationParams(Params):
    """GDI's bandit population (paper defaults)."""

    bandits: int = Field(default=7, ge=1, le=1000, description="bandits per ensemble (M)")
    candidates: int = Field(default=3, ge=1, le=1000, description="proposals per bandit (d)")
    ucb: float = Field(default=1.0, ge=0, description="UCB scaling c")
    learning_rates: list[float] = Field(default=[0.05, 0.1, 0.2], min_length=1, description="each bandit draws its lr from these")
    widths: list[int] = Field(default=[2, 3, 4], min_length=1,
                              description="each bandit draws its smoothing half-width from these (smoothing: window)")
    modes: list[Literal["argmax", "random"]] = Field(
        default=["argmax", "random"], min_length=1, description="each bandit draws how it picks among its proposals from these")
    structure: Literal["factorized", "joint"] = Field(
        default="factorized", description="factorized: one ensemble of 1-D bandits per coordinate; joint: one ensemble "
        "of bandits over the product grid of all coordinates' blocks (window per axis, a proposal is a point)")
    smoothing: Literal["window", "tiles"] = Field(
        default="window", description="window: V_i = mean of w over the blocks within the bandit's width; tiles: "
        "App. G's tile coding, V_i = mean over the bandit's tilings of the weight of the tile holding block i")
    tilings: int = Field(default=3, ge=1, le=100, description="tilings per bandit (smoothing: tiles; the paper says 'several')")
    tile_sizes: list[Annotated[int, Field(ge=1)]] = Field(
        default=[2, 3, 4], min_length=1, description="each tiling draws its tile width in blocks from these "
        "(smoothing: tiles; App. G's 'accuracy of tile coding' k: tiles k * acc wide)")
    tile_offset: float = Field(
        default=0.6, ge=0, lt=1, description="each tiling shifts its tiles by Uniform[0, tile_offset) tile widths per "
        "axis (smoothing: tiles; App. G's offset Uniform([0, 60]), read as a percentage of the tile width)")
    log1p_coordinates: list[str] = Field(
        default=[], description="coordinates the bandits see as x = log(1 + value), in as many blocks, equally wide "
        "in x; for inverse temperatures 1/tau this is App. G's log(1 + 1/tau) (GDI: [beta1, beta2])")


class Bandit:
    """A UCB bandit over the blocks of a grid, its block values given by a smoothing of its weights."""

    def __init__(self, grid: Grid, smoothing: Window | Tiles, *, lr: float, mode: str, ucb: float, candidates: int):
        self.grid, self.smoothing, self.lr, self.mode, self.ucb = grid, smoothing, lr, mode, ucb
        self.candidates = min(candidates, grid.size)
        self.w, self.N = smoothing.weights(), np.zeros(grid.size)

    def values(self) -> np.ndarray:
        """V per block (flat block index)."""
        return self.smoothing.values(self.w)

    def scores(self) -> np.ndarray:
        values = self.values()
        spread = values.std()
        z = (values - values.mean()) / spread if spread >= 1e-8 else np.zeros_like(values)
        return z + self.ucb * np.sqrt(np.log1p(self.N.sum()) / (1.0 + self.N))

    def propose(self, rng: np.random.Generator) -> np.ndarray:
        """`candidates` points (rows), one uniform inside each proposed block."""
        scores = self.scores()
        if self.mode == "argmax":
            blocks = top_k(scores, self.candidates, rng)
        else:
            p = np.exp(scores - scores.max())
            blocks = rng.choice(len(scores), size=self.candidates, replace=False, p=p / p.sum())
        return self.grid.points_in(blocks, rng)

    def update(self, point, g: float) -> None:
        i = self.grid.block_of(point)
        self.smoothing.add(self.w, i, self.lr * (g - self.smoothing.value(self.w, i)))
        self.N[i] += 1

    def state_dict(self) -> dict[str, Any]:
        return {"w": self.w.copy(), "N": self.N.copy(), "lr": self.lr, "mode": self.mode, **self.smoothing.settings()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.w = np.array(state["w"], float).reshape(self.w.shape)
        self.N = np.array(state["N"], float).reshape(self.N.shape)


class Ensemble:
    """M bandits over one grid with randomly drawn lr, smoothing and mode; one proposal picked uniformly."""

    def __init__(self, grid: Grid, params: PopulationParams, rng: np.random.Generator):
        self.grid, self.params, self.smoothing = grid, params, SMOOTHINGS[params.smoothing]
        self.bandits = [self._draw(rng) for _ in range(params.bandits)]

    def _draw(self, rng: np.random.Generator) -> Bandit:
        lr = float(rng.choice(self.params.learning_rates))
        smoothing = self.smoothing.draw(self.grid.shape, self.params, rng)
        return self._bandit(smoothing, lr, str(rng.choice(self.params.modes)))

    def _bandit(self, smoothing: Window | Tiles, lr: float, mode: str) -> Bandit:
        return Bandit(self.grid, smoothing, lr=lr, mode=mode, ucb=self.params.ucb, candidates=self.params.candidates)

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        proposals = np.concatenate([b.propose(rng) for b in self.bandits])
        return proposals[rng.integers(len(proposals))]

    def best(self, rng: np.random.Generator) -> np.ndarray:
        """A point uniform inside the block with the highest mean over the bandits of V."""
        values = np.mean([b.values() for b in self.bandits], axis=0)
        return self.grid.points_in(np.array([greedy(values, rng)]), rng)[0]

    def update(self, point, g: float) -> None:
        for bandit in self.bandits:
            bandit.update(point, g)

    def state_dict(self) -> list[dict[str, Any]]:
        return [b.state_dict() for b in self.bandits]

    def load_state_dict(self, state: list[dict[str, Any]]) -> None:
        """Restores every bandit, its drawn lr, smoothing and mode included."""
        self.bandits = [self._bandit(self.smoothing.restore(self.grid.shape, s), float(s["lr"]), str(s["mode"]))
                        for s in state]
        for bandit, saved in zip(self.bandits, state):
            bandit.load_state_dict(saved)


class BanditPopulation:
    """The controller: ensembles over the coordinates (one per coordinate, or one joint), all fed the raw episode return."""

    def __init__(self, params: PopulationParams, space: BehaviorSpace, rng: np.random.Generator):
        self.space, self.rng = space, rng
        self.coordinates = BanditCoordinates(space, params.log1p_coordinates)
        axes = list(range(space.dim))
        self.groups = [axes] if params.structure == "joint" else [[axis] for axis in axes]
        self.ensembles = [Ensemble(Grid([self.coordinates.coordinates[a] for a in group]), params, rng)
                          for group in self.groups]

    def sample(self) -> Choice:
        return self._choice(np.concatenate([e.sample(self.rng) for e in self.ensembles]))

    def best(self, rng: np.random.Generator) -> Choice:
        return self._choice(np.concatenate([e.best(rng) for e in self.ensembles]))

    def _choice(self, x: np.ndarray) -> Choice:
        """The Choice of a point in the bandits' coordinates."""
        value = self.coordinates.to_space(x)
        shape = tuple(c.blocks for c in self.space.coordinates)
        return Choice(value, int(np.ravel_multi_index(tuple(blocks_of(self.space, value)), shape)))

    def update(self, choice: Choice, episode_return: float) -> None:
        x = self.coordinates.to_bandit(choice.value)
        for ensemble, group in zip(self.ensembles, self.groups):
            ensemble.update(x[group], float(episode_return))

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def state_dict(self) -> dict[str, Any]:
        return {"bandits": [e.state_dict() for e in self.ensembles], "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for ensemble, saved in zip(self.ensembles, state["bandits"]):
            ensemble.load_state_dict(saved)
        self.rng.bit_generator.state = state["rng"]
