"""LBC's meta-controller: per coordinate, a population of UCB bandits that vote (Algorithm 1, App. E).

One bandit keeps counts N and return sums S per arm (a coordinate's block) and its own exploration
constant c ~ U[c_low, c_high]. Score(k) = z(V(k)) + c * sqrt(log(1 + sum N) / (1 + N(k))) with
V = S / N, z-scored over visited arms (unvisited arms: 0; std below 1e-8 counts as 1). Each bandit
proposes its top-D arms (or, in softmax mode, D distinct arms drawn from softmax(score)); the arm with
the most votes wins, ties broken uniformly; the point is drawn uniformly inside the winning blocks.
Every bandit is updated with the arm that was chosen and the raw episode return; every
`replace_every` updates one bandit, picked uniformly, restarts with no history and a new c.

For evaluation (`best`, the zoo's reading of App. H.2; docs/algorithms/lbc.md) each coordinate takes
its greedy arm: the highest mean return over its bandits' pooled counts and sums (arms none has tried
rank last, ties uniformly at random), with no bonus; the point is drawn uniformly inside.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field, model_validator

from zoo import BehaviorSpace, Choice, Params


class VotingParams(Params):
    """The paper's Table 3 defaults."""

    bandits: int = Field(default=7, ge=1, le=1000, description="bandits per coordinate")
    top_d: int = Field(default=4, ge=1, le=1000, description="arms each bandit votes for (D)")
    c_range: tuple[float, float] = Field(default=(0.5, 1.5), description="each bandit's UCB c is drawn uniformly from it")
    replace_every: int = Field(default=50, ge=0, description="updates between replacing one bandit (0: never)")
    mode: Literal["vote", "softmax"] = Field(default="vote", description="top-D votes, or D arms drawn from softmax(score)")

    @model_validator(mode="after")
    def _check_range(self):
        if not 0 <= self.c_range[0] <= self.c_range[1]:
            raise ValueError("c_range needs 0 <= low <= high")
        return self


def vote(proposals: np.ndarray, rng: np.random.Generator) -> int:
    """The most proposed arm (ties uniformly at random)."""
    arms, counts = np.unique(np.asarray(proposals).ravel(), return_counts=True)
    return int(rng.choice(arms[counts == counts.max()]))


class UCBBandit:
    """Counts, return sums and an exploration constant over `arms` arms."""

    def __init__(self, arms: int, c: float):
        self.c, self.N, self.S = c, np.zeros(arms), np.zeros(arms)

    def scores(self) -> np.ndarray:
        visited = self.N > 0
        z = np.zeros(len(self.N))
        if visited.any():
            means = self.S[visited] / self.N[visited]
            std = means.std()
            z[visited] = (means - means.mean()) / (std if std >= 1e-8 else 1.0)
        return z + self.c * np.sqrt(np.log1p(self.N.sum()) / (1.0 + self.N))

    def propose(self, d: int, mode: str, rng: np.random.Generator) -> np.ndarray:
        scores = self.scores()
        d = min(d, len(scores))
        if mode == "vote":
            return np.lexsort((rng.random(len(scores)), -scores))[:d]
        p = np.exp(scores - scores.max())
        return rng.choice(len(scores), size=d, replace=False, p=p / p.sum())


class VotingPopulation:
    """One bandit population per coordinate of the behavior space."""

    def __init__(self, params: VotingParams, space: BehaviorSpace, rng: np.random.Generator):
        self.params, self.space, self.rng = params, space, rng
        self.shape = tuple(c.blocks for c in space.coordinates)
        self.populations = [[self._new_bandit(n) for _ in range(params.bandits)] for n in self.shape]
        self.updates, self.replacements = 0, 0

    def _new_bandit(self, arms: int) -> UCBBandit:
        low, high = self.params.c_range
        return UCBBandit(arms, float(low + self.rng.random() * (high - low)))

    def sample(self) -> Choice:
        arms = [vote(np.concatenate([b.propose(self.params.top_d, self.params.mode, self.rng) for b in bandits]), self.rng)
                for bandits in self.populations]
        return self._choice(arms, self.rng)

    def best(self, rng: np.random.Generator) -> Choice:
        arms = []
        for bandits in self.populations:
            counts, sums = sum(b.N for b in bandits), sum(b.S for b in bandits)
            means = np.divide(sums, counts, out=np.full(len(counts), -np.inf), where=counts > 0)
            arms.append(int(rng.choice(np.flatnonzero(means == means.max()))))
        return self._choice(arms, rng)

    def _choice(self, arms: list[int], rng: np.random.Generator) -> Choice:
        """A point drawn uniformly inside the given arm (block) of each coordinate."""
        point = []
        for coordinate, arm in zip(self.space.coordinates, arms):
            start, end = coordinate.edges(arm)
            point.append(start + rng.random() * (end - start))
        return Choice(np.array(point), int(np.ravel_multi_index(tuple(arms), self.shape)))

    def update(self, choice: Choice, episode_return: float) -> None:
        arms = np.unravel_index(choice.arm, self.shape) if choice.arm >= 0 else \
            [c.block_of(x) for c, x in zip(self.space.coordinates, choice.value)]
        for bandits, arm in zip(self.populations, arms):
            for bandit in bandits:
                bandit.N[arm] += 1
                bandit.S[arm] += episode_return
        self.updates += 1
        if self.params.replace_every and self.updates % self.params.replace_every == 0:
            for k, bandits in enumerate(self.populations):
                bandits[int(self.rng.integers(len(bandits)))] = self._new_bandit(self.shape[k])
            self.replacements += 1

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def state_dict(self) -> dict[str, Any]:
        return {"bandits": [[{"c": b.c, "N": b.N.copy(), "S": b.S.copy()} for b in bandits] for bandits in self.populations],
                "updates": self.updates, "replacements": self.replacements, "rng": self.rng.bit_generator.state}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for bandits, saved in zip(self.populations, state["bandits"]):
            for bandit, s in zip(bandits, saved):
                bandit.c, bandit.N, bandit.S = float(s["c"]), np.array(s["N"], float), np.array(s["S"], float)
        self.updates, self.replacements = int(state["updates"]), int(state["replacements"])
        self.rng.bit_generator.state = state["rng"]
