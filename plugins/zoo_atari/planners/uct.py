"""UCT (Kocsis & Szepesvari 2006) as the ALE paper ran it (Bellemare et al. 2013, Section 3.2.1, Appendix B).

Each simulation starts at the root, descends by UCB1 (an untried child first, chosen uniformly
among the untried; else the child maximising mean return + C * sqrt(ln n(parent) / n(child))),
expands the node it stops at, and finishes with a random rollout (a uniform action per decision)
until the search horizon, counted in decisions from the root, or the end of the game. The
discounted return is backed up per node: a node's mean is over r(node) + gamma * (the return
after it). After the simulations the root's most visited action is played.

The paper's one optimisation: when a node's children are expanded their emulator states are
compared, and actions that lead to the same state enter the tree once. The subtree of the action
played becomes the next root when the game reached the state the tree predicted. Rewards are
divided by the magnitude of the first non-zero reward the search simulates in the episode (in an
expansion or a rollout, possibly before the game has paid any), so that the exploration constant
works on one scale across games (the simulated returns before it are all zero, so no statistic
changes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .model import Model


@dataclass
class Node:
    """A tree node: the state reached, the reward and game over on the way in, visits and return sum."""

    state: Any
    reward: float = 0.0
    over: bool = False
    visits: int = 0
    total: float = 0.0
    children: dict[int, Node] = field(default_factory=dict)  # representative action -> child
    expanded: bool = False

    @property
    def mean(self) -> float:
        return self.total / self.visits


def ucb1_choice(parent: Node, exploration: float, rng: np.random.Generator) -> int:
    """The action of `parent`'s child to visit: a uniform untried one, else the highest UCB1 score."""
    actions = list(parent.children)
    untried = [a for a in actions if parent.children[a].visits == 0]
    if untried:
        return int(rng.choice(untried))
    log_n = math.log(parent.visits)
    scores = [parent.children[a].mean + exploration * math.sqrt(log_n / parent.children[a].visits) for a in actions]
    return actions[int(np.argmax(scores))]


@dataclass
class UCT:
    """A UCT searcher over a `Model`; `choose` returns the action to play, `advance` moves the root."""

    model: Model
    simulations: int
    horizon: int
    exploration: float
    gamma: float
    prune_duplicates: bool = True
    normalise_rewards: bool = True
    reuse_tree: bool = True
    root: Node | None = None
    scale: float | None = None

    def new_episode(self) -> None:
        self.root, self.scale = None, None

    def choose(self, rng: np.random.Generator) -> int:
        state = self.model.clone()
        if self.root is None or not self.model.same(self.root.state, state):
            self.root = Node(state)
        for _ in range(self.simulations):
            self.simulate(rng)
        self.model.restore(state)
        counts = {a: child.visits for a, child in self.root.children.items()}
        most = max(counts.values())
        return int(rng.choice([a for a, n in counts.items() if n == most]))

    def advance(self, action: int) -> None:
        """`action` was played: its subtree becomes the next root (dropped by `choose` if the game went elsewhere)."""
        self.root = self.root.children.get(action) if self.reuse_tree and self.root is not None else None

    # -- one simulation --------------------------------------------------------------------------
    def simulate(self, rng: np.random.Generator) -> None:
        path, node = [self.root], self.root
        while not node.over and len(path) <= self.horizon:
            if not node.expanded:
                self.expand(node)
            action = ucb1_choice(node, self.exploration, rng)
            child = node.children[action]
            path.append(child)
            node = child
            if child.visits == 0:
                break
        after = 0.0 if node.over else self.rollout(node, self.horizon + 1 - len(path), rng)
        for visited in reversed(path):
            after = visited.reward + self.gamma * after
            visited.visits += 1
            visited.total += after

    def expand(self, node: Node) -> None:
        """All children of `node`, one per distinct next state when duplicates are pruned."""
        node.expanded = True
        for action in range(self.model.actions):
            self.model.restore(node.state)
            reward, over = self.model.step(action)
            child = Node(self.model.clone(), self.scaled(reward), over)
            if self.prune_duplicates and any(self.model.same(child.state, c.state) for c in node.children.values()):
                continue
            node.children[action] = child

    def rollout(self, node: Node, depth: int, rng: np.random.Generator) -> float:
        """The discounted return of uniform actions for up to `depth` decisions after `node`."""
        self.model.restore(node.state)
        total, discount = 0.0, 1.0
        for _ in range(depth):
            reward, over = self.model.step(int(rng.integers(self.model.actions)))
            total += discount * self.scaled(reward)
            discount *= self.gamma
            if over:
                break
        return total

    def scaled(self, reward: float) -> float:
        if not self.normalise_rewards:
            return reward
        if self.scale is None and reward != 0:
            self.scale = abs(reward)
        return reward / self.scale if self.scale else reward
