"""Breadth-first ("full tree") search, the ALE paper's first planner (Bellemare et al. 2013, Section 3.2.1).

The tree grows level by level, one node per (parent, action) pair and decision, until the node
budget is spent; a game-over node gets no children. Values are then backed up from the bottom,
V(n) = r(n) + gamma * max over children V(c), with V = r at a node without children, and the
root's action is the one whose child has the highest value, ties broken at random.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .model import Model


@dataclass
class Node:
    reward: float = 0.0
    children: list[Node] = field(default_factory=list)

    def value(self, gamma: float) -> float:
        """r(n) + gamma * max over children; deep trees are walked without recursion."""
        values: dict[int, float] = {}
        stack = [(self, False)]
        while stack:
            node, ready = stack.pop()
            if ready:
                best = max((values[id(c)] for c in node.children), default=0.0)
                values[id(node)] = node.reward + gamma * best
            else:
                stack.append((node, True))
                stack.extend((c, False) for c in node.children)
        return values[id(self)]


def expand(model: Model, max_nodes: int) -> Node:
    """The breadth-first tree of at most `max_nodes` nodes below the model's current state (which it restores)."""
    root_state = model.clone()
    root = Node()
    frontier: deque[tuple[Node, Any]] = deque([(root, root_state)])
    created = 0
    while frontier and created < max_nodes:
        parent, state = frontier.popleft()
        start = created
        for action in range(model.actions):
            if created == max_nodes:
                break
            model.restore(state)
            reward, over = model.step(action)
            child = Node(reward)
            parent.children.append(child)
            created += 1
            # a child is queued (with its state) only if the budget reaches it: the parent's children and
            # every node queued ahead of it are expanded first, each into `actions` children
            if not over and start + (len(frontier) + 1) * model.actions < max_nodes:
                frontier.append((child, model.clone()))
    model.restore(root_state)
    return root


def bfs_action(model: Model, max_nodes: int, gamma: float, rng: np.random.Generator) -> int:
    """The root action with the highest backed-up value of a `max_nodes` breadth-first tree."""
    root = expand(model, max_nodes)
    values = np.array([child.value(gamma) for child in root.children])
    best = np.flatnonzero(values == values.max())
    return int(rng.choice(best))
